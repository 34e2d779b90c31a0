import type { Db } from "../db.js";

/** Writes of the Workflow API's own records: uploaded definitions, new contexts, started instances. */

export interface NewDefinition {
  textId: string;
  name: string;
  description: string;
  type: string;
  document: string;
  createdBy: string;
}

/** Stores an uploaded definition (runs nothing: no engine here executes uploaded definitions). */
export function insertDefinition(db: Db, d: NewDefinition, now: string): number {
  const r = db
    .prepare(
      `INSERT INTO workflow_definitions (text_id, name, description, type, action_kind, start_hint, document, created, created_by)
       VALUES (?, ?, ?, ?, NULL, NULL, ?, ?, ?)`,
    )
    .run(d.textId, d.name, d.description, d.type, d.document, now, d.createdBy);
  return Number(r.lastInsertRowid);
}

export interface NewContext {
  definitionId: number;
  name: string;
  description: string;
  /** Default parameters of instances started in this context. */
  parameters: Record<string, string>;
  createdBy: string;
}

export function insertContext(db: Db, c: NewContext, now: string): number {
  const r = db
    .prepare(
      `INSERT INTO workflow_contexts (definition_id, name, description, action_kind, parameters, created, created_by)
       VALUES (?, ?, ?, NULL, ?, ?, ?)`,
    )
    .run(c.definitionId, c.name, c.description, JSON.stringify(c.parameters), now, c.createdBy);
  return Number(r.lastInsertRowid);
}

export interface Parameter {
  key: string;
  value: string;
}

/** Records the context, correlation id and parameters of an instance started through the Workflow API. */
export function recordStart(
  db: Db,
  actionId: string,
  contextId: number,
  correlationId: string | null,
  parameters: readonly Parameter[],
): void {
  db.prepare(
    "INSERT INTO workflow_starts (action_id, context_id, correlation_id, parameters) VALUES (?, ?, ?, ?)",
  ).run(actionId, contextId, correlationId, JSON.stringify(parameters));
}
