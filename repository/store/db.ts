import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "./migrations/index.js";
import { openSqlite } from "./sqlite/open.js";
import type { Database, OpenOptions } from "./sqlite/types.js";

export type Db = Database;
export type { OpenOptions, Row, RunResult, SqlValue, Statement } from "./sqlite/types.js";

/** Opens (creating if needed) the service database in `dataDir`, or an in-memory one for `null`. */
export function openDatabase(dataDir: string | null): Db {
  let db: Db;
  if (dataDir === null) {
    db = openSqlite(":memory:");
  } else {
    mkdirSync(dataDir, { recursive: true });
    db = openSqlite(join(dataDir, "repository.sqlite"));
    // First, before anything that takes a lock: a second process opening a new data directory while the
    // first creates and seeds it waits (up to 2 minutes, as the migration and the seed do) instead of failing
    // with "database is locked" on the very next pragma.
    db.pragma("busy_timeout = 120000");
    // WAL: readers never block the writer, and a crash loses at most the last transaction.
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
  }
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  try {
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Opens an existing database file as it is (no pragmas, no migrations): for tools and tests that inspect one. */
export function openDatabaseFile(path: string, options: OpenOptions = {}): Db {
  return openSqlite(path, options);
}

/** Number of entities (including deleted ones): seeding happens only when this is 0. */
export function entityCount(db: Db): number {
  return (db.prepare("SELECT count(*) AS n FROM entities").get() as { n: number }).n;
}
