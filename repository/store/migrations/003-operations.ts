import type { Migration } from "./index.js";

/**
 * Schema 3: the operations APIs (Workflow API, ingest configurations, Process Monitor). Long-running
 * actions ARE the process record: every action is a workflow instance (its id is `actions.seq`) and a
 * process monitor; nothing here copies their state. What is stored is what cannot be derived from
 * them: workflow definitions and contexts (the built-in ones seeded here, one per kind of action),
 * uploaded definitions, the context / correlation id / parameters of instances started through the
 * Workflow API, ingest configurations, and when each action item was recorded (for messages,
 * timeseries and the day-by-day history).
 */

/** When the built-in rows were "installed": fixed, so every store seeds the same rows. */
const INSTALLED = "2024-01-01T00:00:00.000Z";

interface BuiltIn {
  id: number;
  textId: string;
  name: string;
  type: "Ingest" | "Access" | "DataManagement";
  /** The action kind its instances are; `*` = any kind no other context claims. */
  kind: string;
  description: string;
  /** How instances start when not through POST /instances; null = startable there. */
  startHint: string | null;
}

/**
 * One definition and one context per kind of action, with the same id and name. The Integrity Check
 * is the one started through the Workflow API itself; the others start where their API says.
 */
const BUILT_IN: readonly BuiltIn[] = [
  {
    id: 1,
    textId: "com.preservica.core.workflow.ingest",
    name: "Ingest",
    type: "Ingest",
    kind: "ingest",
    description: "Ingests an uploaded package (zip, OPEX or XIP) into a folder",
    startHint:
      "an ingest starts when a package is uploaded: POST /api/entity/structural-objects/{folder ref}, or PUT to the S3-compatible /api/s3/buckets/{tenant}.package.upload/{key}",
  },
  {
    id: 2,
    textId: "com.preservica.core.workflow.export",
    name: "Export",
    type: "Access",
    kind: "export",
    description: "Exports a folder or asset as an OPEX package",
    startHint:
      "an export starts with POST /api/entity/{structural-objects|information-objects}/{ref}/exports",
  },
  {
    id: 3,
    textId: "com.preservica.core.workflow.move",
    name: "Move",
    type: "DataManagement",
    kind: "move",
    description: "Moves a folder or asset, with everything under it, to another folder",
    startHint: "a move starts with PUT /api/entity/{structural-objects|information-objects}/{ref}/parent-ref",
  },
  {
    id: 4,
    textId: "com.preservica.core.workflow.security.tag",
    name: "Change Security Tag",
    type: "DataManagement",
    kind: "security-tag",
    description: "Changes the security tag of a folder or asset (and, if asked, of everything under it)",
    startHint:
      "a security tag change starts with PUT /api/entity/{structural-objects|information-objects}/{ref}/security-descriptor",
  },
  {
    id: 5,
    textId: "com.preservica.core.workflow.deletion",
    name: "Deletion",
    type: "DataManagement",
    kind: "deletion",
    description:
      "Deletes a folder or asset with everything under it (to the recycle bin) once a manager approves it",
    startHint:
      "a deletion starts with DELETE /api/entity/{structural-objects|information-objects}/{ref}; a manager then approves it (a human task)",
  },
  {
    id: 6,
    textId: "com.preservica.core.workflow.recovery",
    name: "Recovery",
    type: "DataManagement",
    kind: "recovery",
    description: "Takes deleted entities out of the recycle bin",
    startHint: "a recovery starts with POST /api/entity/actions/recoveries",
  },
  {
    id: 7,
    textId: "com.preservica.core.workflow.final.deletion",
    name: "Final Deletion",
    type: "DataManagement",
    kind: "final-deletion",
    description: "Removes deleted entities and their content for good",
    startHint: "a final deletion starts with POST /api/entity/actions/final-deletions",
  },
  {
    id: 8,
    textId: "com.preservica.core.workflow.replace.content",
    name: "Replace Content",
    type: "DataManagement",
    kind: "replace-content",
    description: "Gives a content object a new generation from uploaded content",
    startHint: "a content replacement starts with POST /api/entity/content-objects/{ref}/generations",
  },
  {
    id: 9,
    textId: "com.preservica.core.workflow.add.representation",
    name: "Add Representation",
    type: "DataManagement",
    kind: "add-representation",
    description: "Adds a representation to an asset from uploaded content",
    startHint: "a new representation starts with POST /api/entity/information-objects/{ref}/representations",
  },
  {
    id: 10,
    textId: "com.preservica.core.workflow.metadata.csv.edit",
    name: "Metadata CSV Edit",
    type: "DataManagement",
    kind: "metadata-csv-edit",
    description: "Applies a CSV file of metadata changes",
    startHint: "a metadata CSV edit starts with POST /api/entity/actions/metadata-csv-edits",
  },
  {
    id: 11,
    textId: "com.preservica.core.workflow.integrity.check",
    name: "Integrity Check",
    type: "DataManagement",
    kind: "integrity-check",
    description:
      "Re-reads every bitstream under a folder from storage and checks it against the SHA-256 recorded at ingest",
    startHint: null,
  },
  {
    id: 12,
    textId: "com.preservica.core.workflow.data.management",
    name: "Data Management",
    type: "DataManagement",
    kind: "*",
    description: "Other long-running actions of the service",
    startHint: "these actions start through the API that offers them",
  },
];

