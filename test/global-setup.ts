import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRepository } from "../repository/server.js";
import { openSqlite } from "../repository/store/sqlite/open.js";
import { OUTER_TMPDIR_ENV, RUN_FOLDER_ENV } from "./helpers/temp-dir.js";
import { TEMPLATE_SEEDS, TEMPLATES_ENV } from "./helpers/templates.js";

/**
 * Once per `vitest run`, before any test file: a repository data directory for each common seed, made by the
 * service itself. Test files then start from a copy (test/helpers/templates.ts) instead of running the
 * migrations, hashing the demo users' passwords and seeding the demo collection again, which a fresh store
 * costs each of ~150 files (about a second each on an idle 2-core machine, several under load).
 *
 * The templates are in a folder of the run's own (removed after the last file, or when the run is interrupted),
 * which also holds each test file's temporary directory (test/helpers/file-end.ts): one left there is a file's
 * whose worker died before its check, and that file failed already.
 */
export default async function setup(): Promise<() => void> {
  const run = mkdtempSync(join(tmpdir(), "pmcp-tests-"));
  const root = join(run, "templates");
  for (const seed of TEMPLATE_SEEDS) {
    const dataDir = join(root, seed);
    const repo = await startRepository({ host: "127.0.0.1", port: 0, seed, dataDir });
    await repo.close();
    // Everything in the main file: the write-ahead log folded in and emptied, so copies may leave out the
    // -wal and -shm files, which a connection closing late elsewhere once removed in the middle of a copy.
    const db = openSqlite(join(dataDir, "repository.sqlite"));
    db.pragma("busy_timeout = 20000");
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    db.close();
    if (result?.busy !== 0) throw new Error(`the ${seed} template's write-ahead log could not be folded in`);
  }
  process.env[TEMPLATES_ENV] = root;
  process.env[RUN_FOLDER_ENV] = run;
  process.env[OUTER_TMPDIR_ENV] = tmpdir();
  // An interrupted run (Ctrl-C, SIGTERM) exits without the teardown: the folder goes then too, as far as it can
  // while the workers' children may still be writing in it.
  const removeOnExit = () => {
    try {
      rmSync(run, { recursive: true, force: true, maxRetries: 2 });
    } catch {}
  };
  process.once("exit", removeOnExit);
  return () => {
    process.off("exit", removeOnExit);
    rmSync(run, { recursive: true, force: true });
  };
}
