#!/usr/bin/env node

/**
 * The entry point of the bundled CLI (scripts/bundle-cli.mjs makes dist/bundle/preservation-mcp.cjs from it):
 * turns on V8's code cache for the bundle's files, then runs the CLI, which the bundle loads through the
 * CommonJS loader after this line, so every file of it is served from the cache.
 */

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { enableCodeCache } from "./cli/code-cache.js";

/** What the cache did in this start (the bundle's tests read it). */
export { codeCacheStats } from "./cli/code-cache.js";

enableCodeCache(dirname(fileURLToPath(import.meta.url)));
void import("./cli.js");
