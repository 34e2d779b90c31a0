import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The data directory of `preservation-mcp repository` without `--data`: made now, and removed on every way out
 * of the process that still runs JavaScript: an exit, normal or after an error ('exit'), and an uncaught error
 * (its monitor runs just before the crash). The stop signals are the command's to handle (main.ts), so that
 * they end in an exit too; only a SIGKILL leaves the directory behind.
 */
export function temporaryDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "preservation-repo-"));
  const remove = () => {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Windows will not remove a database still open (a crash): nothing more can be done on the way out.
    }
  };
  process.once("exit", remove);
  process.once("uncaughtExceptionMonitor", remove);
  return dir;
}
