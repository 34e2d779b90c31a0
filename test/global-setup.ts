import { mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";
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
  const run = mkdtempSync(join(runParent(), "pmcp-tests-"));
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

/** statfs's type of a tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;
/** Room the run's folder may take at most at once: two files' folders, a 64 MiB upload or an unpacked bundle each. */
const RUN_ROOM = 2 * 1024 ** 3;

/**
 * Where the run's folder goes: memory (/dev/shm, a tmpfs) where there is room, else the system's temporary
 * directory. Nearly every test file copies a template store (~175 files in ~130 folders) for each repository it
 * starts and removes it at the end, and SQLite writes its journal: on this ext4 disk (mounted with `discard`)
 * that was ~40-60 ms a copy and 30-300 ms a removal, on tmpfs ~20 and ~10. PMCP_TEST_TMPDIR names another
 * parent (e.g. /tmp, to keep a run's files on disk). Caches meant to outlive the run stay in the system's
 * temporary directory (outerTmpdir).
 */
function runParent(): string {
  const chosen = process.env.PMCP_TEST_TMPDIR;
  if (chosen) return chosen;
  try {
    const shm = statfsSync("/dev/shm");
    // Mounted noexec (Docker's default), it would refuse what tests run from their folders: an installed
    // package's bin, the native SQLite binding of an unpacked bundle.
    const options = readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .filter((line) => line.split(" ")[1] === "/dev/shm")
      .at(-1)
      ?.split(" ")[3]
      ?.split(",");
    if (
      shm.type === TMPFS_MAGIC &&
      shm.bavail * shm.bsize >= RUN_ROOM &&
      options &&
      !options.includes("noexec")
    )
      return "/dev/shm";
  } catch {}
  return tmpdir();
}
