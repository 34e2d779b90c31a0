import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { homedir } from "node:os";
import { basename, join, sep } from "node:path";
import { Script } from "node:vm";

/**
 * V8's code cache for the bundled CLI (dist/bundle/, scripts/bundle-cli.mjs): a start compiles ~4 MB of
 * JavaScript, and most of a cold start is that and the module loading around it. The bytecode V8 made in one
 * start is kept per user and handed back to V8 in the next, as Node 22's module.enableCompileCache() does (used
 * where it exists). Node 20 has no such switch, so the CommonJS loader's compile step is wrapped for the files
 * under one folder only, as v8-compile-cache does.
 *
 * Only ever an optimisation: any failure to read or write the cache is ignored, V8 itself refuses data made for
 * other source text, another V8 or other flags (then the file is written anew), and NODE_DISABLE_COMPILE_CACHE
 * (Node 22's own switch) turns it off.
 */

export interface CodeCacheStats {
  /** Files compiled from cached bytecode V8 accepted. */
  accepted: number;
  /** Files compiled from source (no cache yet, or V8 refused it); their cache is written at exit. */
  compiled: number;
}

const stats: CodeCacheStats = { accepted: 0, compiled: 0 };

/** What the cache did in this process so far (for tests and benchmarks). */
export function codeCacheStats(): Readonly<CodeCacheStats> {
  return stats;
}

/**
 * The per-user cache folder, one per Node version and architecture (V8 refuses another's data anyway): under
 * XDG_CACHE_HOME, else the platform's own (%LOCALAPPDATA% on Windows, ~/Library/Caches on macOS, ~/.cache).
 * Never a shared temporary folder: bytecode another user could write is code.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const base =
    env.XDG_CACHE_HOME ||
    (platform === "win32" && env.LOCALAPPDATA) ||
    (platform === "darwin" ? join(homedir(), "Library", "Caches") : join(homedir(), ".cache"));
  return join(base, "preservation-mcp", `v8-${process.version}-${process.arch}`);
}

type Compile = (this: NodeJS.Module, content: string, filename: string) => unknown;
interface ModuleInternals {
  prototype: { _compile: Compile; require(id: string): unknown };
  wrap(script: string): string;
  _resolveFilename(request: string, parent: NodeJS.Module, isMain: boolean, options?: unknown): string;
  _cache: Record<string, NodeJS.Module>;
  _extensions: Record<string, unknown>;
  _resolveLookupPaths(request: string, parent: NodeJS.Module): string[] | null;
  enableCompileCache?: (dir?: string) => unknown;
}

/** Serves the CommonJS files under `folder` (the bundle) from V8's code cache in `cacheDir`. */
export function enableCodeCache(folder: string, cacheDir: string = codeCacheDir()): void {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const M = Module as unknown as ModuleInternals;
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
  } catch {
    return;
  }
  if (M.enableCompileCache) {
    M.enableCompileCache(cacheDir);
    return;
  }
  const prefix = folder.endsWith(sep) ? folder : folder + sep;
  const pending: { script: Script; file: string }[] = [];
  const compile = M.prototype._compile;
  M.prototype._compile = function (this: NodeJS.Module, content: string, filename: string) {
    // Files outside the bundle are left to Node: libsql's own JavaScript (~25 KB in node_modules) served from this
    // cache measured ~1 ms slower per start (reading and checking seven small cache files costs more than
    // compiling them lazily), and its names, unlike the chunks', carry no content hash to key the cache by.
    if (!filename.startsWith(prefix)) return compile.call(this, content, filename);
    // One cache per file path: V8 keeps the path it compiled a file under in the bytecode, and stack traces
    // must name the file that runs, not an earlier copy of the same bundle elsewhere. The path suffices because
    // each chunk's name carries a hash of its content: V8 checks cached data against a source's length only.
    const where = createHash("sha256").update(filename).digest("hex").slice(0, 16);
    const file = join(cacheDir, `${basename(filename)}-${where}.cache`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {}
    // The wrapper is the one Node's loader uses; a first line `#!...` is kept as a comment so lines stay put.
    const source = M.wrap(content.startsWith("#!") ? `//${content}` : content);
    const script = new Script(source, { filename, ...(cachedData ? { cachedData } : {}) });
    if (cachedData && !script.cachedDataRejected) stats.accepted++;
    else {
      stats.compiled++;
      pending.push({ script, file });
    }
    const run = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = Object.assign((id: string) => this.require(id), {
      resolve: Object.assign(
        (request: string, options?: unknown) => M._resolveFilename(request, this, false, options),
        { paths: (request: string) => M._resolveLookupPaths(request, this) },
      ),
      main: process.mainModule,
      cache: M._cache,
      extensions: M._extensions,
    });
    return run.call(this.exports, this.exports, require, this, filename, this.path);
  };
  // Written when the process ends, so the bytecode includes the functions this start ran (V8 compiles
  // functions lazily, on first call); only for files that had no usable cache. Written aside and renamed, so
  // two servers ending at once never leave a torn file for a third to read.
  process.once("exit", () => {
    for (const { script, file } of pending) {
      const aside = `${file}.${process.pid}`;
      try {
        writeFileSync(aside, script.createCachedData(), { mode: 0o600 });
        renameSync(aside, file);
      } catch {}
    }
  });
}
