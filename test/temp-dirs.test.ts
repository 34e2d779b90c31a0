import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify, stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { RUN_FOLDER_ENV, tempDir } from "./helpers/temp-dir.js";

/**
 * The check that keeps the suite from filling the temporary directory (test/helpers/file-end.ts): every test
 * file runs with a TMPDIR of its own, and one that leaves anything there fails, naming it. Checked here on a
 * small vitest run of its own, with two files: one that forgets a folder, one that makes its folder with tempDir.
 */

const ROOT = resolve(import.meta.dirname, "..");
const VITEST = join(ROOT, "node_modules", "vitest", "vitest.mjs");
const helper = (name: string) => JSON.stringify(join(ROOT, "test", "helpers", name));

describe("a test file's temporary directory", () => {
  it("is the file's own: TMPDIR, in the run's folder", () => {
    expect(process.env.TMPDIR).toBe(tmpdir());
    expect(tmpdir()).toMatch(/[\\/]file-\w{6}$/);
    expect(resolve(tmpdir(), "..")).toBe(process.env[RUN_FOLDER_ENV]);
  });

  it("fails a file that leaves a folder behind, naming it; removes what tempDir made; leaves nothing", async () => {
    const dir = tempDir("temp-dirs-check-");
    // The run's folder of this small run (test/global-setup.ts makes the suite's), where its files' folders go.
    const run = join(dir, "run");
    writeFileSync(
      join(dir, "vitest.config.mjs"),
      `export default { test: { include: ["*.probe.ts"], globals: true, setupFiles: [${helper("file-end.ts")}] } };`,
    );
    writeFileSync(
      join(dir, "forgets.probe.ts"),
      `import { mkdtempSync } from "node:fs";
       import { tmpdir } from "node:os";
       import { join } from "node:path";
       it("makes a folder and forgets it", () => { mkdtempSync(join(tmpdir(), "forgotten-")); });`,
    );
    writeFileSync(
      join(dir, "tidy.probe.ts"),
      `import { writeFileSync } from "node:fs";
       import { join } from "node:path";
       import { tempDir } from ${helper("temp-dir.ts")};
       it("makes a folder with tempDir", () => { writeFileSync(join(tempDir("kept-"), "x"), "x"); });`,
    );
    mkdirSync(run);
    const result = await promisify(execFile)(
      process.execPath,
      [VITEST, "run", "--root", dir, "--reporter=dot"],
      {
        cwd: dir,
        env: { ...process.env, [RUN_FOLDER_ENV]: run },
        timeout: 60_000,
      },
    ).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({
        code: err.code,
        out: err.stdout + err.stderr,
      }),
    );
    const out = stripVTControlCharacters(result.out);
    expect(result.code, out).toBe(1);
    expect(out).toMatch(
      /FAIL +forgets\.probe\.ts.*\nError: this file left 1 temporary folder\(s\) or file\(s\) behind: forgotten-\w{6};/,
    );
    expect(out).not.toMatch(/behind: kept-/);
    expect(out).toMatch(/Test Files +1 failed \| 1 passed/);
    expect(out).toMatch(/Tests +2 passed/);
    // Each file's folder went with it, the forgotten folder too.
    expect(readdirSync(run)).toEqual([]);
  }, 60_000);
});
