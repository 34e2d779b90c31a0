/**
 * The SQLite API the repository service uses: the subset of better-sqlite3's that the code calls, so any
 * binding that provides it (see `open.ts`) can sit behind `store/db.ts` with the rest of the code unchanged.
 * Rows are plain objects holding only the selected columns: a binding's own extras (libsql's `_metadata`)
 * are removed by its adapter, so nothing but data can reach an answer or a document.
 */

/** What SQLite stores and returns: TEXT, INTEGER/REAL, INTEGER beyond 2^53, BLOB, NULL. */
export type SqlValue = string | number | bigint | Buffer | null;

/** One result row: column name → value, nothing else. */
export type Row = { readonly [column: string]: SqlValue };

/** Values for `?` (positional, possibly as one array) or `@name`/`:name`/`$name` (one object). */
export type BindParameters = unknown[];

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement {
  run(...params: BindParameters): RunResult;
  /** The first row (`undefined` for none); its first column only after `pluck()`, an array after `raw()`. */
  get(...params: BindParameters): unknown;
  all(...params: BindParameters): unknown[];
  iterate(...params: BindParameters): IterableIterator<unknown>;
  pluck(on?: boolean): this;
  raw(on?: boolean): this;
}

type AnyFunction = (...args: never[]) => unknown;

/** `db.transaction(fn)`: BEGIN … COMMIT (ROLLBACK on a throw); nested calls use a savepoint. */
export interface Transaction<F extends AnyFunction> {
  (...args: Parameters<F>): ReturnType<F>;
  deferred(...args: Parameters<F>): ReturnType<F>;
  immediate(...args: Parameters<F>): ReturnType<F>;
  exclusive(...args: Parameters<F>): ReturnType<F>;
}

export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): this;
  /** `PRAGMA source`: every row, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends AnyFunction>(fn: F): Transaction<F>;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

export interface OpenOptions {
  readonly?: boolean;
}
