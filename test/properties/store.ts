import { createHash } from "node:crypto";
import type { RunningRepository } from "../../repository/server.js";

/**
 * A digest of everything the repository holds that a write could change: entities, metadata, identifiers,
 * links, representations, generations and files, events, retention, actions (jobs) and their items... Tables
 * that change on their own or by reads are left out: access tokens and sign-in challenges, users (last
 * login), the preview cache, the search index's shadow tables, the schema's bookkeeping, and technical
 * properties (characterisation, derived from a file's bytes, is done on first read for files stored without it).
 */

const SKIP = /^(sqlite_|entity_fts|tokens$|challenges$|users$|previews$|meta$|generation_properties$)/;

export function storeTables(repo: RunningRepository): string[] {
  const rows = repo.svc.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all() as { name: string }[];
  return rows.map((r) => r.name).filter((n) => !SKIP.test(n));
}

/** Columns a read may set: a generation is marked characterised when it is first read (see SKIP). */
const READ_SET_COLUMNS: Record<string, readonly string[]> = { generations: ["characterised"] };

function columnsOf(repo: RunningRepository, table: string): string {
  const skip = READ_SET_COLUMNS[table];
  if (!skip) return "*";
  const cols = repo.svc.db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[];
  return cols
    .map((c) => c.name)
    .filter((n) => !skip.includes(n))
    .map((n) => `"${n}"`)
    .join(", ");
}

/** One sha256 per table (so a difference names the table), rows in a stable order. */
export function storeDigest(repo: RunningRepository): Record<string, string> {
  const out: Record<string, string> = {};
  for (const table of storeTables(repo)) {
    const rows = repo.svc.db.prepare(`SELECT ${columnsOf(repo, table)} FROM "${table}"`).all() as Record<
      string,
      unknown
    >[];
    const lines = rows.map((r) =>
      JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString("base64") : (v as unknown))),
    );
    lines.sort();
    const h = createHash("sha256");
    for (const l of lines) h.update(l).update("\n");
    out[table] = `${rows.length}:${h.digest("hex").slice(0, 16)}`;
  }
  return out;
}

/** The tables whose digest differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).sort();
}

/** Whether any stored file (bitstream row or content blob) has this SHA-256. */
export function storeHoldsContent(repo: RunningRepository, sha256: string): boolean {
  const row = repo.svc.db.prepare("SELECT 1 FROM bitstreams WHERE content_sha256 = ? LIMIT 1").get(sha256);
  const fix = repo.svc.db.prepare("SELECT 1 FROM fixities WHERE lower(value) = lower(?) LIMIT 1").get(sha256);
  return Boolean(row) || Boolean(fix) || repo.svc.content.has(sha256);
}

/** Waits until the service runs no action (jobs started by a call have ended), at most `ms`. */
export async function settle(repo: RunningRepository, ms = 15_000): Promise<void> {
  await Promise.race([repo.svc.actions.idle(), new Promise((r) => setTimeout(r, ms))]);
}
