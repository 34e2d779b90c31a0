import type { Migration } from "./index.js";

/**
 * Schema 10: storage and entitlements.
 *
 * - `storage_adapters`: where content is kept. One adapter is built in: the local content store, the only
 *   place this service really writes bytes. Others (S3, Azure, Glacier, another file system) are
 *   configuration records: the service makes no outbound connection, so they hold no bytes and no secrets.
 * - `storage_policy` (one row) and `storage_policy_targets`: the adapters every bitstream is kept on, in
 *   order (the first is the primary copy), set through the Settings API's `PUT /storage/config/policy`.
 * - `entitlement` (one row) and `entitlement_limits`: the edition and its feature usage limits; the
 *   STORAGE limit is the storage quota. NULL means unlimited. A store starts as an unlimited Enterprise
 *   edition; the demo seed makes it a Starter edition close to its quota.
 */
export const BUILT_IN_ADAPTER_ID = "5e1f0c3a-7b2d-4c6e-9a8f-0c0ffee5704e";

export const storage: Migration = {
  version: 10,
  name: "storage",
  up(db) {
    db.exec(`
      CREATE TABLE storage_adapters (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
        type        TEXT NOT NULL,
        description TEXT,
        settings    TEXT NOT NULL DEFAULT '{}',   -- JSON object of strings; never a secret
        enabled     INTEGER NOT NULL DEFAULT 1,
        built_in    INTEGER NOT NULL DEFAULT 0,
        created     TEXT NOT NULL,
        created_by  TEXT NOT NULL,
        modified    TEXT NOT NULL,
        modified_by TEXT NOT NULL
      );
      CREATE TABLE storage_policy (
        id             INTEGER PRIMARY KEY CHECK (id = 1),
        name           TEXT NOT NULL,
        description    TEXT,
        minimum_copies INTEGER NOT NULL,
        applied        TEXT NOT NULL,
        applied_by     TEXT NOT NULL
      );
      CREATE TABLE storage_policy_targets (
        adapter_id TEXT PRIMARY KEY REFERENCES storage_adapters (id),
        position   INTEGER NOT NULL UNIQUE
      );
      CREATE TABLE entitlement (
        id      INTEGER PRIMARY KEY CHECK (id = 1),
        edition TEXT NOT NULL
      );
      CREATE TABLE entitlement_limits (
        feature     TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        unit        TEXT NOT NULL,
        limit_value INTEGER,
        position    INTEGER NOT NULL UNIQUE
      );
    `);
    const at = new Date().toISOString();
    db.prepare(
      `INSERT INTO storage_adapters (id, name, type, description, settings, enabled, built_in, created, created_by, modified, modified_by)
       VALUES (?, 'Local content store', 'FILE_SYSTEM', ?, '{}', 1, 1, ?, 'system', ?, 'system')`,
    ).run(
      BUILT_IN_ADAPTER_ID,
      "The content store in the service's data directory, where every bitstream's bytes are kept",
      at,
      at,
    );
    db.prepare(
      `INSERT INTO storage_policy (id, name, description, minimum_copies, applied, applied_by)
       VALUES (1, 'Single copy', 'Every bitstream on the local content store', 1, ?, 'system')`,
    ).run(at);
    db.prepare("INSERT INTO storage_policy_targets (adapter_id, position) VALUES (?, 1)").run(
      BUILT_IN_ADAPTER_ID,
    );
    db.prepare("INSERT INTO entitlement (id, edition) VALUES (1, 'Enterprise')").run();
    const limit = db.prepare(
      "INSERT INTO entitlement_limits (feature, name, unit, limit_value, position) VALUES (?, ?, ?, NULL, ?)",
    );
    limit.run("USERS", "Named users", "users", 1);
    limit.run("STORAGE", "Storage", "bytes", 2);
    limit.run("ENTITIES", "Entities (folders, assets, content objects)", "entities", 3);
    limit.run("STORAGE_ADAPTERS", "Storage adapters", "adapters", 4);
  },
};
