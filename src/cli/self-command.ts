import { existsSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * How a person runs this program *here*. A message that says `preservation-mcp tour` is wrong in a checkout,
 * where nothing put `preservation-mcp` on PATH; so every hint that names a command asks this module for it.
 */

/**
 * A URL in the folder one level below the package (dist/src/ or dist/bundle/), which the paths below are relative
 * to: this file sits in dist/src/cli/ as built, but in a chunk directly in dist/bundle/ once bundled.
 */
function distFolder(): URL {
  const here = import.meta.url;
  return here.endsWith(".cjs") ? new URL(here) : new URL("../", here);
}

/** The bundled CLI file (dist/bundle/preservation-mcp.cjs), from dist/src/cli/*.js or from a chunk beside it. */
export function bundlePath(): string {
  return fileURLToPath(new URL("../bundle/preservation-mcp.cjs", distFolder()));
}

/** The package's root folder (two levels above dist/src or dist/bundle, whichever this runs from). */
export function packageRoot(): string {
  return fileURLToPath(new URL("../../", distFolder()));
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** True when `preservation-mcp` on PATH is this very program (a global or linked install). */
function onPath(env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    for (const name of process.platform === "win32" ? ["preservation-mcp.cmd"] : ["preservation-mcp"]) {
      const candidate = join(dir, name);
      if (existsSync(candidate) && sameFile(candidate, bundlePath())) return true;
    }
  }
  return false;
}

/** True when the working folder is this package's own checkout (so `npm start` and `npm run tour` work). */
function inCheckout(cwd: string): boolean {
  try {
    if (resolve(cwd) !== resolve(packageRoot())) return false;
    return JSON.parse(readFileSync(join(cwd, "package.json"), "utf8")).name === "preservation-mcp";
  } catch {
    return false;
  }
}

/**
 * The command line that runs `preservation-mcp <args>` from where this process was started: the name on PATH
 * when that is this program; in the checkout, the npm script for the two that have one (`tour`, `--http`);
 * else `node <path to the bundle>`, relative to the working folder when it lies below it.
 */
export function commandHere(args: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  if (onPath(env)) return `preservation-mcp ${args}`.trim();
  if (inCheckout(cwd)) {
    if (args === "tour") return "npm run tour";
    if (args === "--http") return "npm start";
  }
  const rel = relative(cwd, bundlePath());
  const path = rel && !rel.startsWith("..") ? rel : bundlePath();
  return `node ${/\s/.test(path) ? JSON.stringify(path) : path} ${args}`.trim();
}
