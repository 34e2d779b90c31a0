import type { Statement } from "better-sqlite3";
import type { Db } from "../store/db.js";

/**
 * A view of the database whose `prepare` hands out one statement per SQL text, for the duration of
 * one ingest's checks and commit. The store's write helpers prepare their statements on every call;
 * each prepared statement holds native memory that V8 does not see and does not free until it
 * collects the wrapper, which it seldom does inside one long synchronous transaction (measured: some
 * 30,000 prepares on this schema cost ~95 MiB of resident memory). An ingest of 10,000 files calls
 * those helpers ~150,000 times, so it reuses statements instead, keeping within its memory budget
 * while writing exactly the rows the helpers write. Everything else passes through to `db`.
 */
export function withStatementCache(db: Db): Db {
  const cache = new Map<string, Statement>();
  const prepare = (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return prepare;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