const SCHEMA_3 = `
-- Workflow definitions: the built-in ones (one per kind of action) and uploaded ones (document kept as sent;
-- no engine here runs an uploaded definition, so its contexts cannot be started).
CREATE TABLE workflow_definitions (
  id          INTEGER PRIMARY KEY,
  text_id     TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  type        TEXT NOT NULL CHECK (type IN ('Ingest','Access','Transformation','DataManagement')),
  action_kind TEXT,                          -- the action kind its instances run as; NULL = uploaded, not runnable
  start_hint  TEXT,                          -- where its instances start instead of POST /instances; NULL = there
  document    TEXT,                          -- the uploaded definition (XML)
  created     TEXT NOT NULL,
  created_by  TEXT NOT NULL
);

-- Workflow contexts: a definition configured and ready to run. action_kind names the kind of action whose
-- instances are shown under this context ('*' = every kind no other context claims).
CREATE TABLE workflow_contexts (
  id            INTEGER PRIMARY KEY,
  definition_id INTEGER NOT NULL REFERENCES workflow_definitions (id),
  name          TEXT NOT NULL UNIQUE,
  description   TEXT NOT NULL DEFAULT '',
  action_kind   TEXT UNIQUE,
  parameters    TEXT NOT NULL DEFAULT '{}',  -- JSON object: default parameters of instances started here
  created       TEXT NOT NULL,
  created_by    TEXT NOT NULL
);
CREATE INDEX workflow_contexts_definition ON workflow_contexts (definition_id);

-- Instances started through the Workflow API: the context they were started in, the caller's correlation id
-- and the parameters as sent (the action's own params hold what the job needs).
CREATE TABLE workflow_starts (
  action_id      TEXT PRIMARY KEY REFERENCES actions (id) ON DELETE CASCADE,
  context_id     INTEGER NOT NULL REFERENCES workflow_contexts (id),
  correlation_id TEXT,
  parameters     TEXT NOT NULL DEFAULT '[]'  -- JSON array of {key, value}
);
CREATE INDEX workflow_starts_context ON workflow_starts (context_id);
CREATE INDEX workflow_starts_correlation ON workflow_starts (correlation_id);

-- Ingest configurations (/api/process/ingest/configs).
CREATE TABLE ingest_configs (
  api_id       TEXT PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  description  TEXT NOT NULL DEFAULT '',
  type         TEXT NOT NULL,
  trigger_type TEXT NOT NULL,
  active       INTEGER NOT NULL,
  modified     TEXT NOT NULL,
  modified_by  TEXT NOT NULL
);

-- When each action item was recorded. Every handler records items through recordItems, which bumps the
-- action's done/failed counts and its updated date in the same transaction; the trigger stamps the items
-- that batch added with that date, so every kind of action, present and future, gets dated items without
-- knowing it. The partial index keeps the stamp cheap however many items an action has.
ALTER TABLE action_items ADD COLUMN recorded TEXT;
UPDATE action_items SET recorded = (SELECT coalesce(a.completed, a.updated) FROM actions a WHERE a.id = action_items.action_id);
CREATE INDEX action_items_unstamped ON action_items (action_id) WHERE recorded IS NULL;
CREATE TRIGGER action_items_stamp AFTER UPDATE OF done, failed ON actions
BEGIN
  UPDATE action_items SET recorded = NEW.updated WHERE action_id = NEW.id AND recorded IS NULL;
END;
CREATE INDEX actions_created ON actions (created);
-- Events a workflow instance recorded (an ingest's event names its package kind: the monitor's subcategory).
CREATE INDEX events_workflow_instance ON events (workflow_instance_id) WHERE workflow_instance_id IS NOT NULL;
CREATE INDEX actions_completed ON actions (completed) WHERE completed IS NOT NULL;
`;

/** Ingest configurations every store starts with. */
const INGEST_CONFIGS = [
  {
    apiId: "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a01",
    name: "Package upload",
    description:
      "Zip, OPEX and XIP packages uploaded to a folder (POST /api/entity/structural-objects/{ref}) or through the S3-compatible upload",
    type: "PACKAGE",
    trigger: "API",
    active: 1,
  },
  {
    apiId: "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a02",
    name: "OPEX incremental ingest",
    description:
      "OPEX packages dropped into a watched location, ingested as they arrive (a stored configuration: this service watches no location)",
    type: "OPEX",
    trigger: "MONITOR",
    active: 0,
  },
] as const;

function seed(db: Parameters<Migration["up"]>[0]): void {
  const def = db.prepare(
    `INSERT INTO workflow_definitions (id, text_id, name, description, type, action_kind, start_hint, created, created_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'system')`,
  );
  const ctx = db.prepare(
    `INSERT INTO workflow_contexts (id, definition_id, name, description, action_kind, created, created_by)
     VALUES (?, ?, ?, ?, ?, ?, 'system')`,
  );
  for (const b of BUILT_IN) {
    def.run(b.id, b.textId, b.name, b.description, b.type, b.kind, b.startHint, INSTALLED);
    ctx.run(b.id, b.id, b.name, b.description, b.kind, INSTALLED);
  }
  const cfg = db.prepare(
    `INSERT INTO ingest_configs (api_id, name, description, type, trigger_type, active, modified, modified_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'system')`,
  );
  for (const c of INGEST_CONFIGS)
    cfg.run(c.apiId, c.name, c.description, c.type, c.trigger, c.active, INSTALLED);
}

export const operations: Migration = {
  version: 3,
  name: "operations: workflow definitions and contexts, started instances, ingest configurations, dated action items",
  up: (db) => {
    db.exec(SCHEMA_3);
    seed(db);
  },
};
