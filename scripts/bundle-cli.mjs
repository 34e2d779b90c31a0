#!/usr/bin/env node
/**
 * Bundles the built CLI (dist/src/fast-start.js -> cli.js, from `npm run build`) into a few CommonJS files in
 * dist/bundle/, entry dist/bundle/preservation-mcp.cjs, for a faster start: Node 20 loads an ES module graph file
 * by file (open, stat, resolve, compile, link ~600 modules), and that, not our code, is most of a cold start; the
 * bundle's files then compile from V8's code cache (src/cli/code-cache.ts). Measured with bench/cold-start.mjs
 * --bundle on a loaded 2-core machine: the server's CPU until its first tool result drops from ~930 ms to ~300 ms
 * (~430 ms with the bundle alone), its wall time from ~930 ms to ~335 ms.
 *
 *   node scripts/bundle-cli.mjs [--out DIR]    default: dist/bundle
 *
 * The dynamic imports stay separate chunks, so what cli.ts and cli/main.ts load lazily still loads lazily (the
 * repository command, the tour's MCP client, the embedded service, the demo seeders). Packages found at run time
 * by require.resolve stay outside and load from node_modules as before: libsql (a native binary per platform) and
 * unpdf (loaded by path into a worker thread). The output sits two levels under the package (like
 * dist/src/cli.js), so `--version` finds package.json where it did.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Packages that must stay in node_modules (see above). */
export const EXTERNAL = [/^node:/, /^libsql($|\/)/, /^unpdf($|\/)/];

/**
 * Bundles `entry` (default dist/src/fast-start.js) into `outDir`; returns the bundled CLI's path.
 * rolldown is the bundler vitest already brings (through vite); it is imported here only.
 */
export async function bundleCli({
  outDir = join(ROOT, "dist", "bundle"),
  entry = join(ROOT, "dist", "src", "fast-start.js"),
} = {}) {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build first`);
  // Chunk names carry a hash of their content: the last build's chunks would otherwise pile up beside these.
  if (existsSync(outDir)) {
    for (const f of readdirSync(outDir)) if (f.endsWith(".cjs")) rmSync(join(outDir, f));
  }
  const { build } = await import("rolldown");
  await build({
    input: { "preservation-mcp": entry },
    platform: "node",
    external: EXTERNAL,
    // Readable output with the names of functions and classes as they are: stack traces in the log still say
    // where a bug is.
    // CommonJS, because Node 20 can hand V8 a code cache only for what its CommonJS loader compiles
    // (src/cli/code-cache.ts); strict, as the ES modules it is made of are.
    // ASCII only (non-ASCII characters in code escaped, documentation comments left out): a file with a single
    // other character is held by V8 as a two-byte string, twice the memory, decoded and scanned more slowly at
    // every start (~15 ms of main-thread CPU of a start, measured side by side).
    output: {
      dir: outDir,
      format: "cjs",
      strict: true,
      charset: "ascii",
      comments: { jsdoc: false, legal: true, annotation: true },
      minify: false,
      entryFileNames: "[name].cjs",
      chunkFileNames: "[name]-[hash].cjs",
    },
    logLevel: "warn",
  });
  for (const f of readdirSync(outDir)) if (f.endsWith(".cjs")) asciiLegalComments(join(outDir, f));
  return join(outDir, "preservation-mcp.cjs");
}

/**
 * Licence notices (`/*! ... *\/`, kept as they are) are the only place charset "ascii" leaves other characters
 * (a name such as Wärting): written as \u escapes there, the notice still names them.
 */
function asciiLegalComments(file) {
  const text = readFileSync(file, "utf8");
  if (!/[\u0080-\uffff]/.test(text)) return;
  const escaped = text.replace(/\/\*![\s\S]*?\*\//g, (comment) =>
    comment.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
  );
  writeFileSync(file, escaped);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const cli = await bundleCli(values.out ? { outDir: resolve(values.out) } : {});
  process.stdout.write(`bundled ${cli}\n`);
}
