import type { Migration } from "./index.js";

/**
 * Schema 2: the write side. Long-running actions and their per-entity progress, the recycle bin,
 * custom previews, retention, and metadata groups and forms.
 */
const SCHEMA_2 = `
-- A long-running action; its id is the progress token clients poll at /api/entity/progress/{id}.
-- Status values are the service's own (ACTIVE, PENDING, COMPLETED, FAILED, CANCELLED, ...).
CREATE TABLE actions (
  id          TEXT PRIMARY KEY,
  seq         INTEGER NOT NULL UNIQUE,      -- submission order, for listings
  kind        TEXT NOT NULL,                -- move, security-tag, deletion, recovery, final-deletion, ...
  status      TEXT NOT NULL,
  username    TEXT NOT NULL,
  entity_ref  TEXT,                         -- the entity acted on (the root of a subtree), when there is one
  entity_type TEXT,
  params      TEXT NOT NULL DEFAULT '{}',   -- JSON: what the action was asked to do
  total       INTEGER NOT NULL DEFAULT 0,   -- items to do (entities, CSV rows), once known
  done        INTEGER NOT NULL DEFAULT 0,
  failed      INTEGER NOT NULL DEFAULT 0,
  message     TEXT,
  created     TEXT NOT NULL,
  updated     TEXT NOT NULL,
  completed   TEXT
);
CREATE INDEX actions_kind ON actions (kind, seq);
CREATE INDEX actions_status ON actions (status);
CREATE INDEX actions_entity ON actions (entity_ref);

-- What an action did, one row per entity or CSV row, written in the same transaction as the change
-- itself: after a crash an action resumes from here and never applies anything twice.
CREATE TABLE action_items (
  action_id  TEXT NOT NULL REFERENCES actions (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  entity_ref TEXT,
  outcome    TEXT NOT NULL CHECK (outcome IN ('done','failed','skipped')),
  message    TEXT,
  PRIMARY KEY (action_id, seq)
);
CREATE INDEX action_items_entity ON action_items (action_id, entity_ref);

-- The recycle bin: a deleted entity carries the deletion action that put it there.
ALTER TABLE entities ADD COLUMN deletion_id TEXT;
ALTER TABLE entities ADD COLUMN deleted_at TEXT;
CREATE INDEX entities_deletion ON entities (deletion_id) WHERE deletion_id IS NOT NULL;

-- Custom previews (thumbnails) uploaded for folders and assets; the bytes live in the content store.
CREATE TABLE previews (
  entity_ref     TEXT PRIMARY KEY,
  content_sha256 TEXT NOT NULL,
  size           INTEGER NOT NULL,
  mime_type      TEXT NOT NULL,
  modified       TEXT NOT NULL
);

-- Retention policies and their assignments to assets.
CREATE TABLE retention_policies (
  ref                      TEXT PRIMARY KEY,
  name                     TEXT NOT NULL,
  description              TEXT NOT NULL,
  security_tag             TEXT NOT NULL,
  start_date_field         TEXT,
  period                   INTEGER,
  period_unit              TEXT,
  expiry_action            TEXT,
  expiry_action_parameters TEXT,
  restriction              TEXT,
  assignable               INTEGER NOT NULL DEFAULT 1,
  created                  TEXT NOT NULL,
  modified                 TEXT NOT NULL
);
CREATE TABLE retention_assignments (
  api_id     TEXT PRIMARY KEY,
  entity_ref TEXT NOT NULL,
  policy_ref TEXT NOT NULL,
  start_date TEXT,
  created    TEXT NOT NULL
);
CREATE INDEX retention_assignments_entity ON retention_assignments (entity_ref);
CREATE INDEX retention_assignments_policy ON retention_assignments (policy_ref);
CREATE TABLE retention_events (
  id            INTEGER PRIMARY KEY,
  ref           TEXT NOT NULL UNIQUE,
  type          TEXT NOT NULL,
  date          TEXT NOT NULL,
  username      TEXT NOT NULL,
  entity_ref    TEXT,
  policy_ref    TEXT,
  assignment_id TEXT,
  detail        TEXT
);
CREATE INDEX retention_events_date ON retention_events (date, id);

-- Metadata groups and forms (the JSON metadata API); definitions are kept as the JSON documents.
CREATE TABLE metadata_groups (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  schema_uri  TEXT NOT NULL UNIQUE,
  definition  TEXT NOT NULL,
  created     TEXT NOT NULL,
  modified    TEXT NOT NULL
);
CREATE TABLE metadata_forms (
  id          TEXT PRIMARY KEY,
  title       TEXT NOT NULL,
  schema_uri  TEXT,
  definition  TEXT NOT NULL,
  created     TEXT NOT NULL,
  modified    TEXT NOT NULL
);
`;

export const writeSide: Migration = {
  version: 2,
  name: "write side: actions, recycle bin, previews, retention, metadata groups",
  up: (db) => db.exec(SCHEMA_2),
};
