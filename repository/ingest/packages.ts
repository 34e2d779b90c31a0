import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Db } from "../store/db.js";
import { INGEST_KIND, type IngestParams } from "./params.js";

/**
 * Where uploaded packages wait for their ingest: `<dataDir>/packages/`. A package file belongs to its
 * ingest action from the moment the action is created; the action removes it when it ends (whatever
 * the outcome), and keeps it while it is interrupted (a stop or a crash), so it can run again.
 */

export const PACKAGES_DIR = "packages";

export function packagesDir(dataDir: string): string {
  const dir = join(dataDir, PACKAGES_DIR);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A fresh path for an uploaded package (`<uuid>.zip`). */
export function newPackagePath(dataDir: string): string {
  return join(packagesDir(dataDir), `${randomUUID()}.zip`);
}

/**
 * The name an action keeps for its package file: the file name, which must lie directly in the
 * packages folder (so parameters stay valid when the data directory moves). Throws for any other path:
 * that is a programming error of the caller, not something a client can send.
 */
export function packageFileName(dataDir: string, packagePath: string): string {
  const full = resolve(packagePath);
  if (dirname(full) !== resolve(packagesDir(dataDir))) {
    throw new Error(`an ingest package must lie directly in ${packagesDir(dataDir)}, not at ${packagePath}`);
  }
  return basename(full);
}

export function packagePath(dataDir: string, fileName: string): string {
  return join(dataDir, PACKAGES_DIR, fileName);
}

export function removePackage(dataDir: string, fileName: string): void {
  rmSync(packagePath(dataDir, fileName), { force: true });
}

/** Package files older than this, that no unfinished ingest names, are left-overs and removed. */
export const STALE_PACKAGE_MS = 24 * 3_600_000;

/**
 * Removes what a crash can leave in the packages folder: a partial upload (its request never ended)
 * or a package whose ingest ended just before its file could be removed. Only files untouched for a
 * day that no unfinished ingest action names: a slow upload still writing, or an ingest waiting to
 * resume, is kept. Only files directly in the folder: sub-folders (another upload route's parts) are
 * left to their owners.
 */
export function sweepPackages(
  db: Db,
  dataDir: string,
  now = Date.now(),
  olderThanMs = STALE_PACKAGE_MS,
): void {
  const dir = join(dataDir, PACKAGES_DIR);
  if (!existsSync(dir)) return;
  const wanted = new Set(
    (
      db
        .prepare("SELECT params FROM actions WHERE kind = ? AND status IN ('ACTIVE', 'PENDING')")
        .all(INGEST_KIND) as { params: string }[]
    ).map((r) => (JSON.parse(r.params) as Partial<IngestParams>).package),
  );
  for (const name of readdirSync(dir)) {
    if (wanted.has(name)) continue;
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.isFile() && st.mtimeMs < now - olderThanMs) rmSync(path, { force: true });
    } catch {
      // Removed meanwhile (its ingest finished): nothing to sweep.
    }
  }
}
