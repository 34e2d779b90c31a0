import { createHash } from "node:crypto";
import type { ActionItemRow } from "../store/actions/read.js";
import { getAction } from "../store/actions/read.js";
import { nextItemSeq, recordItems, setActionParams, setActionTotal } from "../store/actions/write.js";
import type { ContentStore } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import { findEntity } from "../store/entities/read.js";
import { integrityItemPrefix } from "../store/files/integrity-history.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";
import { actionBatchSize, batches } from "./batches.js";

/**
 * The Integrity Check workflow: re-reads every bitstream under a folder (or in the whole repository)
 * from the content store, recomputes its SHA-256 and compares it with the one recorded at ingest. Each
 * bitstream is one item: done ("SHA-256 verified"), or failed with "fixity mismatch" or "file missing".
 * Bitstreams are checked in id order, a batch at a time; each batch's items and the position reached
 * are recorded in one transaction, so a check interrupted by a restart resumes after the last bitstream
 * it recorded, and checks exactly the bitstreams that existed when it started (`upTo`). It changes
 * nothing in the repository, so it records no event.
 */

export interface IntegrityCheckParams {
  /** The folder whose bitstreams are checked; null = every bitstream in the repository. */
  folder: string | null;
  /** The largest bitstream id when the check started: later ones are not its business. */
  upTo?: number;
  /** The last bitstream id recorded (the check resumes after it). */
  after?: number;
  /** Bytes read and counts so far (output parameters). */
  bytes?: number;
  verified?: number;
  mismatched?: number;
  missing?: number;
  unreadable?: number;
}

export const INTEGRITY_CHECK_KIND = "integrity-check";

export const integrityCheckAction: ActionKind = {
  kind: INTEGRITY_CHECK_KIND,
  path: "integrity-checks",
  title: "Re-read every bitstream under a folder and check it against its recorded SHA-256",
  run: runIntegrityCheck,
};

interface BitstreamToCheck {
  id: number;
  idx: number;
  generation: number;
  co_ref: string;
  filename: string;
  size: number;
  content_sha256: string;
  recorded_sha256: string | null;
}

/**
 * Ids of the live bitstreams in scope with id in (after, upTo], in order: read once per run, so each
 * batch costs its own bitstreams, not another walk of the folder's subtree.
 */
function bitstreamIdsInScope(db: Db, p: IntegrityCheckParams): number[] {
  const scope =
    p.folder === null
      ? "SELECT ref FROM entities WHERE type = 'CO' AND deleted = 0"
      : `WITH RECURSIVE sub(ref) AS (
           SELECT ref FROM entities WHERE parent_ref = @folder AND deleted = 0
           UNION
           SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.deleted = 0
         ) SELECT sub.ref FROM sub JOIN entities e ON e.ref = sub.ref WHERE e.type = 'CO'`;
  return (
    db
      .prepare(
        `SELECT b.id FROM generations g JOIN bitstreams b ON b.generation_id = g.id
         WHERE g.co_ref IN (${scope}) AND b.id > @after AND b.id <= @upTo ORDER BY b.id`,
      )
      .all({ folder: p.folder, after: p.after ?? 0, upTo: p.upTo ?? 0 }) as { id: number }[]
  ).map((r) => r.id);
}

/** The bitstreams of a batch that still exist in a live content object (deleted ones are skipped). */
function bitstreamsByIds(db: Db, ids: readonly number[]): BitstreamToCheck[] {
  return db
    .prepare(
      `SELECT b.id, b.idx, g.idx AS generation, g.co_ref, b.filename, b.size, b.content_sha256,
         (SELECT f.value FROM fixities f WHERE f.bitstream_id = b.id
            AND upper(replace(f.algorithm, '-', '')) = 'SHA256') AS recorded_sha256
       FROM bitstreams b JOIN generations g ON g.id = b.generation_id
       JOIN entities e ON e.ref = g.co_ref AND e.deleted = 0
       WHERE b.id IN (SELECT value FROM json_each(?)) ORDER BY b.id`,
    )
    .all(JSON.stringify(ids)) as BitstreamToCheck[];
}

