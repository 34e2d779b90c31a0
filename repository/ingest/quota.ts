import { createHash } from "node:crypto";
import type { ServiceContext } from "../context.js";
import type { Db } from "../store/db.js";
import { type BlobCost, checkQuota, type QuotaCheck, storageQuota } from "../store/storage/quota.js";
import { checkPlan, type Depositor } from "./check.js";
import { planPackage } from "./detect.js";
import { filesOf, type IngestPlan, type PlannedFile } from "./plan.js";
import { DEFAULT_PACKAGE_LIMITS, EntryDamaged, PackageRefused, ZipPackage } from "./zip.js";

/**
 * What a package would cost against the storage quota, measured before any of its bytes enter the content
 * store, so a refusal leaves nothing behind. Only the files the ingest would store count (those of assets
 * the plan can create; manifests and metadata documents are not stored as content). First the sizes the
 * zip's directory declares: when even their sum fits, the package fits. Otherwise each file is read and
 * hashed (nothing written), and only the distinct contents the repository does not already hold count, as
 * the content store counts them; a damaged entry counts nothing (the ingest refuses that file anyway).
 */

/** The files the ingest would store: those of assets the checked plan can create. */
function storableFiles(plan: IngestPlan): PlannedFile[] {
  const out = new Set<PlannedFile>();
  for (const a of plan.assets) {
    if (a.problem) continue;
    for (const f of filesOf(a)) if (!f.problem) out.add(f);
  }
  return [...out];
}

/**
 * The quota check for a checked plan, or undefined when the edition has no storage limit. `between` is
 * awaited after each file hashed (the ingest's pause: a stop request is noticed there).
 */
export async function planQuota(
  db: Db,
  pkg: ZipPackage,
  plan: IngestPlan,
  between: () => Promise<void> = async () => {},
): Promise<QuotaCheck | undefined> {
  if (storageQuota(db) === null) return undefined;
  const entries = new Map(pkg.files().map((e) => [e.path, e]));
  const files = storableFiles(plan).flatMap((f) => {
    const e = entries.get(f.entryPath);
    return e ? [e] : [];
  });
  const declared = files.reduce((sum, e) => sum + e.size, 0);
  const bound = checkQuota(db, declared);
  if (bound.fits) return bound;
  const blobs: BlobCost[] = [];
  for (const e of files) {
    const h = createHash("sha256");
    let size = 0;
    try {
      for await (const chunk of pkg.chunks(e)) {
        h.update(chunk);
        size += chunk.length;
      }
    } catch (err) {
      if (!(err instanceof EntryDamaged)) throw err;
      continue;
    }
    blobs.push({ sha256: h.digest("hex"), size });
    await between();
  }
  return checkQuota(db, blobs);
}

/**
 * The quota check for a package file on disk that an ingest is about to receive (the S3 upload refuses
 * there, in S3's shape). Undefined when there is no storage limit, or when the package cannot be read
 * or planned: the ingest then reports that problem itself, as it would without a quota.
 */
export async function packageQuota(
  svc: ServiceContext,
  path: string,
  parentRef: string | null,
  depositor: Depositor,
): Promise<QuotaCheck | undefined> {
  if (storageQuota(svc.db) === null) return undefined;
  let pkg: ZipPackage | undefined;
  try {
    pkg = await ZipPackage.open(path, {
      maxEntries: DEFAULT_PACKAGE_LIMITS.maxEntries,
      maxContentBytes: Math.max(DEFAULT_PACKAGE_LIMITS.maxContentBytes, 16 * (svc.maxUploadBytes ?? 0)),
    });
    const plan = await planPackage(pkg, parentRef?.toLowerCase() ?? null);
    checkPlan(svc.db, plan, depositor);
    return await planQuota(svc.db, pkg, plan);
  } catch (err) {
    if (err instanceof PackageRefused) return undefined;
    throw err;
  } finally {
    await pkg?.close();
  }
}
