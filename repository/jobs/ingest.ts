import { existsSync } from "node:fs";
import type { ServiceContext } from "../context.js";
import { checkPlan, type Depositor } from "../ingest/check.js";
import { commitPlan } from "../ingest/commit.js";
import { planPackage } from "../ingest/detect.js";
import { packagePath, removePackage, sweepPackages } from "../ingest/packages.js";
import { INGEST_KIND, INGEST_PATH, type IngestParams } from "../ingest/params.js";
import { planQuota } from "../ingest/quota.js";
import { plannedFiles, streamFiles } from "../ingest/stream.js";
import { DEFAULT_PACKAGE_LIMITS, PackageRefused, ZipPackage } from "../ingest/zip.js";
import type { ActionRow } from "../store/actions/read.js";
import { recordItems, setActionStatus } from "../store/actions/write.js";
import { getUser, Permission, Permissions } from "../store/auth.js";
import { getEntity } from "../store/entities/read.js";
import { quotaMessage } from "../store/storage/quota.js";
import { type ActionKind, type ActionOutcome, type ActionRun, StopRequested } from "./action-kind.js";

/**
 * The ingest action: a package file (already complete on disk, see ingest/start.ts) becomes folders
 * and assets. In order: the zip's directory is read and every entry checked (a zip-slip name, a link,
 * an encrypted entry refuse the whole package before anything is read); the package kind is detected
 * and its manifests read into a plan; the plan is checked against the store (tags, refs, folders,
 * rights); the storage quota is checked (ingest/quota.ts: a package that would pass it fails whole, before
 * any byte is stored); the files are streamed into the content store, fixities computed and declared ones
 * checked; then ONE transaction creates every entity with the Ingest event, the items and the final status.
 *
 * Interrupted (a stop or kill -9) before that transaction, nothing is visible and the action is still
 * ACTIVE with its package on disk: at the next start it runs again from the beginning (blobs already
 * stored are found by hash). If the package file is gone by then, the action ends FAILED. Its package
 * file is removed when the action ends, whatever the outcome.
 *
 * Outcomes: COMPLETED when every file was ingested; FINISHED_MIXED_OUTCOME when some were and some
 * failed (a fixity mismatch, an unknown security tag, a file a manifest promises but the package lacks);
 * FAILED when nothing could be ingested or the package was refused whole.
 *
 * `PRESERVATION_INGEST_PAUSE_MS` (test-only, 0 to 60000): wait this long after each file streamed, so a
 * test can kill the service in the middle of an ingest.
 */

export function ingestPauseMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PRESERVATION_INGEST_PAUSE_MS?.trim();
  if (!raw || !/^\d+$/.test(raw)) return 0;
  return Math.min(Number(raw), 60_000);
}

/** How often (at most) the streaming progress is written to the action. */
const PROGRESS_EVERY_MS = 250;

