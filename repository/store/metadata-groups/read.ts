import type { GroupInput, MetadataGroup } from "../../metadata-groups/definition.js";
import type { Db } from "../db.js";

/**
 * Reads of metadata groups and forms (kept as their JSON definitions), and the look-ups a metadata CSV
 * edit needs: the entity a row names, and the fragment of a group's schema it already has.
 */

interface GroupRow {
  id: string;
  name: string;
  schema_uri: string;
  definition: string;
}

function toGroup(r: GroupRow): MetadataGroup {
  const d = JSON.parse(r.definition) as GroupInput;
  return { id: r.id, name: r.name, description: d.description, schemaUri: r.schema_uri, fields: d.fields };
}

/** Every group, oldest first (the order they were created in). */
export function allGroups(db: Db): MetadataGroup[] {
  const rows = db
    .prepare("SELECT id, name, schema_uri, definition FROM metadata_groups ORDER BY created, id")
    .all() as GroupRow[];
  return rows.map(toGroup);
}

export function getGroup(db: Db, id: string): MetadataGroup | undefined {
  const r = db.prepare("SELECT id, name, schema_uri, definition FROM metadata_groups WHERE id = ?").get(id) as
    | GroupRow
    | undefined;
  return r ? toGroup(r) : undefined;
}

export function groupBySchemaUri(db: Db, schemaUri: string): MetadataGroup | undefined {
  const r = db
    .prepare("SELECT id, name, schema_uri, definition FROM metadata_groups WHERE schema_uri = ?")
    .get(schemaUri) as GroupRow | undefined;
  return r ? toGroup(r) : undefined;
}

/**
 * The group (other than `exceptId`) with this name (in any case) or, when `schemaUri` is given, with
 * that schema URI.
 */
export function clashingGroup(
  db: Db,
  name: string,
  schemaUri: string | null,
  exceptId: string | null,
): { id: string; name: string; schemaUri: string } | undefined {
  const r = db
    .prepare(
      `SELECT id, name, schema_uri FROM metadata_groups
       WHERE (lower(name) = lower(?) OR schema_uri = ?) AND id IS NOT ? LIMIT 1`,
    )
    .get(name, schemaUri, exceptId) as { id: string; name: string; schema_uri: string } | undefined;
  return r ? { id: r.id, name: r.name, schemaUri: r.schema_uri } : undefined;
}

export interface MetadataForm {
  id: string;
  title: string;
  schemaUri: string | null;
  /** The form as it was sent, with its id. */
  document: Record<string, unknown>;
}

interface FormRow {
  id: string;
  title: string;
  schema_uri: string | null;
  definition: string;
}

function toForm(r: FormRow): MetadataForm {
  const d = JSON.parse(r.definition) as Record<string, unknown>;
  return { id: r.id, title: r.title, schemaUri: r.schema_uri, document: { id: r.id, ...d } };
}

/** Forms oldest first, optionally only those of one schema. */
export function allForms(db: Db, schemaUri: string | null): MetadataForm[] {
  const rows = db
    .prepare(
      "SELECT id, title, schema_uri, definition FROM metadata_forms WHERE (? IS NULL OR schema_uri = ?) ORDER BY created, id",
    )
    .all(schemaUri, schemaUri) as FormRow[];
  return rows.map(toForm);
}

export function getForm(db: Db, id: string): MetadataForm | undefined {
  const r = db.prepare("SELECT id, title, schema_uri, definition FROM metadata_forms WHERE id = ?").get(id) as
    | FormRow
    | undefined;
  return r ? toForm(r) : undefined;
}

/** The id of another form with this title (titles name forms in clients, so they are unique). */
export function formWithTitle(db: Db, title: string, exceptId: string | null): string | undefined {
  const r = db
    .prepare("SELECT id FROM metadata_forms WHERE lower(title) = lower(?) AND id IS NOT ? LIMIT 1")
    .get(title, exceptId) as { id: string } | undefined;
  return r?.id;
}

/** What a CSV row's entity reference leads to (deleted entities are not found). */
export interface CsvTarget {
  ref: string;
  type: "SO" | "IO" | "CO";
  security_tag: string;
  /** Set while the entity is in the recycle bin. */
  deletion_id: string | null;
}

export function csvTarget(db: Db, ref: string): CsvTarget | undefined {
  return db
    .prepare("SELECT ref, type, security_tag, deletion_id FROM entities WHERE ref = ? AND deleted = 0")
    .get(ref) as CsvTarget | undefined;
}

/** The entity's first fragment of this schema (the one a CSV edit updates), if it has one. */
export function groupFragment(
  db: Db,
  entityRef: string,
  schemaUri: string,
): { mref: string; content: string } | undefined {
  return db
    .prepare(
      "SELECT mref, content FROM metadata_fragments WHERE entity_ref = ? AND schema_uri = ? ORDER BY id LIMIT 1",
    )
    .get(entityRef, schemaUri) as { mref: string; content: string } | undefined;
}

/** Item numbers (CSV rows) an action has already recorded: a resumed CSV edit skips them. */
export function recordedRows(db: Db, actionId: string): Set<number> {
  const rows = db.prepare("SELECT seq FROM action_items WHERE action_id = ?").all(actionId) as {
    seq: number;
  }[];
  return new Set(rows.map((r) => r.seq));
}
