import type { Migration } from "./index.js";

/**
 * Schema 1: the read side as first released. Kept exactly as it shipped (a data directory written by
 * that release holds this schema at version 1), so never edit it: change the schema in a new migration.
 *
 * Entities live in one table (SO, IO, CO share Ref/Title/Description/SecurityTag/Parent); the integer
 * `id` gives a stable insertion order for paging and doubles as the FTS rowid.
 */
export const SCHEMA_1 = `
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS entities (
  id           INTEGER PRIMARY KEY,
  ref          TEXT NOT NULL UNIQUE,
  type         TEXT NOT NULL CHECK (type IN ('SO','IO','CO')),
  title        TEXT NOT NULL,
  description  TEXT,
  security_tag TEXT NOT NULL,
  custom_type  TEXT,
  parent_ref   TEXT,
  created      TEXT NOT NULL,
  modified     TEXT NOT NULL,
  deleted      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS entities_parent ON entities (parent_ref, id);
CREATE INDEX IF NOT EXISTS entities_modified ON entities (modified, id);
-- Covers the visibility test of every Content API search (live, folder/asset, readable tag): counts and
-- facets over the whole store read this narrow index instead of the wide rows.
CREATE INDEX IF NOT EXISTS entities_visibility ON entities (deleted, type, security_tag);

CREATE TABLE IF NOT EXISTS metadata_fragments (
  id         INTEGER PRIMARY KEY,
  mref       TEXT NOT NULL UNIQUE,
  entity_ref TEXT NOT NULL,
  schema_uri TEXT NOT NULL,
  content    TEXT NOT NULL,
  created    TEXT NOT NULL,
  modified   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fragments_entity ON metadata_fragments (entity_ref, id);

CREATE TABLE IF NOT EXISTS identifiers (
  id         INTEGER PRIMARY KEY,
  api_id     TEXT NOT NULL UNIQUE,
  entity_ref TEXT NOT NULL,
  type       TEXT NOT NULL,
  value      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS identifiers_entity ON identifiers (entity_ref, id);
CREATE INDEX IF NOT EXISTS identifiers_lookup ON identifiers (type, value);

CREATE TABLE IF NOT EXISTS links (
  id        INTEGER PRIMARY KEY,
  api_id    TEXT NOT NULL UNIQUE,
  link_type TEXT NOT NULL,
  from_ref  TEXT NOT NULL,
  to_ref    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS links_from ON links (from_ref, id);
CREATE INDEX IF NOT EXISTS links_to ON links (to_ref, id);

-- Representation of an IO: type Preservation|Access, numbered 1.. within (io_ref, type).
CREATE TABLE IF NOT EXISTS representations (
  id     INTEGER PRIMARY KEY,
  io_ref TEXT NOT NULL,
  type   TEXT NOT NULL,
  name   TEXT,
  idx    INTEGER NOT NULL,
  UNIQUE (io_ref, type, idx)
);
CREATE TABLE IF NOT EXISTS representation_objects (
  representation_id INTEGER NOT NULL REFERENCES representations (id) ON DELETE CASCADE,
  co_ref            TEXT NOT NULL,
  position          INTEGER NOT NULL,
  PRIMARY KEY (representation_id, position)
);
CREATE INDEX IF NOT EXISTS representation_objects_co ON representation_objects (co_ref);

-- Generation of a CO, numbered 1.. within the CO.
CREATE TABLE IF NOT EXISTS generations (
  id             INTEGER PRIMARY KEY,
  co_ref         TEXT NOT NULL,
  idx            INTEGER NOT NULL,
  original       INTEGER NOT NULL,
  active         INTEGER NOT NULL,
  label          TEXT,
  format_group   TEXT,
  effective_date TEXT,
  format_puid    TEXT,
  format_name    TEXT,
  format_version TEXT,
  UNIQUE (co_ref, idx)
);

-- Bitstream of a generation, numbered 1.. within the generation. content_sha256 names the blob in the
-- content store; the fixities table holds what the service reports (MD5, SHA1, SHA256, SHA512).
CREATE TABLE IF NOT EXISTS bitstreams (
  id             INTEGER PRIMARY KEY,
  generation_id  INTEGER NOT NULL REFERENCES generations (id) ON DELETE CASCADE,
  idx            INTEGER NOT NULL,
  filename       TEXT NOT NULL,
  original_name  TEXT,
  size           INTEGER NOT NULL,
  mime_type      TEXT NOT NULL,
  content_sha256 TEXT NOT NULL,
  UNIQUE (generation_id, idx)
);
CREATE TABLE IF NOT EXISTS fixities (
  bitstream_id INTEGER NOT NULL REFERENCES bitstreams (id) ON DELETE CASCADE,
  algorithm    TEXT NOT NULL,
  value        TEXT NOT NULL,
  PRIMARY KEY (bitstream_id, algorithm)
);

CREATE TABLE IF NOT EXISTS events (
  id                   INTEGER PRIMARY KEY,
  ref                  TEXT NOT NULL UNIQUE,
  type                 TEXT NOT NULL,
  date                 TEXT NOT NULL,
  username             TEXT NOT NULL,
  workflow_name        TEXT,
  workflow_instance_id TEXT
);
CREATE INDEX IF NOT EXISTS events_date ON events (date, id);
CREATE TABLE IF NOT EXISTS event_actions (
  id                 INTEGER PRIMARY KEY,
  event_id           INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  entity_ref         TEXT NOT NULL,
  command_type       TEXT NOT NULL,
  date               TEXT NOT NULL,
  serialised_command TEXT
);
CREATE INDEX IF NOT EXISTS event_actions_entity ON event_actions (entity_ref, id);
CREATE INDEX IF NOT EXISTS event_actions_event ON event_actions (event_id, id);

CREATE TABLE IF NOT EXISTS users (
  username       TEXT PRIMARY KEY,
  password_hash  TEXT NOT NULL,
  full_name      TEXT NOT NULL,
  email          TEXT NOT NULL,
  tenant         TEXT NOT NULL,
  roles          TEXT NOT NULL,          -- JSON array of role names
  temporary      INTEGER NOT NULL DEFAULT 0,
  expires        TEXT,                   -- temporary users: ISO 8601
  needs_challenge INTEGER NOT NULL DEFAULT 0,
  totp_secret    TEXT,                   -- base32; set for users with 2FA
  enabled        INTEGER NOT NULL DEFAULT 1,
  last_login     TEXT
);

-- Security tags and what each role may do on entities carrying them.
CREATE TABLE IF NOT EXISTS security_tags (
  name TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS tag_permissions (
  role       TEXT NOT NULL,
  tag        TEXT NOT NULL,
  permission TEXT NOT NULL,
  PRIMARY KEY (role, tag, permission)
);

-- Access tokens. A refresh token is single-use and dies with its access token.
CREATE TABLE IF NOT EXISTS tokens (
  token         TEXT PRIMARY KEY,
  refresh_token TEXT NOT NULL UNIQUE,
  username      TEXT NOT NULL,
  issued_at     INTEGER NOT NULL,        -- epoch ms
  expires_at    INTEGER NOT NULL,        -- epoch ms
  session_start INTEGER NOT NULL,        -- epoch ms of the login that began this chain
  revoked       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tokens_expiry ON tokens (expires_at);

-- Pending e-mail challenges and 2FA continuations.
CREATE TABLE IF NOT EXISTS challenges (
  token      TEXT PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('email','2fa')),
  username   TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used       INTEGER NOT NULL DEFAULT 0
);

-- Full-text index over titles, descriptions and metadata text; rowid = entities.id.
CREATE VIRTUAL TABLE IF NOT EXISTS entity_fts USING fts5 (
  title, description, metadata, tokenize = 'unicode61 remove_diacritics 2'
);

-- Dublin Core element values (name = element, e.g. 'creator') from each entity's metadata fragments,
-- rebuilt by reindexEntity; the Content API filters, facets and returns oai_dc.* fields from here.
-- Values compare case-insensitively, so an exact-value filter can seek the lookup index.
CREATE TABLE IF NOT EXISTS entity_dc_values (
  entity_ref TEXT NOT NULL,
  name       TEXT NOT NULL,
  value      TEXT NOT NULL COLLATE NOCASE,
  position   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS entity_dc_values_entity ON entity_dc_values (entity_ref, name);
CREATE INDEX IF NOT EXISTS entity_dc_values_lookup ON entity_dc_values (name, value, entity_ref);
`;

export const initial: Migration = {
  version: 1,
  name: "initial read-side schema",
  up: (db) => db.exec(SCHEMA_1),
};
