import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ServiceContext } from "../context.js";
import { getAction } from "../store/actions/read.js";

/**
 * Where finished export packages wait to be downloaded: `<dataDir>/exports/<action id>.zip`, written
 * as `<id>.zip.part` and renamed when complete (a crash never leaves a half package under the final
 * name). A package is kept for 7 days after its export ended; after that the content route answers
 * 404 and the file is removed by the sweep, which runs when the service starts and when an export starts.
 */

export const EXPORTS_DIR = "exports";
export const EXPORT_KIND = "export";
export const EXPORT_PATH = "exports";
export const EXPORT_RETENTION_MS = 7 * 24 * 3_600_000;
export const EXPORT_RETENTION_DAYS = 7;

export function exportsDir(dataDir: string): string {
  const dir = join(dataDir, EXPORTS_DIR);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function exportFile(dataDir: string, actionId: string): string {
  return join(exportsDir(dataDir), `${actionId}.zip`);
}

export function partialExportFile(dataDir: string, actionId: string): string {
  return `${exportFile(dataDir, actionId)}.part`;
}

/** Whether an export that ended at `completed` (ISO) is past its 7 days at `now` (ms). */
export function exportExpired(completed: string | null, now: number): boolean {
  if (!completed) return false;
  const ended = Date.parse(completed);
  return Number.isFinite(ended) && now - ended > EXPORT_RETENTION_MS;
}

const FILE_NAME = /^([0-9a-f-]{36})\.zip(\.part)?$/;

/**
 * Removes what no longer belongs in the exports folder: packages past their 7 days, packages of
 * actions that are unknown, and partial files of exports that are no longer running (a crash left
 * them; a resumed export starts its file afresh). Times are the service's (`svc.now`), like the
 * actions' dates they are compared with.
 */
export function sweepExports(svc: ServiceContext): number {
  const dir = join(svc.dataDir, EXPORTS_DIR);
  if (!existsSync(dir)) return 0;
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = FILE_NAME.exec(name);
    const action = m ? getAction(svc.db, m[1] as string) : undefined;
    const stale =
      !action ||
      action.kind !== EXPORT_KIND ||
      (m?.[2] ? action.status !== "ACTIVE" : exportExpired(action.completed, svc.now()));
    if (!stale) continue;
    try {
      rmSync(join(dir, name), { force: true, recursive: true });
      removed++;
    } catch {
      // Removed meanwhile: nothing to sweep.
    }
  }
  return removed;
}
