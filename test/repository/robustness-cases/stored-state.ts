import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ServiceContext } from "../../../repository/context.js";
import type { Db } from "../../../repository/store/db.js";
import { untilWritten } from "../../helpers/store-writes.js";
import { comparedColumns, READ_SET_TABLES, storeHash } from "../writes/store-hash.js";

/**
 * Everything stored that no junk may change: every table but tokens and challenges (logging in makes
 * them), the users' credentials and roles, and the files in the content store (an upload refused
 * half-way must leave no blob, nor a part-file behind).
 */
export function storedState(svc: ServiceContext): {
  tables: Record<string, string>;
  users: string;
  content: string[];
} {
  const { db, dataDir } = svc;
  // One hash per table (what storeHash hashes, table by table), so a failure names the table.
  const names = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT LIKE 'entity_fts_%' AND name NOT IN ('tokens', 'users', 'challenges') ORDER BY name`,
    )
    .pluck()
    .all() as string[];
  const tables: Record<string, string> = { all: storeHash(db) };
  for (const name of names.filter((n) => !READ_SET_TABLES.includes(n))) {
    const rows = db.prepare(`SELECT ${comparedColumns(db, name)} FROM "${name}" ORDER BY rowid`).all();
    tables[name] = createHash("sha256").update(JSON.stringify(rows)).digest("hex");
  }
  const users = JSON.stringify(
    db.prepare("SELECT username, password_hash, roles, enabled FROM users ORDER BY username").all(),
  );
  // Every file of the data folder but the database's own: blobs, and what uploads leave (content
  // parts, ingest packages). The uploads' working folders may appear, empty; a file left in one shows.
  const root = dataDir;
  const content = readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => !/^repository\.sqlite|^content\/\.incoming$|^packages$/.test(f))
    .sort()
    .map((f) => {
      const st = statSync(join(root, f));
      return `${f}:${st.isDirectory() ? "dir" : st.size}`;
    });
  return { tables, users, content };
}

/**
 * A cheap fingerprint of what a write changes, taken around every case so that a case the service
 * lets through is named at once: the small write-side tables whole, and of the large tables the row
 * counts and the newest event (every change to an entity records one). Read again only once the store
 * was written (test/helpers/store-writes.ts): most junk writes nothing, and reading the tables twice per
 * case was a third of this suite's time.
 */
export const writeState: (db: Db) => string = untilWritten(readWriteState);

function readWriteState(db: Db): string {
  const whole = [
    "actions",
    "action_items",
    "previews",
    "retention_policies",
    "retention_assignments",
    "retention_events",
    "metadata_groups",
    "metadata_forms",
    "workflow_definitions",
    "workflow_contexts",
    "workflow_starts",
    "ingest_configs",
  ].map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all());
  const counts = db
    .prepare(
      `SELECT (SELECT count(*) FROM entities WHERE deleted = 0), (SELECT max(modified) FROM entities),
              (SELECT count(*) FROM metadata_fragments), (SELECT count(*) FROM identifiers),
              (SELECT count(*) FROM links), (SELECT count(*) FROM representations),
              (SELECT count(*) FROM generations), (SELECT max(id) FROM events)`,
    )
    .raw()
    .get();
  return JSON.stringify([whole, counts]);
}
