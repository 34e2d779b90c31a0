import type { Db } from "../db.js";
import { initial } from "./001-initial.js";
import { writeSide } from "./002-write-side.js";
import { operations } from "./003-operations.js";
import { stemmedSearch } from "./004-stemmed-search.js";
import { configEvents } from "./005-config-events.js";
import { registry } from "./006-registry.js";
import { settings } from "./007-settings.js";
import { system } from "./008-system.js";
import { admin } from "./009-admin.js";
import { storage } from "./010-storage.js";
import { webhooks } from "./011-webhooks.js";
import { blobIndex } from "./012-blob-index.js";
import { blobUsage } from "./013-blob-usage.js";
import { technicalProperties } from "./014-technical-properties.js";

/**
 * Numbered schema migrations. A data directory records the last one applied (`meta.schema_version`);
 * opening it applies the rest in order, in one transaction with the new version number, so a crash
 * mid-upgrade leaves the store as it was, never between two versions.
 * Released migrations are never edited: a change of schema is a new file here.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Db): void;
}

export const MIGRATIONS: readonly Migration[] = [
  initial,
  writeSide,
  operations,
  stemmedSearch,
  configEvents,
  registry,
  settings,
  system,
  admin,
  storage,
  webhooks,
  blobIndex,
  blobUsage,
  technicalProperties,
];

/** The schema version this program writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The schema version a store is at; 0 for an empty database. */
export function schemaVersion(db: Db): number {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
    | { value: string }
    | undefined;
  return row ? Number(row.value) : 0;
}

/**
 * Brings the store to SCHEMA_VERSION. Refuses a store written by a newer program (its schema may
 * mean things this one does not know). Runs under one write lock, so two processes opening the same
 * new data directory at once migrate it once.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): void {
  const newest = migrations[migrations.length - 1]?.version ?? 0;
  const current = schemaVersion(db);
  if (current > newest) {
    throw new Error(
      `The data directory was written by a newer version (schema ${current}, this program knows ${newest}); upgrade preservation-mcp or use another --data directory.`,
    );
  }
  if (current === newest) return;
  const pending = migrations.filter((m) => m.version > current);
  // Another process opening the same new data directory may hold the write lock for as long as it takes
  // to seed it (seconds, more on a loaded machine): wait for it, as the seed itself does, rather than
  // fail with "database is locked".
  const previousTimeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma("busy_timeout = 120000");
  try {
    applyPending(db, pending);
  } finally {
    db.pragma(`busy_timeout = ${previousTimeout}`);
  }
}

function applyPending(db: Db, pending: readonly Migration[]): void {
  db.transaction(() => {
    // Checked again under the lock: another process may have migrated while this one waited.
    const now = schemaVersion(db);
    for (const m of pending) {
      if (m.version <= now) continue;
      m.up(db);
      db.prepare(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ).run(String(m.version));
    }
  }).immediate();
}
