import { recordConfigEvent } from "../config-events/write.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import { edition, limitOf } from "./read.js";

/**
 * Enforcing the storage quota (the edition's STORAGE limit). Bytes are counted as the content store
 * counts them, content-addressed: a write costs the sizes of the distinct blobs it adds that no bitstream
 * and no preview names yet. A file the repository already holds costs nothing, however many times it is
 * sent; a blob on disk that nothing names (an upload refused, a crash) is not counted either way.
 *
 * The quota is inclusive: a write that brings the bytes used exactly to the quota is accepted, one byte
 * more is refused. Callers check twice: before any byte lands in the content store (so a refusal leaves
 * nothing behind), and again inside the transaction that records the write (so two writes that each fit
 * on their own cannot pass the quota together).
 */

export interface BlobCost {
  sha256: string;
  size: number;
}

export interface QuotaCheck {
  edition: string;
  /** null: no storage limit (then nothing else was measured). */
  quota: number | null;
  used: number;
  /** Bytes the write would add. */
  needed: number;
  /** Bytes left under the quota now (0 when already over it). */
  left: number;
  fits: boolean;
}

/** The quota, or null when the edition has none (most stores: nothing to measure, nothing to refuse). */
export function storageQuota(db: Db): number | null {
  return limitOf(db, "STORAGE");
}

/**
 * The bytes the quota compares: `storedBytes(db).usedBytes` (read.ts, the same rule), one row kept by
 * triggers as bitstreams and previews change (migration 13), so a checked write costs a lookup, not a scan.
 */
export function usedBytes(db: Db): number {
  return (prepared(db, "SELECT bytes FROM storage_totals WHERE id = 1").get() as { bytes: number }).bytes;
}

/** Bytes the blobs would add to the store's count: each distinct blob once, only those nothing names yet. */
export function newBytesOf(db: Db, blobs: readonly BlobCost[]): number {
  if (blobs.length === 0) return 0;
  const distinct = new Map<string, number>();
  for (const b of blobs) distinct.set(b.sha256, Math.max(b.size, distinct.get(b.sha256) ?? 0));
  const row = prepared(
    db,
    `SELECT COALESCE(SUM(json_extract(value, '$[1]')), 0) AS bytes FROM json_each(?)
      WHERE json_extract(value, '$[0]') NOT IN (SELECT content_sha256 FROM blob_usage)`,
  ).get(JSON.stringify([...distinct])) as { bytes: number };
  return row.bytes;
}

/**
 * Whether `needed` more bytes fit under the quota. `needed` is a number (already measured, or an upper
 * bound) or the blobs themselves (measured here, content-addressed).
 */
export function checkQuota(db: Db, needed: number | readonly BlobCost[]): QuotaCheck {
  const quota = storageQuota(db);
  const name = edition(db);
  if (quota === null) return { edition: name, quota, used: 0, needed: 0, left: 0, fits: true };
  const used = usedBytes(db);
  const bytes = typeof needed === "number" ? needed : newBytesOf(db, needed);
  const left = Math.max(0, quota - used);
  return { edition: name, quota, used, needed: bytes, left, fits: bytes === 0 || used + bytes <= quota };
}

const n = (x: number) => x.toLocaleString("en");

/**
 * The refusal's message: which quota, bytes used, needed and left, what was (not) done, and the way out.
 * `what` names the write ("the package \"x.zip\""), `outcome` says nothing changed ("nothing was ingested").
 */
export function quotaMessage(check: QuotaCheck, what: string, outcome: string): string {
  return (
    `Storage quota exceeded: ${what} needs ${n(check.needed)} bytes of new storage, but the repository ` +
    `already uses ${n(check.used)} bytes of its ${n(check.quota ?? 0)}-byte quota (${check.edition} edition), ` +
    `leaving ${n(check.left)} bytes; ${outcome}. Free space (delete what is no longer needed and empty the ` +
    `recycle bin: deleted entities keep their bytes until they are deleted for good) or have an administrator ` +
    `raise the quota (PUT /api/storage/quota), then try again. Files the repository already holds cost nothing`
  );
}

/** A write refused for the quota: the routes answer it with their own error shape. */
export class QuotaExceeded extends Error {
  constructor(
    readonly check: QuotaCheck,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sets the storage quota (null: no limit), recording a config event (STORAGE, UPDATE, subject "quota") in
 * the same transaction; a value equal to the current one changes and records nothing. A quota below the
 * bytes already used is allowed: nothing is removed, and writes that would add bytes are refused until
 * space is freed. Returns whether anything changed.
 */
export function setStorageQuota(db: Db, quota: number | null, username: string, at: string): boolean {
  return db.transaction(() => {
    const before = storageQuota(db);
    if (before === quota) return false;
    prepared(db, "UPDATE entitlement_limits SET limit_value = ? WHERE feature = 'STORAGE'").run(quota);
    const show = (q: number | null) => (q === null ? "no limit" : `${n(q)} bytes`);
    recordConfigEvent(db, {
      username,
      at,
      category: "STORAGE",
      commandType: "UPDATE",
      subject: "quota",
      summary: `Changed the storage quota from ${show(before)} to ${show(quota)}`,
      details: { before: { quotaBytes: before }, after: { quotaBytes: quota } },
    });
    return true;
  })();
}
