import { loadLibsql, openLibsql } from "./libsql.js";
import type { Database, OpenOptions } from "./types.js";

/**
 * The SQLite binding is libsql (decision and figures: README, "Figures"): it ships prebuilt binaries as npm
 * packages (`@libsql/<platform>`, chosen by npm for the machine), so installing compiles nothing and
 * downloads nothing from outside the registry. Windows on arm64 has no binary yet.
 */
export function checkSqliteBinding(): void {
  try {
    loadLibsql();
  } catch (err) {
    throw new Error(
      `The SQLite binding (libsql) has no prebuilt binary for ${process.platform}-${process.arch} here ` +
        `(${err instanceof Error ? err.message.split("\n")[0] : String(err)}). Only the embedded demo ` +
        "repository needs it: set PRESERVATION_URL to a repository service, or run a Node.js for x64 (Windows on " +
        "Arm runs it emulated) or, on Linux and macOS, arm64, and reinstall.",
    );
  }
}

/** Opens an SQLite file (or ":memory:") with nothing set or migrated. */
export function openSqlite(path: string, options: OpenOptions = {}): Database {
  checkSqliteBinding();
  return openLibsql(path, options);
}
