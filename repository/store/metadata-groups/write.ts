import { randomUUID } from "node:crypto";
import type { FormInput, GroupInput } from "../../metadata-groups/definition.js";
import type { Db } from "../db.js";

/**
 * Writes of metadata groups and forms. The name and schema URI of a group have their own (unique)
 * columns; the rest of the definition is kept as JSON. A group's schema URI is fixed when it is created:
 * documents already written in that namespace must stay its documents when the group is renamed.
 */

/** Ids in the service's style: 32 hex digits. */
function newId(): string {
  return randomUUID().replaceAll("-", "");
}

function groupDefinition(g: GroupInput): string {
  return JSON.stringify({ name: g.name, description: g.description, fields: g.fields });
}

/** Creates a group; returns its id (a fresh one unless the demo seed gives its fixed id). */
export function insertGroup(
  db: Db,
  g: GroupInput,
  schemaUri: string,
  now: string,
  id: string = newId(),
): string {
  db.prepare(
    "INSERT INTO metadata_groups (id, name, schema_uri, definition, created, modified) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(id, g.name, schemaUri, groupDefinition(g), now, now);
  return id;
}

/** Replaces name, description and fields; the schema URI stays. False when there is no such group. */
export function replaceGroup(db: Db, id: string, g: GroupInput, now: string): boolean {
  const info = db
    .prepare("UPDATE metadata_groups SET name = ?, definition = ?, modified = ? WHERE id = ?")
    .run(g.name, groupDefinition(g), now, id);
  return info.changes > 0;
}

export function deleteGroup(db: Db, id: string): boolean {
  return db.prepare("DELETE FROM metadata_groups WHERE id = ?").run(id).changes > 0;
}

export function insertForm(db: Db, f: FormInput, now: string): string {
  const id = newId();
  db.prepare(
    "INSERT INTO metadata_forms (id, title, schema_uri, definition, created, modified) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(id, f.title, f.schemaUri, JSON.stringify(f.definition), now, now);
  return id;
}

export function replaceForm(db: Db, id: string, f: FormInput, now: string): boolean {
  const info = db
    .prepare("UPDATE metadata_forms SET title = ?, schema_uri = ?, definition = ?, modified = ? WHERE id = ?")
    .run(f.title, f.schemaUri, JSON.stringify(f.definition), now, id);
  return info.changes > 0;
}

export function deleteForm(db: Db, id: string): boolean {
  return db.prepare("DELETE FROM metadata_forms WHERE id = ?").run(id).changes > 0;
}
