import { createHash } from "node:crypto";
import type { RunningRepository } from "../../repository/server.js";
import type { Db } from "../../repository/store/db.js";
import { untilWritten } from "../helpers/store-writes.js";

/**
 * A digest of everything the repository holds that a write could change: entities, metadata, identifiers,
 * links, representations, generations and files, events, retention, actions (jobs) and their items... Tables
 * that change on their own or by reads are left out: access tokens and sign-in challenges, users (last
 * login), the preview cache, the search index's shadow tables, the schema's bookkeeping, and technical
 * properties (characterisation, derived from a file's bytes, is done on first read for files stored without it).
 */

const SKIP = /^(sqlite_|entity_fts|tokens$|challenges$|users$|previews$|meta$|generation_properties$)/;

function storeTables(db: Db): string[] {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  return rows.map((r) => r.name).filter((n) => !SKIP.test(n));
}

/** Columns a read may set: a generation is marked characterised when it is first read (see SKIP). */
const READ_SET_COLUMNS: Record<string, readonly string[]> = { generations: ["characterised"] };

function columnsOf(db: Db, table: string): string {
  const skip = READ_SET_COLUMNS[table];
  if (!skip) return "*";
  const cols = db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[];
  return cols
    .map((c) => c.name)
    .filter((n) => !skip.includes(n))
    .map((n) => `"${n}"`)
    .join(", ");
}

/**
 * One sha256 per table (so a difference names the table), rows in a stable order. Taken again only once the
 * store was written (test/helpers/store-writes.ts): reading and hashing the demo store's ~5,000 rows costs
 * ~50 ms, and the property tests take one before and after each of ~1,000 calls, of which only a few dozen
 * write anything.
 */
export function storeDigest(repo: RunningRepository): Readonly<Record<string, string>> {
  return digestUntilWritten(repo.svc.db);
}

const digestUntilWritten = untilWritten((db) => Object.freeze(digestOfEveryRow(db)));

function digestOfEveryRow(db: Db): Record<string, string> {
  const out: Record<string, string> = {};
  for (const table of storeTables(db)) {
    const rows = db.prepare(`SELECT ${columnsOf(db, table)} FROM "${table}"`).all() as Record<
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
export function changedTables(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((n) => before[n] !== after[n]).sort();
}

/** Whether any stored file (bitstream row or content blob) has this SHA-256. */
export function storeHoldsContent(repo: RunningRepository, sha256: string): boolean {
  const row = repo.svc.db.prepare("SELECT 1 FROM bitstreams WHERE content_sha256 = ? LIMIT 1").get(sha256);
  const fix = repo.svc.db.prepare("SELECT 1 FROM fixities WHERE lower(value) = lower(?) LIMIT 1").get(sha256);
  return Boolean(row) || Boolean(fix) || repo.svc.content.has(sha256);
}

/**
 * Waits until the service runs no action (jobs started by a call have ended), at most `ms`. The timer goes
 * when the service is idle first: taken around each of ~1,000 calls, it would otherwise leave as many pending
 * 15 s timers in a worker that runs other files after this one.
 */
export async function settle(repo: RunningRepository, ms = 15_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    repo.svc.actions.idle(),
    new Promise((r) => {
      timer = setTimeout(r, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
