import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { migrate } from "./migrations/index.js";

export type Db = Database.Database;

/** Opens (creating if needed) the service database in `dataDir`, or an in-memory one for `null`. */
export function openDatabase(dataDir: string | null): Db {
  let db: Db;
  if (dataDir === null) {
    db = new Database(":memory:");
  } else {
    mkdirSync(dataDir, { recursive: true });
    db = new Database(join(dataDir, "repository.sqlite"));
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

/** Number of entities (including deleted ones): seeding happens only when this is 0. */
export function entityCount(db: Db): number {
  return (db.prepare("SELECT count(*) AS n FROM entities").get() as { n: number }).n;
}
