import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/**
 * Reads of storage and entitlements: adapters, the storage policy, the bytes really stored, the edition and
 * its limits with what is used of each (counted from the store at the time of asking).
 */

export interface AdapterRow {
  id: string;
  name: string;
  type: string;
  description: string | null;
  settings: string;
  enabled: number;
  built_in: number;
  created: string;
  created_by: string;
  modified: string;
  modified_by: string;
}

export function storageAdapters(db: Db): AdapterRow[] {
  return prepared(
    db,
    "SELECT * FROM storage_adapters ORDER BY built_in DESC, created, name",
  ).all() as AdapterRow[];
}

export function findAdapter(db: Db, id: string): AdapterRow | undefined {
  return prepared(db, "SELECT * FROM storage_adapters WHERE id = ?").get(id) as AdapterRow | undefined;
}

export function adapterNamed(db: Db, name: string): AdapterRow | undefined {
  return prepared(db, "SELECT * FROM storage_adapters WHERE name = ? COLLATE NOCASE").get(name) as
    | AdapterRow
    | undefined;
}

export interface PolicyRow {
  name: string;
  description: string | null;
  minimum_copies: number;
  applied: string;
  applied_by: string;
}

export interface StoragePolicy extends PolicyRow {
  /** The adapters, in order: the first holds the primary copy. */
  targets: AdapterRow[];
}

export function storagePolicy(db: Db): StoragePolicy {
  const row = prepared(
    db,
    "SELECT name, description, minimum_copies, applied, applied_by FROM storage_policy",
  ).get() as PolicyRow | undefined;
  const targets = prepared(
    db,
    `SELECT a.* FROM storage_policy_targets t JOIN storage_adapters a ON a.id = t.adapter_id ORDER BY t.position`,
  ).all() as AdapterRow[];
  // The migration writes the row; a store without one would be broken, never empty by design.
  if (!row) throw new Error("The storage policy is missing from the store");
  return { ...row, targets };
}

/** Whether the storage policy keeps copies on the adapter. */
export function policyUsesAdapter(db: Db, id: string): boolean {
  return prepared(db, "SELECT 1 FROM storage_policy_targets WHERE adapter_id = ?").get(id) !== undefined;
}

export interface StoredBytes {
  /** Bytes in the content store: each distinct blob once (bitstreams and previews share blobs). */
  usedBytes: number;
  blobs: number;
  bitstreams: { count: number; bytes: number };
  previews: { count: number; bytes: number };
}

/**
 * The bytes the content store really holds for the repository: every blob that a bitstream (of a live or a
 * deleted, still recoverable entity) or a custom preview names, counted once however many name it.
 */
export function storedBytes(db: Db): StoredBytes {
  // Kept by triggers as bitstreams and previews change (migration 13): a lookup, not a scan of the store.
  const distinct = prepared(db, "SELECT blobs, bytes FROM storage_totals WHERE id = 1").get() as {
    blobs: number;
    bytes: number;
  };
  const bs = prepared(
    db,
    "SELECT COUNT(*) AS count, COALESCE(SUM(size), 0) AS bytes FROM bitstreams",
  ).get() as {
    count: number;
    bytes: number;
  };
  const pv = prepared(
    db,
    "SELECT COUNT(*) AS count, COALESCE(SUM(size), 0) AS bytes FROM previews",
  ).get() as {
    count: number;
    bytes: number;
  };
  return { usedBytes: distinct.bytes, blobs: distinct.blobs, bitstreams: bs, previews: pv };
}

export function edition(db: Db): string {
  const row = prepared(db, "SELECT edition FROM entitlement WHERE id = 1").get() as
    | { edition: string }
    | undefined;
  return row?.edition ?? "Enterprise";
}

export type Feature = "USERS" | "STORAGE" | "ENTITIES" | "STORAGE_ADAPTERS";

export interface LimitUsage {
  feature: Feature;
  name: string;
  unit: string;
  /** null: unlimited. */
  limit: number | null;
  used: number;
}

/** Each limit of the edition with what is used of it now. */
export function limitsWithUsage(db: Db): LimitUsage[] {
  const rows = prepared(
    db,
    "SELECT feature, name, unit, limit_value FROM entitlement_limits ORDER BY position",
  ).all() as { feature: Feature; name: string; unit: string; limit_value: number | null }[];
  return rows.map((r) => ({
    feature: r.feature,
    name: r.name,
    unit: r.unit,
    limit: r.limit_value,
    used: usageOf(db, r.feature),
  }));
}

export function limitOf(db: Db, feature: Feature): number | null {
  const row = prepared(db, "SELECT limit_value FROM entitlement_limits WHERE feature = ?").get(feature) as
    | { limit_value: number | null }
    | undefined;
  return row?.limit_value ?? null;
}

/**
 * What is used of a feature, from the store: named users are the enabled accounts that are not temporary
 * (temporary users are guests with an expiry); entities are the live folders, assets and content objects
 * (deleted ones wait in the recycle bin and no longer count); storage is the bytes really stored.
 */
export function usageOf(db: Db, feature: Feature): number {
  switch (feature) {
    case "USERS":
      return (
        prepared(db, "SELECT COUNT(*) AS n FROM users WHERE enabled = 1 AND temporary = 0").get() as {
          n: number;
        }
      ).n;
    case "STORAGE":
      return storedBytes(db).usedBytes;
    case "ENTITIES":
      return (prepared(db, "SELECT COUNT(*) AS n FROM entities WHERE deleted = 0").get() as { n: number }).n;
    case "STORAGE_ADAPTERS":
      return (prepared(db, "SELECT COUNT(*) AS n FROM storage_adapters").get() as { n: number }).n;
  }
}
