import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { makeTransaction, normalizeParams } from "./common.js";
import type { Database, OpenOptions, Row, RunResult, Statement, Transaction } from "./types.js";

/** The part of libsql's own API (better-sqlite3-like, prebuilt per platform as `@libsql/<platform>`) used here. */
interface LibsqlStatement {
  run(params: unknown): RunResult;
  get(params: unknown): Record<string, unknown> | undefined;
  iterate(params: unknown): IterableIterator<Record<string, unknown>>;
  raw(on?: boolean): unknown;
}
interface LibsqlDatabase {
  prepare(sql: string): LibsqlStatement;
  exec(sql: string): unknown;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}
type LibsqlConstructor = new (path: string, options?: { readonly?: boolean }) => LibsqlDatabase;

/** Loaded on first use, so a platform without its prebuilt binary fails only if this binding is chosen. */
export function loadLibsql(): LibsqlConstructor {
  const require = createRequire(import.meta.url);
  const family = process.platform === "linux" && process.report ? libcFamily() : undefined;
  if (!family) return require("libsql") as LibsqlConstructor;
  // libsql chooses its Linux binary (glibc or musl) through @neon-rs/load, which asks for a whole diagnostic
  // report (process.report.getReport(): stacks, heap, handles, shared objects; ~15 ms, half of loading the
  // binding at each start of the embedded service) only to see whether its header names a glibc version.
  // While libsql loads, that question gets the answer the report would give, from the libc's own files.
  const report = process.report;
  const getReport = report.getReport;
  report.getReport = () =>
    ({ header: family === "glibc" ? { glibcVersionRuntime: "present" } : {} }) as object;
  try {
    return require("libsql") as LibsqlConstructor;
  } finally {
    report.getReport = getReport;
  }
}

/**
 * The C library of this Linux machine, as detect-libc (which libsql consults too) reads it from `ldd`, a
 * script shipped by each libc; undefined when that does not tell, and libsql then asks the report itself.
 */
function libcFamily(): "glibc" | "musl" | undefined {
  let ldd: string;
  try {
    ldd = readFileSync("/usr/bin/ldd", "utf8");
  } catch {
    return undefined;
  }
  if (ldd.includes("musl")) return "musl";
  if (ldd.includes("GNU C Library")) return "glibc";
  return undefined;
}

/**
 * libsql adds a `_metadata` key (query timing) to the rows `get()` returns; a copy without it keeps rows to
 * their columns, since rows are spread into answers and hashed by tests.
 */
function clean(row: Record<string, unknown>): Row {
  if (!Object.hasOwn(row, "_metadata")) return row as Row;
  const { _metadata: _dropped, ...columns } = row;
  return columns as Row;
}

class LibsqlAdapterStatement implements Statement {
  #pluck = false;
  #raw = false;
  constructor(private readonly stmt: LibsqlStatement) {}

  pluck(on = true): this {
    this.#pluck = on;
    if (on) this.raw(false);
    return this;
  }
  raw(on = true): this {
    // Kept in JS: libsql's native raw mode is not honoured by every method.
    this.#raw = on;
    if (on) this.#pluck = false;
    return this;
  }
  #shape(row: Record<string, unknown>): unknown {
    if (this.#pluck) {
      for (const key in row) return row[key];
      return undefined;
    }
    if (this.#raw) return Object.values(clean(row));
    return clean(row);
  }
  run(...params: unknown[]): RunResult {
    const r = this.stmt.run(normalizeParams(params));
    return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
  }
  get(...params: unknown[]): unknown {
    const row = this.stmt.get(normalizeParams(params));
    return row === undefined ? undefined : this.#shape(row);
  }
  all(...params: unknown[]): unknown[] {
    const out: unknown[] = [];
    for (const row of this.stmt.iterate(normalizeParams(params))) out.push(this.#shape(row));
    return out;
  }
  *iterate(...params: unknown[]): IterableIterator<unknown> {
    for (const row of this.stmt.iterate(normalizeParams(params))) yield this.#shape(row);
  }
}

class LibsqlAdapter implements Database {
  constructor(private readonly db: LibsqlDatabase) {}
  get open(): boolean {
    return this.db.open;
  }
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }
  prepare(sql: string): Statement {
    return new LibsqlAdapterStatement(this.db.prepare(sql));
  }
  exec(sql: string): this {
    this.db.exec(sql);
    return this;
  }
  pragma(source: string, options?: { simple?: boolean }): unknown {
    const stmt = this.prepare(`PRAGMA ${source}`);
    return options?.simple ? stmt.pluck().get() : stmt.all();
  }
  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F> {
    return makeTransaction(this, fn);
  }
  close(): void {
    this.db.close();
  }
}

export function openLibsql(path: string, options: OpenOptions = {}): Database {
  const Libsql = loadLibsql();
  return new LibsqlAdapter(new Libsql(path, options.readonly ? { readonly: true } : {}));
}
