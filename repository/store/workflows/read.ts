import type { ActionRow } from "../actions/read.js";
import type { Db } from "../db.js";

/**
 * Reads of the Workflow API's records: definitions, contexts, and workflow instances, which are the
 * service's actions seen through their context. An action's context is the one it was started in
 * (Workflow API starts), else the context of its kind, else the catch-all context (`*`); its type is
 * its definition's. Process monitors (store/monitor/read.ts) are the same rows.
 */

export interface DefinitionRow {
  id: number;
  text_id: string;
  name: string;
  description: string;
  type: string;
  action_kind: string | null;
  start_hint: string | null;
  document: string | null;
  created: string;
  created_by: string;
}

export interface ContextRow {
  id: number;
  definition_id: number;
  name: string;
  description: string;
  action_kind: string | null;
  parameters: string;
  created: string;
  created_by: string;
  /** Joined from the definition. */
  definition_text_id: string;
  type: string;
  definition_kind: string | null;
  start_hint: string | null;
}

/** An action with what the Workflow API and the monitor show of it. */
export interface InstanceRow extends ActionRow {
  context_id: number;
  context_name: string;
  definition_text_id: string;
  workflow_type: string;
  correlation_id: string | null;
  start_parameters: string | null;
  category: string;
  subcategory: string;
  /** Bytes the action handled, when its parameters say (package size, bytes read). */
  bytes: number;
}

export function definitions(db: Db, type: string | null): DefinitionRow[] {
  return db
    .prepare("SELECT * FROM workflow_definitions WHERE (@type IS NULL OR type = @type) ORDER BY id")
    .all({ type }) as DefinitionRow[];
}

/** A definition by numeric id or text id. */
export function findDefinition(db: Db, idOrTextId: string): DefinitionRow | undefined {
  const byId = /^\d{1,9}$/.test(idOrTextId);
  return db
    .prepare(`SELECT * FROM workflow_definitions WHERE ${byId ? "id = ?" : "text_id = ?"}`)
    .get(byId ? Number(idOrTextId) : idOrTextId) as DefinitionRow | undefined;
}

const CONTEXTS = `SELECT c.*, d.text_id AS definition_text_id, d.type, d.action_kind AS definition_kind, d.start_hint
  FROM workflow_contexts c JOIN workflow_definitions d ON d.id = c.definition_id`;

export function contexts(
  db: Db,
  filter: { type?: string | null; definitionId?: number | null },
): ContextRow[] {
  return db
    .prepare(
      `${CONTEXTS} WHERE (@type IS NULL OR d.type = @type) AND (@def IS NULL OR d.id = @def) ORDER BY c.id`,
    )
    .all({ type: filter.type ?? null, def: filter.definitionId ?? null }) as ContextRow[];
}

export function findContext(db: Db, id: number): ContextRow | undefined {
  return db.prepare(`${CONTEXTS} WHERE c.id = ?`).get(id) as ContextRow | undefined;
}

export function contextByName(db: Db, name: string): ContextRow | undefined {
  return db.prepare(`${CONTEXTS} WHERE c.name = ?`).get(name) as ContextRow | undefined;
}

/**
 * Monitor sub-category: OPEX for ingests of OPEX packages. Read from the ingest's parameters
 * (`packageKind`: zip, opex or xip) when it records the kind there, else from the Ingest event it
 * recorded (its workflow name names the package kind, and its workflow instance id is the action's id).
 */
const SUBCATEGORY = `CASE WHEN d.type <> 'Ingest' THEN ''
  WHEN json_valid(a.params) AND lower(coalesce(json_extract(a.params, '$.packageKind'), '')) = 'opex' THEN 'OPEX'
  WHEN EXISTS (SELECT 1 FROM events ev WHERE ev.workflow_instance_id = a.id
    AND ev.workflow_name LIKE '%OPEX%') THEN 'OPEX'
  ELSE '' END`;

/** Bytes an action handled, from its parameters: a package's size, or bytes read by an integrity check. */
const BYTES = `CASE WHEN json_valid(a.params) THEN coalesce(
    json_extract(a.params, '$.size'), json_extract(a.params, '$.packageSize'), json_extract(a.params, '$.bytes'), 0)
  ELSE 0 END`;

