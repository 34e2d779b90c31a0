import { renameSync } from "node:fs";
import type { ServiceContext } from "../context.js";
import {
  EXPORT_KIND,
  EXPORT_PATH,
  EXPORT_RETENTION_DAYS,
  exportFile,
  partialExportFile,
  sweepExports,
} from "../export/files.js";
import type { ExportOptions } from "../export/options.js";
import { PackageWriter } from "../export/package-writer.js";
import { exportRefusal } from "../export/permissions.js";
import { type ExportPlan, type PlannedNode, planExport } from "../export/plan.js";
import type { ActionItemRow } from "../store/actions/read.js";
import { recordItems } from "../store/actions/write.js";
import { getUser, Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { eventsOf, fragmentsWithContent, identifiersOf } from "../store/export/read.js";
import { opexManifestDocument } from "../xml/opex-docs.js";
import {
  type ActionKind,
  type ActionOutcome,
  type ActionRun,
  CancelRequested,
  StopRequested,
} from "./action-kind.js";

/**
 * The export action: a folder or asset (and what it holds) written as an OPEX package to
 * `<dataDir>/exports/<id>.zip` (layout in export/plan.ts, manifests in xml/opex-docs.ts). In order:
 * the plan is worked out from the store and the caller's permissions checked again (time has passed
 * since the request); the zip is written as `<id>.zip.part`, content streamed from the content store
 * one file at a time, pausing between files; then the file is renamed into place and, in one
 * transaction, one item is recorded per folder and asset exported ("done") and per file whose bytes
 * were missing from the content store or metadata document that could not be embedded ("failed",
 * named). Writing nothing in the store but the action, an export is safe to run again from the start:
 * a stop or crash leaves it ACTIVE, and at the next start it is resumed, its partial file rewritten.
 *
 * Outcomes: COMPLETED; FINISHED_MIXED_OUTCOME when something had to be left out; FAILED when the
 * entity is gone, the user may no longer export it, or the package could not be written.
 *
 * `PRESERVATION_EXPORT_PAUSE_MS` (test-only, 0 to 60000): wait this long after each content file, so a
 * test can stop the service in the middle of an export.
 */

export interface ExportParams {
  options: ExportOptions;
}

export function exportPauseMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PRESERVATION_EXPORT_PAUSE_MS?.trim();
  if (!raw || !/^\d+$/.test(raw)) return 0;
  return Math.min(Number(raw), 60_000);
}

/** How often (at most) progress is written to the action while the package is written. */
const PROGRESS_EVERY_MS = 250;
/** Manifests written between pauses when there are no content files to pause after. */
const NODES_PER_PAUSE = 50;

async function run(r: ActionRun): Promise<ActionOutcome | undefined> {
  const { svc, action } = r;
  const { options } = r.params as ExportParams;
  sweepExports(svc);
  const ref = action.entity_ref as string;
  // A resumed run starts over: the counts of an interrupted one mean nothing now.
  svc.db.prepare("UPDATE actions SET done = 0, failed = 0, total = 0 WHERE id = ?").run(action.id);

  const user = getUser(svc.db, action.username);
  if (!user?.enabled) {
    return {
      status: "FAILED",
      message: `User ${action.username} can no longer sign in; nothing was exported`,
    };
  }
  const plan = planExport(svc.db, svc.content, ref, options);
  if (!plan) {
    return {
      status: "FAILED",
      message: `Entity ${ref} no longer exists (deleted since); nothing was exported`,
    };
  }
  const refusal = exportRefusal(user.username, plan.scope, new Permissions(svc.db, user.roles), options);
  if (refusal) return { status: "FAILED", message: refusal };

  const total = plan.nodes.length + plan.missing.length;
  const setProgress = svc.db.prepare(
    "UPDATE actions SET total = ?, done = ?, message = ?, updated = ? WHERE id = ?",
  );
  const mb = (n: number) => (n / 1_048_576).toFixed(1);
  const progress = (done: number, files: number, bytes: number) =>
    setProgress.run(
      total,
      done,
      `Writing the package: ${files} of ${plan.files} files, ${mb(bytes)} of ${mb(plan.bytes)} MB`,
      r.now(),
      action.id,
    );
  progress(0, 0, 0);

  const part = partialExportFile(svc.dataDir, action.id);
  const writer = new PackageWriter(part, svc.content, new Date(action.created));
  const failures: ActionItemRow[] = [];
  const pauseMs = exportPauseMs();
  let written = 0;
  let filesWritten = 0;
  let lastProgress = Date.now();
  try {
    for (const [i, node] of plan.nodes.entries()) {
      const manifest = manifestOf(svc.db, node, options);
      // A folder's directory has an entry of its own, as in the real service's packages (an asset exported
      // with the two folders above it is 6 entries there: each folder's directory and manifest, then the
      // asset's PAX and its manifest; pyPreservica's test_export_opex counts them).
      if (node.entity.type === "SO") writer.addDirectory(node.dir);
      writer.addText(node.manifestPath, manifest.xml);
      for (const message of manifest.problems) {
        failures.push({ seq: 0, entity_ref: node.entity.ref, outcome: "failed", message });
      }
      if (node.entity.type === "IO" && node.files.length === 0) writer.addDirectory(node.dir);
      // Folders and assets without files yield too, so a large manifests-only export lets others run.
      if (node.files.length === 0 && i % NODES_PER_PAUSE === NODES_PER_PAUSE - 1) {
        progress(i, filesWritten, written);
        await r.pause();
      }
      for (const f of node.files) {
        await writer.addBlob(f.zipPath, f.sha256, f.size);
        written += f.size;
        filesWritten++;
        if (Date.now() - lastProgress >= PROGRESS_EVERY_MS || pauseMs > 0) {
          progress(i, filesWritten, written);
          lastProgress = Date.now();
        }
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        await r.pause();
      }
    }
    const size = await writer.finish();
    renameSync(part, exportFile(svc.dataDir, action.id));
    return finish(svc, r, plan, failures, size);
  } catch (err) {
    writer.abort();
    if (err instanceof StopRequested || err instanceof CancelRequested || !svc.db.open) throw err;
    return {
      status: "FAILED",
      message: `The package could not be written (${(err as Error).message}); nothing was exported`,
    };
  }
}

