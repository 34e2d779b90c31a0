import type { Db, Statement } from "../../repository/store/db.js";

/**
 * A mark that moves whenever anything is written to a store: `total_changes()` counts every row the connection
 * inserted, updated or deleted (in triggers too, and also when rolled back), `data_version` moves when another
 * connection commits to the file, and `schema_version` when a table is made or changed. The service writes
 * through its one connection (repository/store/db.ts). Reading it takes microseconds.
 */
export function storeWriteMark(db: Db): string {
  let statement = markStatements.get(db);
  if (!statement) {
    statement = db
      .prepare(
        `SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version) || ':' ||
                (SELECT schema_version FROM pragma_schema_version)`,
      )
      .pluck();
    markStatements.set(db, statement);
  }
  return statement.get() as string;
}

/** One prepared statement per store: taken around each of thousands of requests (~10 µs, three were ~30). */
const markStatements = new WeakMap<Db, Statement>();

/**
 * `read(db)` memoised until the store is written: the same answer while storeWriteMark stands still. For
 * fingerprints of a whole store taken before and after each refused request, most of which write nothing:
 * reading every row each time was the bulk of those tests' time.
 */
export function untilWritten<T>(read: (db: Db) => T): (db: Db) => T {
  const last = new WeakMap<Db, { mark: string; value: T }>();
  return (db) => {
    const mark = storeWriteMark(db);
    const known = last.get(db);
    if (known?.mark === mark) return known.value;
    const value = read(db);
    last.set(db, { mark, value });
    return value;
  };
}
