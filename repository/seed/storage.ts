import type { Db } from "../store/db.js";
import { BUILT_IN_ADAPTER_ID } from "../store/migrations/010-storage.js";
import { applyStoragePolicy, createAdapter, setEntitlement } from "../store/storage/write.js";
import { uuidFrom } from "./ids.js";

/**
 * The demo's storage and entitlements: a Starter edition (the one a storage quota applies to) with a 1 GB
 * quota, two simulated adapters beside
 * the built-in content store (an offsite S3 replica that the storage policy keeps a second copy on, and a
 * Glacier cold tier added later and not yet used), and the config events of those changes, dated in the
 * demo's history. Called by the demo seed after the content is written, inside its transaction.
 */

export const DEMO_STORAGE = {
  edition: "Starter",
  replicaId: uuidFrom("demo:storage-adapter:offsite-replica"),
  coldId: uuidFrom("demo:storage-adapter:cold-tier"),
  /**
   * The storage quota. Enforced (store/storage/quota.ts), so it leaves room: the demo collection stores
   * about 1 MB, and the embedded default, which uses this seed, is where a newcomer ingests their own first
   * files. A quota set just above the demo's bytes (as before enforcement) would refuse the first photo.
   */
  quotaBytes: 1_000_000_000,
  limits: { USERS: 10, ENTITIES: 500, STORAGE_ADAPTERS: 4 },
} as const;

export function seedStorage(db: Db): void {
  createAdapter(
    db,
    {
      name: "Offsite replica (S3, eu-west-2)",
      type: "S3",
      description: "Second copy of every bitstream, in another region, for disaster recovery",
      settings: { bucket: "harbour-town-archive-replica", region: "eu-west-2", storageClass: "STANDARD_IA" },
      enabled: true,
    },
    "manager",
    "2025-02-03T10:15:00.000Z",
    DEMO_STORAGE.replicaId,
  );
  applyStoragePolicy(
    db,
    {
      name: "Two copies, one offsite",
      description: "Every bitstream on the local content store and on the offsite S3 replica",
      adapterIds: [BUILT_IN_ADAPTER_ID, DEMO_STORAGE.replicaId],
      minimumCopies: 2,
    },
    "manager",
    "2025-02-04T09:00:00.000Z",
  );
  createAdapter(
    db,
    {
      name: "Cold tier (Glacier Deep Archive)",
      type: "GLACIER",
      description: "Proposed third copy for closed collections; not yet in the storage policy",
      settings: { vault: "harbour-town-cold", region: "eu-west-1", retrievalTier: "Bulk" },
      enabled: false,
    },
    "manager",
    "2025-09-10T14:30:00.000Z",
    DEMO_STORAGE.coldId,
  );
  setEntitlement(db, DEMO_STORAGE.edition, { ...DEMO_STORAGE.limits, STORAGE: DEMO_STORAGE.quotaBytes });
}