/** Records the items and the counts in one transaction; the runner sets the final status. */
function finish(
  svc: ServiceContext,
  r: ActionRun,
  plan: ExportPlan,
  problems: ActionItemRow[],
  size: number,
): ActionOutcome {
  const now = r.now();
  let seq = 1;
  const items: ActionItemRow[] = [
    ...plan.nodes.map(
      (n): ActionItemRow => ({
        seq: seq++,
        entity_ref: n.entity.ref,
        outcome: "done",
        message:
          n.role === "ancestor"
            ? `Folder above the exported entity, as ${n.manifestPath}`
            : `${n.entity.type === "IO" ? `Asset with ${n.files.length} file${n.files.length === 1 ? "" : "s"}` : "Folder"}, as ${n.manifestPath}`,
      }),
    ),
    ...plan.missing.map(
      (m): ActionItemRow => ({ seq: seq++, entity_ref: m.coRef, outcome: "failed", message: m.message }),
    ),
    ...problems.map((p): ActionItemRow => ({ ...p, seq: seq++ })),
  ];
  svc.db.transaction(() => {
    svc.db
      .prepare("UPDATE actions SET done = 0, failed = 0, total = ?, message = NULL WHERE id = ?")
      .run(items.length, r.action.id);
    recordItems(svc.db, r.action.id, items, now);
  })();
  const left = plan.missing.length + problems.length;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const assets = plan.nodes.filter((n) => n.entity.type === "IO").length;
  return {
    message: `Exported ${count(plan.nodes.length - assets, "folder")} and ${count(assets, "asset")} with ${count(plan.files, "file")} (${size} bytes in the package)${left > 0 ? `; ${count(left, "item")} left out, see the items` : ""}. Download it from /api/entity/actions/exports/${r.action.id}/content within ${EXPORT_RETENTION_DAYS} days`,
  };
}

interface RenderedManifest {
  xml: string;
  problems: string[];
}

/** The manifest of one folder or asset, with what it says depending on IncludeMetadata. */
function manifestOf(db: Db, node: PlannedNode, options: ExportOptions): RenderedManifest {
  const e = node.entity;
  const withMetadata = options.includeMetadata !== "NoMetadata";
  const fragments = withMetadata ? fragmentsWithContent(db, e.ref) : [];
  const events =
    options.includeMetadata === "MetadataWithEvents"
      ? eventsOf(db, [e.ref, ...node.contentObjects]).map((ev) => ({
          date: ev.date,
          user: ev.username,
          type: ev.type,
          action: ev.command_type,
          detail:
            ev.entity_ref === e.ref
              ? ev.detail
              : `Content object ${ev.entity_ref}${ev.detail ? `: ${ev.detail}` : ""}`,
        }))
      : undefined;
  const isAsset = e.type === "IO";
  const { xml, skipped } = opexManifestDocument({
    sourceId: e.ref,
    title: e.title,
    description: e.description,
    securityDescriptor: e.security_tag,
    identifiers: identifiersOf(db, e.ref),
    files: isAsset
      ? node.files.map((f) => ({ path: f.paxPath, type: "content" as const, size: f.size }))
      : node.childManifests.map((m) => ({ path: m, type: "metadata" as const })),
    folders: isAsset ? node.paxFolders : node.childFolders,
    fixities: node.files.flatMap((f) => f.fixities),
    ...(events ? { events } : {}),
    ...(withMetadata ? { documents: fragments.map((f) => f.content) } : {}),
  });
  return {
    xml,
    problems: skipped.map((i) => {
      const f = fragments[i];
      return `Metadata fragment ${f?.mref} (${f?.schema_uri}) of ${e.ref} is not well-formed XML and was left out of ${node.manifestPath}`;
    }),
  };
}

export const exportAction: ActionKind = {
  kind: EXPORT_KIND,
  path: EXPORT_PATH,
  title: "Export a folder or asset as an OPEX package (zip)",
  run,
};
