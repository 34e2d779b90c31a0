import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Names the run's own folder (test/global-setup.ts), where each test file gets its temporary directory. */
export const RUN_FOLDER_ENV = "PMCP_TEST_RUN";

/** Names the system's temporary directory, as it was before the run gave each test file its own. */
export const OUTER_TMPDIR_ENV = "PMCP_TEST_OUTER_TMPDIR";

/**
 * The temporary directory outside the test run (the system's), for what is meant to outlive the run, such as
 * a cache kept there between runs; anything else goes in the file's own (tmpdir(), tempDir).
 */
export function outerTmpdir(): string {
  return process.env[OUTER_TMPDIR_ENV] ?? tmpdir();
}

/** Folders tempDir made for the file now running, removed when it ends (test/helpers/file-end.ts). */
const made = new Set<string>();

/**
 * A new empty folder in the temporary directory, named `prefix` and six random characters, removed with
 * everything in it when the test file ends, however it ends (a failed assertion, a timeout). Call it anywhere:
 * at the top of the file, in a hook or in a test. A folder something keeps open until the file's own `afterAll`
 * (an audit log, a repository's store) is fine: the removal runs after every other `afterAll` of the file.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder tempDir made so far: called once per test file, after its last hook. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
