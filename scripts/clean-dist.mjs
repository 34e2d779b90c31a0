#!/usr/bin/env node
/**
 * Empties dist/ at the start of `npm run build`. tsc only adds and overwrites: the compiled file of a source that
 * was removed or renamed would stay, and npm pack ships all of dist/ (package.json `files`). In Node rather than
 * `rm -rf`, so the build runs the same in any shell, Windows' too. test/build-output.test.ts checks the result.
 */
import { rmSync } from "node:fs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
