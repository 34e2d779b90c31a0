import { randomUUID } from "node:crypto";
import { indexDublinCore } from "../../search/dublin-core.js";
import { walkXml } from "../../search/xml.js";
import type { StoredBlob } from "../content-store.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import { getEntity, getEntityById } from "./read.js";
import type { EntityRow, EntityType } from "./types.js";

/**
 * Writes of the entity graph (what they look up first is in read.ts, the row types in types.ts). Every
 * write that changes searchable text calls `reindexEntity`, so the FTS table never drifts from the
 * entities it describes.
 */

export interface NewEntity {
  ref?: string;
  type: EntityType;
  title: string;
  description?: string | null;
  securityTag: string;
  customType?: string | null;
  parentRef?: string | null;
  /** ISO 8601; defaults to now. */
  created?: string;
}

export function insertEntity(db: Db, e: NewEntity): EntityRow {
  const now = e.created ?? new Date().toISOString();
  const ref = e.ref ?? randomUUID();
  const info = prepared(
    db,
    `INSERT INTO entities (ref, type, title, description, security_tag, custom_type, parent_ref, created, modified)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    ref,
    e.type,
    e.title,
    e.description ?? null,
    e.securityTag,
    e.customType ?? null,
    e.parentRef ?? null,
    now,
    now,
  );
  const id = Number(info.lastInsertRowid);
  prepared(db, "INSERT INTO entity_fts (rowid, title, description, metadata) VALUES (?, ?, ?, '')").run(
    id,
    e.title,
    e.description ?? "",
  );
  return getEntityById(db, id) as EntityRow;
}

/**
 * The words of one stored metadata document for the full-text index: the text of its elements with
 * character references decoded and CDATA included (`caf&#233;` is found as café, `&amp;` is no word).
 * A stored text that is not XML is indexed with anything tag-like removed.
 */
function documentText(content: string): string {
  const parts: string[] = [];
  walkXml(content, (el) => {
    if (el.text) parts.push(el.text);
  });
  if (parts.length > 0) return parts.join(" ");
  return content
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Text of all metadata fragments of an entity, for the full-text index. */
function metadataText(db: Db, ref: string): string {
  const rows = prepared(db, "SELECT content FROM metadata_fragments WHERE entity_ref = ?").all(ref) as {
    content: string;
  }[];
  return rows.map((r) => documentText(r.content)).join(" ");
}

export function reindexEntity(db: Db, ref: string): void {
  const e = prepared(db, "SELECT * FROM entities WHERE ref = ?").get(ref) as EntityRow | undefined;
  if (!e) return;
  // An update, not delete + insert: the row's file_text (search/file-text.ts) stays as it was.
  const text = [e.title, e.description ?? "", metadataText(db, ref), e.id] as const;
  const updated = prepared(
    db,
    "UPDATE entity_fts SET title = ?, description = ?, metadata = ? WHERE rowid = ?",
  ).run(...text);
  if (updated.changes === 0) {
    prepared(db, "INSERT INTO entity_fts (title, description, metadata, rowid) VALUES (?, ?, ?, ?)").run(
      ...text,
    );
  }
  indexDublinCore(db, ref);
}

/** `opts` lets a deterministic seed fix the fragment ref and dates; both default to fresh values. */
export function addFragment(
  db: Db,
  entityRef: string,
  schemaUri: string,
  content: string,
  opts: { mref?: string; date?: string } = {},
): string {
  const mref = opts.mref ?? randomUUID();
  const now = opts.date ?? new Date().toISOString();
  prepared(
    db,
    "INSERT INTO metadata_fragments (mref, entity_ref, schema_uri, content, created, modified) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(mref, entityRef, schemaUri, content, now, now);
  reindexEntity(db, entityRef);
  return mref;
}

export function addIdentifier(
  db: Db,
  entityRef: string,
  type: string,
  value: string,
  apiId?: string,
): string {
  apiId ??= randomUUID().replaceAll("-", "");
  prepared(db, "INSERT INTO identifiers (api_id, entity_ref, type, value) VALUES (?, ?, ?, ?)").run(
    apiId,
    entityRef,
    type,
    value,
  );
  return apiId;
}

export function addLink(db: Db, linkType: string, fromRef: string, toRef: string, apiId?: string): string {
  apiId ??= randomUUID().replaceAll("-", "");
  prepared(db, "INSERT INTO links (api_id, link_type, from_ref, to_ref) VALUES (?, ?, ?, ?)").run(
    apiId,
    linkType,
    fromRef,
    toRef,
  );
  return apiId;
}

/** Adds representation number N+1 of `type` to an IO, holding the given COs in order. */
export function addRepresentation(
  db: Db,
  ioRef: string,
  type: "Preservation" | "Access" | "Physical",
  name: string | null,
  coRefs: string[],
): number {
  const { n, total } = prepared(
    db,
    "SELECT coalesce(max(CASE WHEN type = ? THEN idx END), 0) AS n, count(*) AS total FROM representations WHERE io_ref = ?",
  ).get(type, ioRef) as { n: number; total: number };
  // Unnamed, a representation is named as the real service names it: its type and its place among all
  // the asset's representations (Preservation-1, then Access-2), an address as good as {type}/{n}.
  const info = prepared(db, "INSERT INTO representations (io_ref, type, name, idx) VALUES (?, ?, ?, ?)").run(
    ioRef,
    type,
    name ?? `${type}-${total + 1}`,
    n + 1,
  );
  const repId = Number(info.lastInsertRowid);
  const ins = prepared(
    db,
    "INSERT INTO representation_objects (representation_id, co_ref, position) VALUES (?, ?, ?)",
  );
  coRefs.forEach((co, i) => {
    ins.run(repId, co, i + 1);
  });
  return n + 1;
}

export interface NewGeneration {
  original?: boolean;
  active?: boolean;
  label?: string | null;
  formatGroup?: string | null;
  effectiveDate?: string | null;
  formatPuid?: string | null;
  formatName?: string | null;
  formatVersion?: string | null;
}

/** Adds generation N+1 to a CO; returns its row id. */
export function addGeneration(db: Db, coRef: string, g: NewGeneration): number {
  const { n } = prepared(db, "SELECT coalesce(max(idx), 0) AS n FROM generations WHERE co_ref = ?").get(
    coRef,
  ) as { n: number };
  const info = prepared(
    db,
    `INSERT INTO generations (co_ref, idx, original, active, label, format_group, effective_date, format_puid, format_name, format_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    coRef,
    n + 1,
    g.original === false ? 0 : 1,
    g.active === false ? 0 : 1,
    g.label ?? null,
    g.formatGroup ?? null,
    g.effectiveDate ?? null,
    g.formatPuid ?? null,
    g.formatName ?? null,
    g.formatVersion ?? null,
  );
  return Number(info.lastInsertRowid);
}

/** Adds bitstream N+1 to a generation, recording all four fixities of the stored blob. */
export function addBitstream(
  db: Db,
  generationId: number,
  b: { filename: string; originalName?: string | null; mimeType: string; blob: StoredBlob },
): number {
  const { n } = prepared(db, "SELECT coalesce(max(idx), 0) AS n FROM bitstreams WHERE generation_id = ?").get(
    generationId,
  ) as { n: number };
  const info = prepared(
    db,
    `INSERT INTO bitstreams (generation_id, idx, filename, original_name, size, mime_type, content_sha256)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    generationId,
    n + 1,
    b.filename,
    b.originalName ?? b.filename,
    b.blob.size,
    b.mimeType,
    b.blob.sha256,
  );
  const id = Number(info.lastInsertRowid);
  const fix = prepared(db, "INSERT INTO fixities (bitstream_id, algorithm, value) VALUES (?, ?, ?)");
  for (const [alg, value] of Object.entries(b.blob.fixity)) fix.run(id, alg, value);
  return id;
}

export interface NewEvent {
  /** Event ref; defaults to a fresh UUID (the seed passes fixed ones). */
  ref?: string;
  type: string;
  date?: string;
  username: string;
  workflowName?: string | null;
  workflowInstanceId?: string | null;
  actions: { entityRef: string; commandType: string; serialisedCommand?: string | null }[];
}

/** Records an event and its actions (one event may act on several entities). Returns the event ref. */
export function addEvent(db: Db, e: NewEvent): string {
  const ref = e.ref ?? randomUUID();
  const date = e.date ?? new Date().toISOString();
  const info = prepared(
    db,
    "INSERT INTO events (ref, type, date, username, workflow_name, workflow_instance_id) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(ref, e.type, date, e.username, e.workflowName ?? null, e.workflowInstanceId ?? null);
  const eventId = Number(info.lastInsertRowid);
  const ins = prepared(
    db,
    "INSERT INTO event_actions (event_id, entity_ref, command_type, date, serialised_command) VALUES (?, ?, ?, ?, ?)",
  );
  for (const a of e.actions) ins.run(eventId, a.entityRef, a.commandType, date, a.serialisedCommand ?? null);
  return ref;
}

// ---------------------------------------------------------------------------------------------------
// Edits through the Entity API (routes/entity-writes.ts): entity fields, identifiers, links.

export interface EntityFieldChanges {
  title?: string;
  /** null clears it. */
  description?: string | null;
  /** null clears it. */
  customType?: string | null;
}

/**
 * Sets the given fields of a live entity (absent ones stay) and reindexes it, so search and facets see
 * the new title at once. Returns the names of the fields whose value changed.
 */
export function updateEntityFields(db: Db, ref: string, changes: EntityFieldChanges): string[] {
  const e = getEntity(db, ref);
  if (!e) return [];
  const next = {
    title: changes.title ?? e.title,
    description: changes.description === undefined ? e.description : changes.description,
    custom_type: changes.customType === undefined ? e.custom_type : changes.customType,
  };
  const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== e[k]);
  if (changed.length === 0) return [];
  prepared(db, "UPDATE entities SET title = ?, description = ?, custom_type = ? WHERE id = ?").run(
    next.title,
    next.description,
    next.custom_type,
    e.id,
  );
  reindexEntity(db, ref);
  return changed;
}

/** Returns false when there is no such identifier. */
export function updateIdentifier(db: Db, apiId: string, type: string, value: string): boolean {
  return (
    prepared(db, "UPDATE identifiers SET type = ?, value = ? WHERE api_id = ?").run(type, value, apiId)
      .changes > 0
  );
}

/** Returns false when there is no such identifier. */
export function deleteIdentifier(db: Db, apiId: string): boolean {
  return prepared(db, "DELETE FROM identifiers WHERE api_id = ?").run(apiId).changes > 0;
}

/** Returns false when there is no such link. */
export function deleteLink(db: Db, apiId: string): boolean {
  return prepared(db, "DELETE FROM links WHERE api_id = ?").run(apiId).changes > 0;
}
