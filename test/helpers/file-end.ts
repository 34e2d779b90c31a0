import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { RUN_FOLDER_ENV, removeTempDirs } from "./temp-dir.js";

/**
 * Runs before each test file of both projects (vitest.config.ts). The file gets a temporary directory of its
 * own: TMPDIR, which os.tmpdir() reads on every call and the processes the file starts inherit (Python, a
 * browser, our CLI and its repository service). Its `afterAll` here is registered first, so it runs last
 * (vitest runs `afterAll` hooks in reverse), once the file's own hooks have closed what used the folders:
 * it removes what tempDir made, and whatever else is left fails the file, named, so that a test that
 * forgets its clean-up is caught here rather than by someone finding /tmp full. The folder goes either way.
 * A folder per file, not per run, because two files run at once (one per worker). Vitest runs no `afterAll`
 * for a file whose tests are all skipped: its folder then goes with the run's (test/global-setup.ts), and the
 * next file sets TMPDIR anew all the same.
 */
const tmpdirBefore = process.env.TMPDIR;
const fileTmp = mkdtempSync(join(process.env[RUN_FOLDER_ENV] ?? tmpdir(), "file-"));
process.env.TMPDIR = fileTmp;

afterAll(() => {
  removeTempDirs();
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
  const left = readdirSync(fileTmp);
  rmSync(fileTmp, { recursive: true, force: true });
  if (left.length > 0) {
    throw new Error(
      `this file left ${left.length} temporary folder(s) or file(s) behind: ${left.sort().join(", ")}; ` +
        "make them with tempDir (test/helpers/temp-dir.ts), which removes them when the file ends",
    );
  }
});
