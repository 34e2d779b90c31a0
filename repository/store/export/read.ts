import type { Db } from "../db.js";
import type { EntityType } from "../entities/types.js";
import { LIVE_SUBTREE } from "../structure/read.js";

/**
 * Reads an export needs: a whole live subtree with the columns a manifest shows, an entity's
 * ancestors, and each entity's metadata documents, identifiers, representations, generations,
 * bitstreams and events, as stored (no caller filtering: the export checks permissions on everything
 * it will write before it starts).
 */

export interface ExportEntity {
  ref: string;
  type: EntityType;
  title: string;
  description: string | null;
  security_tag: string;
  parent_ref: string | null;
}

const COLUMNS = "e.ref, e.type, e.title, e.description, e.security_tag, e.parent_ref";

/** The entity (live) and everything live below it, content objects included, in insertion order. */
export function subtree(db: Db, rootRef: string): ExportEntity[] {
  return db
    .prepare(
      `${LIVE_SUBTREE} SELECT ${COLUMNS} FROM sub CROSS JOIN entities e ON e.ref = sub.ref ORDER BY e.id`,
    )
    .all({ root: rootRef }) as ExportEntity[];
}

/** The folders above `ref`, top-most first (empty for a top-level entity). */
export function ancestors(db: Db, ref: string): ExportEntity[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE up(ref, depth) AS (
         SELECT parent_ref, 1 FROM entities WHERE ref = @ref AND parent_ref IS NOT NULL
         UNION ALL
         SELECT e.parent_ref, up.depth + 1 FROM entities e JOIN up ON e.ref = up.ref
          WHERE e.parent_ref IS NOT NULL AND up.depth < 1000
       ) SELECT ${COLUMNS}, up.depth FROM up JOIN entities e ON e.ref = up.ref ORDER BY up.depth DESC`,
    )
    .all({ ref }) as (ExportEntity & { depth: number })[];
  return rows.map(({ depth: _depth, ...e }) => e);
}

export interface ExportFragment {
  mref: string;
  schema_uri: string;
  content: string;
}

export function fragmentsWithContent(db: Db, ref: string): ExportFragment[] {
  return db
    .prepare("SELECT mref, schema_uri, content FROM metadata_fragments WHERE entity_ref = ? ORDER BY id")
    .all(ref) as ExportFragment[];
}

export function identifiersOf(db: Db, ref: string): { type: string; value: string }[] {
  return db.prepare("SELECT type, value FROM identifiers WHERE entity_ref = ? ORDER BY id").all(ref) as {
    type: string;
    value: string;
  }[];
}

export interface ExportRepresentation {
  id: number;
  type: string;
  name: string | null;
  idx: number;
}

/** Representations of an asset: Preservation ones first, then Access, each in number order. */
export function representationsOf(db: Db, ioRef: string): ExportRepresentation[] {
  return db
    .prepare(
      `SELECT id, type, name, idx FROM representations WHERE io_ref = ?
        ORDER BY CASE WHEN type = 'Preservation' COLLATE NOCASE THEN 0 ELSE 1 END, type, idx`,
    )
    .all(ioRef) as ExportRepresentation[];
}

/** Live content objects of a representation, in their order. */
export function representationContentObjects(
  db: Db,
  representationId: number,
): { ref: string; title: string; security_tag: string }[] {
  return db
    .prepare(
      `SELECT e.ref, e.title, e.security_tag FROM representation_objects ro JOIN entities e ON e.ref = ro.co_ref
        WHERE ro.representation_id = ? AND e.deleted = 0 ORDER BY ro.position`,
    )
    .all(representationId) as { ref: string; title: string; security_tag: string }[];
}

export interface ExportGeneration {
  id: number;
  idx: number;
  original: number;
  active: number;
}

export function generationsOf(db: Db, coRef: string): ExportGeneration[] {
  return db
    .prepare("SELECT id, idx, original, active FROM generations WHERE co_ref = ? ORDER BY idx")
    .all(coRef) as ExportGeneration[];
}

export interface ExportBitstream {
  id: number;
  idx: number;
  filename: string;
  size: number;
  content_sha256: string;
}

export function bitstreamsOfGeneration(db: Db, generationId: number): ExportBitstream[] {
  return db
    .prepare(
      "SELECT id, idx, filename, size, content_sha256 FROM bitstreams WHERE generation_id = ? ORDER BY idx",
    )
    .all(generationId) as ExportBitstream[];
}

export interface ExportEvent {
  entity_ref: string;
  type: string;
  date: string;
  username: string;
  command_type: string;
  detail: string | null;
}

/** What happened to these entities (event actions with their events), oldest first. */
export function eventsOf(db: Db, refs: readonly string[]): ExportEvent[] {
  if (refs.length === 0) return [];
  return db
    .prepare(
      `SELECT ea.entity_ref, ev.type, ea.date, ev.username, ea.command_type, ea.serialised_command AS detail
         FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
        WHERE ea.entity_ref IN (SELECT value FROM json_each(?)) ORDER BY ea.date, ea.id`,
    )
    .all(JSON.stringify(refs)) as ExportEvent[];
}
