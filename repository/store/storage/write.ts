import { randomUUID } from "node:crypto";
import { recordConfigEvent } from "../config-events/write.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import { type AdapterRow, findAdapter, storagePolicy } from "./read.js";

/**
 * Changes to storage configuration. Each records a config event in the same transaction (adapters under
 * STORAGE, the storage policy under SETTINGS: it is applied through the Settings API), so a change and its
 * record are committed together or not at all. Callers validate first: these only write.
 */

export interface AdapterInput {
  name: string;
  type: string;
  description: string | null;
  settings: Record<string, string>;
  enabled: boolean;
}

export function createAdapter(
  db: Db,
  input: AdapterInput,
  username: string,
  at: string,
  id: string = randomUUID(),
): AdapterRow {
  return db.transaction(() => {
    prepared(
      db,
      `INSERT INTO storage_adapters (id, name, type, description, settings, enabled, built_in, created, created_by, modified, modified_by)
       VALUES (@id, @name, @type, @description, @settings, @enabled, 0, @at, @username, @at, @username)`,
    ).run({
      id,
      name: input.name,
      type: input.type,
      description: input.description,
      settings: JSON.stringify(input.settings),
      enabled: input.enabled ? 1 : 0,
      at,
      username,
    });
    recordConfigEvent(db, {
      username,
      at,
      category: "STORAGE",
      commandType: "CREATE",
      subject: id,
      summary: `Added ${input.type} storage adapter "${input.name}"${input.enabled ? "" : " (disabled)"}`,
      details: { id, ...input },
    });
    return findAdapter(db, id) as AdapterRow;
  })();
}

/** The fields of an adapter a PUT may change; absent ones stay as they are. */
export type AdapterChanges = Partial<AdapterInput>;

/** Applies the changes that differ; records UPDATE, or ENABLE/DISABLE when only `enabled` changed. */
export function updateAdapter(
  db: Db,
  before: AdapterRow,
  changes: AdapterChanges,
  username: string,
  at: string,
): AdapterRow {
  const was: AdapterInput = {
    name: before.name,
    type: before.type,
    description: before.description,
    settings: JSON.parse(before.settings) as Record<string, string>,
    enabled: before.enabled === 1,
  };
  const next: AdapterInput = { ...was, ...changes };
  const changed = (Object.keys(next) as (keyof AdapterInput)[]).filter(
    (k) => JSON.stringify(next[k]) !== JSON.stringify(was[k]),
  );
  if (changed.length === 0) return before;
  return db.transaction(() => {
    prepared(
      db,
      `UPDATE storage_adapters SET name = @name, type = @type, description = @description, settings = @settings,
         enabled = @enabled, modified = @at, modified_by = @username WHERE id = @id`,
    ).run({
      id: before.id,
      name: next.name,
      type: next.type,
      description: next.description,
      settings: JSON.stringify(next.settings),
      enabled: next.enabled ? 1 : 0,
      at,
      username,
    });
    const onlyEnabled = changed.length === 1 && changed[0] === "enabled";
    recordConfigEvent(db, {
      username,
      at,
      category: "STORAGE",
      commandType: onlyEnabled ? (next.enabled ? "ENABLE" : "DISABLE") : "UPDATE",
      subject: before.id,
      summary: onlyEnabled
        ? `${next.enabled ? "Enabled" : "Disabled"} storage adapter "${next.name}"`
        : `Changed ${changed.join(", ")} of storage adapter "${next.name}"`,
      details: {
        id: before.id,
        before: Object.fromEntries(changed.map((k) => [k, was[k]])),
        after: Object.fromEntries(changed.map((k) => [k, next[k]])),
      },
    });
    return findAdapter(db, before.id) as AdapterRow;
  })();
}

export function deleteAdapter(db: Db, adapter: AdapterRow, username: string, at: string): void {
  db.transaction(() => {
    prepared(db, "DELETE FROM storage_adapters WHERE id = ?").run(adapter.id);
    recordConfigEvent(db, {
      username,
      at,
      category: "STORAGE",
      commandType: "DELETE",
      subject: adapter.id,
      summary: `Removed ${adapter.type} storage adapter "${adapter.name}"`,
      details: { id: adapter.id, name: adapter.name, type: adapter.type },
    });
  })();
}

export interface PolicyInput {
  name: string;
  description: string | null;
  /** Adapter ids in order; the first holds the primary copy. */
  adapterIds: string[];
  minimumCopies: number;
}

/** Replaces the storage policy: every bitstream is from now on kept on the policy's adapters. */
export function applyStoragePolicy(db: Db, input: PolicyInput, username: string, at: string): void {
  db.transaction(() => {
    const before = storagePolicy(db);
    prepared(
      db,
      `UPDATE storage_policy SET name = @name, description = @description, minimum_copies = @minimumCopies,
         applied = @at, applied_by = @username WHERE id = 1`,
    ).run({
      name: input.name,
      description: input.description,
      minimumCopies: input.minimumCopies,
      at,
      username,
    });
    prepared(db, "DELETE FROM storage_policy_targets").run();
    const target = prepared(db, "INSERT INTO storage_policy_targets (adapter_id, position) VALUES (?, ?)");
    for (const [i, id] of input.adapterIds.entries()) target.run(id, i + 1);
    const names = input.adapterIds.map((id) => findAdapter(db, id)?.name ?? id);
    recordConfigEvent(db, {
      username,
      at,
      category: "SETTINGS",
      commandType: "APPLY",
      subject: "storage policy",
      summary: `Applied storage policy "${input.name}": ${input.minimumCopies} of ${names.length} cop${names.length === 1 ? "y" : "ies"} on ${names.join(", ")}`,
      details: {
        before: {
          name: before.name,
          minimumCopies: before.minimum_copies,
          adapters: before.targets.map((t) => t.id),
        },
        after: { name: input.name, minimumCopies: input.minimumCopies, adapters: input.adapterIds },
      },
    });
  })();
}

/** Seeds and tests: the edition and the limits (null = unlimited) of the ones named. */
export function setEntitlement(
  db: Db,
  editionName: string,
  limits: Partial<Record<"USERS" | "STORAGE" | "ENTITIES" | "STORAGE_ADAPTERS", number | null>>,
): void {
  prepared(db, "UPDATE entitlement SET edition = ? WHERE id = 1").run(editionName);
  const set = prepared(db, "UPDATE entitlement_limits SET limit_value = ? WHERE feature = ?");
  for (const [feature, value] of Object.entries(limits)) set.run(value ?? null, feature);
}
