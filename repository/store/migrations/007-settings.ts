import type { Migration } from "./index.js";

/**
 * Schema 7: the Settings API's stored configuration and the Analytics API's generated data sets.
 *
 * - Migration configuration (the live policy): profiles say what to do with which formats (PUID → MIGRATE
 *   to a target PUID, or RETAIN); rules say where (entity refs, or everything) and which profile applies,
 *   the first matching rule by priority winning. Replaced as a whole when a draft is applied.
 * - Migration drafts: a complete configuration (profiles and rules together) kept as JSON; no effect on
 *   anything until applied. An applied draft stays, marked APPLIED, as the record of what was applied.
 * - Metadata enrichment: profiles (PII detection on or off) and rules (priority, selector settings).
 * - Analytics data sets: each generation's result (JSON), keyed by the action that generated it.
 */
export const settings: Migration = {
  version: 7,
  name: "settings",
  up(db) {
    db.exec(`
      CREATE TABLE migration_profiles (
        id          TEXT PRIMARY KEY,
        position    INTEGER NOT NULL,
        name        TEXT NOT NULL,
        description TEXT,
        rule_set_id TEXT,
        formats     TEXT NOT NULL,
        modified    TEXT NOT NULL
      );
      CREATE TABLE migration_rules (
        id          TEXT PRIMARY KEY,
        priority    INTEGER NOT NULL UNIQUE,
        name        TEXT,
        profile_id  TEXT NOT NULL REFERENCES migration_profiles (id),
        entity_refs TEXT NOT NULL,
        modified    TEXT NOT NULL
      );
      CREATE TABLE migration_drafts (
        id          TEXT PRIMARY KEY,
        seq         INTEGER NOT NULL UNIQUE,
        name        TEXT NOT NULL,
        description TEXT,
        config      TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('DRAFT', 'APPLIED')),
        created     TEXT NOT NULL,
        created_by  TEXT NOT NULL,
        modified    TEXT NOT NULL,
        applied     TEXT,
        applied_by  TEXT
      );
      CREATE TABLE enrichment_profiles (
        id         TEXT PRIMARY KEY,
        seq        INTEGER NOT NULL UNIQUE,
        name       TEXT NOT NULL,
        pii_active INTEGER NOT NULL,
        created    TEXT NOT NULL,
        modified   TEXT NOT NULL
      );
      CREATE TABLE enrichment_rules (
        id                TEXT PRIMARY KEY,
        profile_id        TEXT NOT NULL REFERENCES enrichment_profiles (id),
        priority          INTEGER NOT NULL,
        selector_settings TEXT NOT NULL,
        created           TEXT NOT NULL
      );
      CREATE INDEX enrichment_rules_profile ON enrichment_rules (profile_id);
      CREATE TABLE analytics_datasets (
        action_id  TEXT PRIMARY KEY,
        api_id     TEXT NOT NULL,
        username   TEXT NOT NULL,
        parameters TEXT NOT NULL,
        generated  TEXT NOT NULL,
        result     TEXT NOT NULL
      );
      CREATE INDEX analytics_datasets_api ON analytics_datasets (api_id, generated);
    `);
  },
};