/** Every action as a workflow instance / monitor; filtered by the statements below. */
export const INSTANCES = `WITH inst AS (
  SELECT a.*, c.id AS context_id, c.name AS context_name, d.text_id AS definition_text_id,
    d.type AS workflow_type, s.correlation_id, s.parameters AS start_parameters,
    CASE WHEN a.username = 'system' THEN 'Automated' WHEN d.type = 'Ingest' THEN 'Ingest'
      WHEN d.type = 'Access' THEN 'Export' ELSE 'DataManagement' END AS category,
    ${SUBCATEGORY} AS subcategory,
    CAST(${BYTES} AS INTEGER) AS bytes
  FROM actions a
  LEFT JOIN workflow_starts s ON s.action_id = a.id
  JOIN workflow_contexts c ON c.id = coalesce(s.context_id,
    (SELECT k.id FROM workflow_contexts k WHERE k.action_kind = a.kind),
    (SELECT k.id FROM workflow_contexts k WHERE k.action_kind = '*'))
  JOIN workflow_definitions d ON d.id = c.definition_id
)`;

export interface InstanceFilter {
  /** Workflow type of the definition. */
  type?: string | null;
  /** Action statuses (any of). */
  statuses?: readonly string[] | null;
  contextId?: number | null;
  creator?: string | null;
  /** Started at or after / at or before (UTC ISO). */
  from?: string | null;
  to?: string | null;
  /** Only this user's instances (callers who are neither manager nor administrator). */
  owner?: string | null;
  category?: string | null;
  subcategory?: string | null;
  /** Action kind (human tasks are deletions awaiting approval). */
  kind?: string | null;
}

const WHERE = `WHERE (@type IS NULL OR workflow_type = @type)
  AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))
  AND (@contextId IS NULL OR context_id = @contextId)
  AND (@creator IS NULL OR username = @creator)
  AND (@from IS NULL OR created >= @from) AND (@to IS NULL OR created <= @to)
  AND (@owner IS NULL OR username = @owner)
  AND (@category IS NULL OR category = @category)
  AND (@subcategory IS NULL OR subcategory = @subcategory)
  AND (@kind IS NULL OR kind = @kind)`;

function filterParams(f: InstanceFilter) {
  return {
    type: f.type ?? null,
    statuses: f.statuses ? JSON.stringify(f.statuses) : null,
    contextId: f.contextId ?? null,
    creator: f.creator ?? null,
    from: f.from ?? null,
    to: f.to ?? null,
    owner: f.owner ?? null,
    category: f.category ?? null,
    subcategory: f.subcategory ?? null,
    kind: f.kind ?? null,
  };
}

/**
 * Instances matching the filter with the total, ordered by id: oldest first (`newestFirst` false), so
 * instances started while a client pages land on later pages instead of shifting the ones it reads.
 */
export function instancesPage(
  db: Db,
  filter: InstanceFilter,
  start: number,
  max: number,
  newestFirst = false,
): { items: InstanceRow[]; total: number } {
  const params = filterParams(filter);
  const items = db
    .prepare(
      `${INSTANCES} SELECT * FROM inst ${WHERE} ORDER BY seq ${newestFirst ? "DESC" : "ASC"} LIMIT @max OFFSET @start`,
    )
    .all({ ...params, start, max }) as InstanceRow[];
  const { n } = db.prepare(`${INSTANCES} SELECT count(*) AS n FROM inst ${WHERE}`).get(params) as {
    n: number;
  };
  return { items, total: n };
}

export function findInstance(db: Db, seq: number): InstanceRow | undefined {
  return db.prepare(`${INSTANCES} SELECT * FROM inst WHERE seq = ?`).get(seq) as InstanceRow | undefined;
}

export function findInstanceByAction(db: Db, actionId: string): InstanceRow | undefined {
  return db.prepare(`${INSTANCES} SELECT * FROM inst WHERE id = ?`).get(actionId) as InstanceRow | undefined;
}

/** How many items of an action were skipped (they count as done in `actions.done`). */
export function skippedCount(db: Db, actionId: string): number {
  return (
    db
      .prepare("SELECT count(*) AS n FROM action_items WHERE action_id = ? AND outcome = 'skipped'")
      .get(actionId) as { n: number }
  ).n;
}
