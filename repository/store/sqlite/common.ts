import type { Database, Transaction } from "./types.js";

/**
 * Refuses a value SQLite cannot store (as better-sqlite3 does) before it reaches the binding: libsql
 * aborts the whole process on a boolean instead of throwing.
 */
export function checkBindable(value: unknown): void {
  if (
    value === null ||
    value === undefined ||
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "bigint" ||
    value instanceof Uint8Array
  )
    return;
  throw new TypeError(
    `SQLite can bind only numbers, strings, bigints, buffers and null, not ${typeof value}: convert it first (booleans as 1/0).`,
  );
}

/** True for one `{name: value}` object of named parameters (not a buffer, not an array). */
export function isNamed(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

/** better-sqlite3's call shapes (`run(a, b)`, `run([a, b])`, `run({a})`) as one array or one object. */
export function normalizeParams(params: unknown[]): unknown[] | Record<string, unknown> {
  if (params.length === 1 && isNamed(params[0])) {
    const named = params[0];
    for (const key in named) checkBindable(named[key]);
    return named;
  }
  const flat = params.flat();
  for (const v of flat) checkBindable(v);
  return flat;
}

/**
 * better-sqlite3's transaction semantics on any binding: BEGIN [mode] … COMMIT, ROLLBACK on a throw, and a
 * savepoint when already inside a transaction (so helpers that open their own can be called from another's).
 */
export function makeTransaction<F extends (...args: never[]) => unknown>(
  db: Database,
  fn: F,
): Transaction<F> {
  const wrap =
    (mode: string) =>
    (...args: Parameters<F>): ReturnType<F> => {
      if (db.inTransaction) {
        db.exec('SAVEPOINT "nested"');
        try {
          const result = fn(...args) as ReturnType<F>;
          db.exec('RELEASE "nested"');
          return result;
        } catch (err) {
          db.exec('ROLLBACK TO "nested"');
          db.exec('RELEASE "nested"');
          throw err;
        }
      }
      db.exec(`BEGIN ${mode}`);
      try {
        const result = fn(...args) as ReturnType<F>;
        db.exec("COMMIT");
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw err;
      }
    };
  const tx = wrap("DEFERRED") as Transaction<F>;
  tx.deferred = wrap("DEFERRED");
  tx.immediate = wrap("IMMEDIATE");
  tx.exclusive = wrap("EXCLUSIVE");
  return tx;
}