async function run(r: ActionRun): Promise<ActionOutcome | undefined> {
  const { svc, action } = r;
  const params = r.params as IngestParams;
  const path = packagePath(svc.dataDir, params.package);
  sweepPackages(svc.db, svc.dataDir, Date.now()); // file times are the real clock's, not svc.now's
  // A resumed run starts over: the counts of an interrupted one mean nothing now.
  svc.db.prepare("UPDATE actions SET done = 0, failed = 0, total = 0 WHERE id = ?").run(action.id);
  if (!existsSync(path)) {
    return fail(
      svc,
      action,
      r.now(),
      `The package "${params.packageName}" is no longer on the service's disk (the service was interrupted and its file is gone); nothing was ingested: upload it again`,
    );
  }
  let stopping = false;
  let pkg: ZipPackage | undefined;
  try {
    const depositor = depositorOf(svc, action, params);
    pkg = await ZipPackage.open(path, {
      maxEntries: DEFAULT_PACKAGE_LIMITS.maxEntries,
      // Bounds a zip bomb: a service taking larger uploads takes proportionally larger contents.
      maxContentBytes: Math.max(DEFAULT_PACKAGE_LIMITS.maxContentBytes, 16 * (svc.maxUploadBytes ?? 0)),
    });
    const plan = await planPackage(pkg, params.parentRef);
    checkPlan(svc.db, plan, depositor);
    // The storage quota, before any byte enters the content store: a refusal leaves nothing behind.
    const quota = await planQuota(svc.db, pkg, plan, () => r.pause());
    if (quota && !quota.fits) {
      throw new PackageRefused(
        quotaMessage(quota, `the package "${params.packageName}"`, "nothing was ingested"),
      );
    }
    const total = plannedFiles(plan).length + plan.missing.length;
    const setProgress = svc.db.prepare(
      "UPDATE actions SET total = ?, done = ?, failed = ?, updated = ? WHERE id = ?",
    );
    setProgress.run(total, 0, 0, r.now(), action.id);
    const pauseMs = ingestPauseMs();
    let written = Date.now();
    await streamFiles(pkg, plan, svc.content, {
      // Streaming yields to the event loop by itself; progress is written, and a stop or cancel
      // noticed, a few times a second rather than per file (10,000 files would be 10,000 writes).
      fileDone: async ({ done, failed }) => {
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        if (Date.now() - written >= PROGRESS_EVERY_MS || pauseMs > 0) {
          setProgress.run(total, done, failed, r.now(), action.id);
          written = Date.now();
          await r.pause();
        }
      },
    });
    // Last check for a stop or a cancel: from here to the end of the commit nothing awaits, so the
    // action cannot be ended from outside while its entities are being created.
    await r.pause();
    commitPlan(svc.db, {
      plan,
      actionId: action.id,
      depositor,
      packageName: params.packageName,
      now: r.now(),
    });
    return undefined; // the commit stored the outcome with the items
  } catch (err) {
    if (err instanceof StopRequested || !svc.db.open) {
      stopping = true; // resumed at the next start, package and all
      throw err;
    }
    if (err instanceof PackageRefused) return fail(svc, action, r.now(), err.message);
    throw err;
  } finally {
    await pkg?.close();
    if (!stopping) removePackage(svc.dataDir, params.package);
  }
}

/** Who deposits: the user who started the ingest, if they still may sign in and ingest into the folder. */
function depositorOf(svc: ServiceContext, action: ActionRow, params: IngestParams): Depositor {
  const user = getUser(svc.db, action.username);
  if (!user?.enabled) {
    throw new PackageRefused(
      `The user who sent this package (${action.username}) can no longer sign in; nothing was ingested`,
    );
  }
  const permissions = new Permissions(svc.db, user.roles);
  if (params.parentRef) {
    const folder = getEntity(svc.db, params.parentRef);
    if (folder?.type !== "SO") {
      throw new PackageRefused(
        `The folder ${params.parentRef} this package was sent to no longer exists; nothing was ingested`,
      );
    }
    if (!permissions.permits(folder.security_tag, Permission.INGEST)) {
      throw new PackageRefused(
        `User ${user.username} lacks the ${Permission.INGEST} permission on security tag "${folder.security_tag}" of folder ${folder.ref}; nothing was ingested`,
      );
    }
  }
  return { username: user.username, permissions };
}

/** Ends the action FAILED with one failed item saying why (nothing was created). */
function fail(svc: ServiceContext, action: ActionRow, now: string, message: string): ActionOutcome {
  svc.db.transaction(() => {
    recordItems(svc.db, action.id, [{ seq: 1, entity_ref: null, outcome: "failed", message }], now);
    svc.db.prepare("UPDATE actions SET total = 1 WHERE id = ?").run(action.id);
    setActionStatus(svc.db, action.id, "FAILED", now, message);
  })();
  return { status: "FAILED", message };
}

export const ingestAction: ActionKind = {
  kind: INGEST_KIND,
  path: INGEST_PATH,
  title: "Ingest a package (a zipped folder, OPEX or XIP) into a folder",
  run,
};