/** The SHA-256 and length of a stored blob as read now; `missing` when the store has no such file. */
async function hashBlob(
  content: ContentStore,
  sha256: string,
): Promise<{ sha256: string; bytes: number } | { missing: true } | { error: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    for await (const chunk of content.read(sha256)) {
      const buf = chunk as Buffer;
      bytes += buf.length;
      hash.update(buf);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { missing: true };
    return { error: code ?? "read error" };
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** Each item's message begins so; the bitstream's integrity-check history finds its checks by it. */
function describe(b: BitstreamToCheck): string {
  return `${integrityItemPrefix(b.idx, b.generation, b.co_ref)} ("${b.filename}")`;
}

async function runIntegrityCheck(run: ActionRun): Promise<ActionOutcome | undefined> {
  const { db, content } = run.svc;
  const id = run.action.id;
  let params = { ...(run.params as IntegrityCheckParams) };

  if (params.upTo === undefined) {
    if (params.folder !== null && !findEntity(db, params.folder)) {
      return {
        status: "FAILED",
        message: `Folder ${params.folder} no longer exists (deleted after the check was asked for); nothing was checked`,
      };
    }
    const { n } = db.prepare("SELECT coalesce(max(id), 0) AS n FROM bitstreams").get() as { n: number };
    params = {
      ...params,
      upTo: n,
      after: 0,
      bytes: 0,
      verified: 0,
      mismatched: 0,
      missing: 0,
      unreadable: 0,
    };
    const now = run.now();
    const total = bitstreamIdsInScope(db, params).length;
    db.transaction(() => {
      setActionParams(db, id, params, now);
      setActionTotal(db, id, total, now);
    })();
  }

  for (const slice of batches(bitstreamIdsInScope(db, params), actionBatchSize())) {
    const batch = bitstreamsByIds(db, slice);
    const items: Omit<ActionItemRow, "seq">[] = [];
    const next = { ...params };
    for (const b of batch) {
      const expected = (b.recorded_sha256 ?? b.content_sha256).toLowerCase();
      const read = await hashBlob(content, b.content_sha256);
      if ("missing" in read) {
        next.missing = (next.missing ?? 0) + 1;
        items.push({
          entity_ref: b.co_ref,
          outcome: "failed",
          message: `${describe(b)}: file missing: the content store has no file for SHA-256 ${b.content_sha256}`,
        });
      } else if ("error" in read) {
        next.unreadable = (next.unreadable ?? 0) + 1;
        items.push({
          entity_ref: b.co_ref,
          outcome: "failed",
          message: `${describe(b)}: file unreadable (${read.error})`,
        });
      } else {
        next.bytes = (next.bytes ?? 0) + read.bytes;
        if (read.sha256 === expected) {
          next.verified = (next.verified ?? 0) + 1;
          items.push({
            entity_ref: b.co_ref,
            outcome: "done",
            message: `${describe(b)}: SHA-256 verified (${read.bytes} bytes)`,
          });
        } else {
          next.mismatched = (next.mismatched ?? 0) + 1;
          items.push({
            entity_ref: b.co_ref,
            outcome: "failed",
            message: `${describe(b)}: fixity mismatch: SHA-256 recorded at ingest is ${expected}, the stored file now hashes to ${read.sha256} (${read.bytes} bytes${read.bytes !== b.size ? `, ${b.size} expected` : ""})`,
          });
        }
      }
    }
    next.after = slice[slice.length - 1] as number;
    // Stopped or terminated while this batch was read: record nothing of it (a resumed check reads it again).
    await run.pause();
    const now = run.now();
    db.transaction(() => {
      let seq = nextItemSeq(db, id);
      recordItems(
        db,
        id,
        items.map((it) => ({ ...it, seq: seq++ })),
        now,
      );
      setActionParams(db, id, next, now);
    })();
    params = next;
    await run.pause();
  }
  return { message: summary(db, id, params) };
}

function summary(db: Db, id: string, p: IntegrityCheckParams): string {
  const where = p.folder === null ? "in the repository" : `under folder ${folderLabel(db, p.folder)}`;
  const checked = (p.verified ?? 0) + (p.mismatched ?? 0) + (p.missing ?? 0) + (p.unreadable ?? 0);
  if (checked === 0) return `No bitstreams ${where}; nothing to check`;
  const problems = [
    p.mismatched ? `${p.mismatched} fixity mismatch${p.mismatched > 1 ? "es" : ""}` : "",
    p.missing ? `${p.missing} file${p.missing > 1 ? "s" : ""} missing` : "",
    p.unreadable ? `${p.unreadable} unreadable` : "",
  ].filter(Boolean);
  const failed = checked - (p.verified ?? 0);
  const base = `Checked ${checked} bitstream${checked > 1 ? "s" : ""} ${where} (${p.bytes ?? 0} bytes read): ${p.verified ?? 0} verified`;
  if (failed === 0) return base;
  const failures = getAction(db, id)?.failed ?? failed;
  return `${base}, ${failures} failed (${problems.join(", ")}); the failed items name each bitstream`;
}

function folderLabel(db: Db, ref: string): string {
  const e = findEntity(db, ref);
  return e ? `"${e.title}" (${ref})` : ref;
}
