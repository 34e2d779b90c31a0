import type { Db } from "../db.js";
import { type Page, pageOf, prepared } from "../statements.js";
import type {
  BitstreamRecord,
  EntityRecord,
  EntityRow,
  EntitySummary,
  EventActionRecord,
  EventRecord,
  FixityRecord,
  FragmentRecord,
  FragmentSummary,
  GenerationRecord,
  IdentifierRecord,
  LinkRecord,
  LinkRow,
  RepresentationRecord,
  RepresentationSummary,
} from "./types.js";

/**
 * Reads of the entity graph: the queries behind the Entity API and the look-ups writes make first.
 * Statements are prepared once per database (store/statements.ts) because entity GETs are the service's
 * hot path. Every list that shows entities takes the caller's readable security tags as a JSON array
 * (`tags`), so one prepared statement serves any set of tags and the totals count only what the caller
 * may see.
 */

export interface EventFilter {
  /** JSON array of event types, or null for any. */
  types: string | null;
  from: string | null;
  to: string | null;
  username: string | null;
}

/** Readable entities: live, and carrying one of the caller's readable tags. */
const READABLE = "e.deleted = 0 AND e.security_tag IN (SELECT value FROM json_each(@tags))";

const LINKS_UNION = `
  SELECT l.id, l.api_id, l.link_type, 'From' AS direction, e.ref AS other_ref, e.type AS other_type, e.title AS other_title
    FROM links l JOIN entities e ON e.ref = l.to_ref
   WHERE l.from_ref = @ref AND ${READABLE}
  UNION ALL
  SELECT l.id, l.api_id, l.link_type, 'To' AS direction, e.ref, e.type, e.title
    FROM links l JOIN entities e ON e.ref = l.from_ref
   WHERE l.to_ref = @ref AND ${READABLE}`;

const EVENT_ACTION_COLUMNS = `ea.command_type, ea.date AS action_date, ea.entity_ref, ea.serialised_command,
  ev.ref AS event_ref, ev.type AS event_type, ev.date AS event_date, ev.username, ev.workflow_name,
  ev.workflow_instance_id`;

const EVENT_FILTER = `(@types IS NULL OR ev.type IN (SELECT value FROM json_each(@types)))
  AND (@from IS NULL OR ev.date >= @from) AND (@to IS NULL OR ev.date <= @to)
  AND (@username IS NULL OR ev.username = @username)
  AND EXISTS (SELECT 1 FROM event_actions ea JOIN entities e ON e.ref = ea.entity_ref
               WHERE ea.event_id = ev.id AND e.security_tag IN (SELECT value FROM json_each(@tags)))`;

const UPDATED_FILTER = `${READABLE} AND e.modified >= @since AND (@until IS NULL OR e.modified <= @until)`;

const BY_IDENTIFIER_FILTER = `${READABLE} AND EXISTS (SELECT 1 FROM identifiers i WHERE i.entity_ref = e.ref
  AND i.value = @value AND (@type IS NULL OR i.type = @type))`;

/** The statements' SQL by name; `prepared` (store/statements.ts) prepares each once per database. */
const SQL = {
  entity:
    "SELECT id, ref, type, title, description, security_tag, custom_type, parent_ref, modified FROM entities WHERE ref = ? AND deleted = 0",
  fragmentsOf: "SELECT mref, schema_uri FROM metadata_fragments WHERE entity_ref = ? ORDER BY id",
  fragmentsPage:
    "SELECT mref, schema_uri FROM metadata_fragments WHERE entity_ref = @ref ORDER BY id LIMIT @max OFFSET @start",
  fragmentsCount: "SELECT count(*) AS n FROM metadata_fragments WHERE entity_ref = @ref",
  fragment: "SELECT mref, entity_ref, schema_uri, content FROM metadata_fragments WHERE mref = ?",

  childrenPage: `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e
        WHERE e.parent_ref = @parent AND e.type IN ('SO','IO') AND ${READABLE} ORDER BY e.id LIMIT @max OFFSET @start`,
  childrenCount: `SELECT count(*) AS n FROM entities e WHERE e.parent_ref = @parent AND e.type IN ('SO','IO') AND ${READABLE}`,
  rootPage: `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e
        WHERE e.parent_ref IS NULL AND e.type IN ('SO','IO') AND ${READABLE} ORDER BY e.id LIMIT @max OFFSET @start`,
  rootCount: `SELECT count(*) AS n FROM entities e WHERE e.parent_ref IS NULL AND e.type IN ('SO','IO') AND ${READABLE}`,

  identifiersPage:
    "SELECT api_id, entity_ref, type, value FROM identifiers WHERE entity_ref = @ref ORDER BY id LIMIT @max OFFSET @start",
  identifiersCount: "SELECT count(*) AS n FROM identifiers WHERE entity_ref = @ref",

  linksPage: `SELECT * FROM (${LINKS_UNION}) ORDER BY id, direction LIMIT @max OFFSET @start`,
  linksCount: `SELECT count(*) AS n FROM (${LINKS_UNION})`,

  representationsPage:
    "SELECT type, name, idx FROM representations WHERE io_ref = @ref ORDER BY type, idx LIMIT @max OFFSET @start",
  representationsCount: "SELECT count(*) AS n FROM representations WHERE io_ref = @ref",
  representation:
    "SELECT id, io_ref, type, name, idx FROM representations WHERE io_ref = ? AND type = ? COLLATE NOCASE AND idx = ?",
  representationNamed:
    "SELECT id, io_ref, type, name, idx FROM representations WHERE io_ref = ? AND name = ? COLLATE NOCASE ORDER BY id LIMIT 1",
  representationObjects: `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM representation_objects ro
         JOIN entities e ON e.ref = ro.co_ref
        WHERE ro.representation_id = @rep AND ${READABLE} ORDER BY ro.position`,

  generationsPage:
    "SELECT idx, active FROM generations WHERE co_ref = @ref ORDER BY idx LIMIT @max OFFSET @start",
  generationsCount: "SELECT count(*) AS n FROM generations WHERE co_ref = @ref",
  generation: "SELECT * FROM generations WHERE co_ref = ? AND idx = ?",
  bitstreamsOf: "SELECT * FROM bitstreams WHERE generation_id = ? ORDER BY idx",
  bitstream: "SELECT * FROM bitstreams WHERE generation_id = ? AND idx = ?",
  fixities: `SELECT algorithm, value FROM fixities WHERE bitstream_id = ?
        ORDER BY CASE algorithm WHEN 'MD5' THEN 1 WHEN 'SHA1' THEN 2 WHEN 'SHA256' THEN 3 WHEN 'SHA512' THEN 4 ELSE 5 END, algorithm`,

  entityActionsPage: `SELECT ${EVENT_ACTION_COLUMNS} FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
        WHERE ea.entity_ref = @ref ORDER BY ea.id LIMIT @max OFFSET @start`,
  entityActionsCount: "SELECT count(*) AS n FROM event_actions WHERE entity_ref = @ref",

  event: "SELECT * FROM events WHERE ref = ?",
  eventsPage: `SELECT ev.* FROM events ev WHERE ${EVENT_FILTER} ORDER BY ev.date, ev.id LIMIT @max OFFSET @start`,
  eventsCount: `SELECT count(*) AS n FROM events ev WHERE ${EVENT_FILTER}`,
  eventActionsPage: `SELECT ${EVENT_ACTION_COLUMNS} FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
         JOIN entities e ON e.ref = ea.entity_ref
        WHERE ea.event_id = @event AND e.security_tag IN (SELECT value FROM json_each(@tags))
        ORDER BY ea.id LIMIT @max OFFSET @start`,
  eventActionsCount: `SELECT count(*) AS n FROM event_actions ea JOIN entities e ON e.ref = ea.entity_ref
        WHERE ea.event_id = @event AND e.security_tag IN (SELECT value FROM json_each(@tags))`,

  updatedPage: `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e WHERE ${UPDATED_FILTER}
        ORDER BY e.modified, e.id LIMIT @max OFFSET @start`,
  updatedCount: `SELECT count(*) AS n FROM entities e WHERE ${UPDATED_FILTER}`,

  byIdentifierPage: `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e WHERE ${BY_IDENTIFIER_FILTER}
        ORDER BY e.id LIMIT @max OFFSET @start`,
  byIdentifierCount: `SELECT count(*) AS n FROM entities e WHERE ${BY_IDENTIFIER_FILTER}`,
};

/** The caller's readable tags in the form the statements take. */
export function tagsParam(tags: readonly string[]): string {
  return JSON.stringify(tags);
}

export function findEntity(db: Db, ref: string): EntityRecord | undefined {
  return prepared(db, SQL.entity).get(ref) as EntityRecord | undefined;
}

export function fragmentsOf(db: Db, ref: string): FragmentSummary[] {
  return prepared(db, SQL.fragmentsOf).all(ref) as FragmentSummary[];
}

export function fragmentsPage(db: Db, ref: string, start: number, max: number): Page<FragmentSummary> {
  return pageOf(db, SQL.fragmentsPage, SQL.fragmentsCount, { ref }, start, max);
}

export function findFragment(db: Db, mref: string): FragmentRecord | undefined {
  return prepared(db, SQL.fragment).get(mref) as FragmentRecord | undefined;
}

/** Readable folders and assets under `parent` (null = the top level). */
export function childrenPage(
  db: Db,
  parent: string | null,
  tags: string,
  start: number,
  max: number,
): Page<EntitySummary> {
  if (parent === null) return pageOf(db, SQL.rootPage, SQL.rootCount, { tags }, start, max);
  return pageOf(db, SQL.childrenPage, SQL.childrenCount, { parent, tags }, start, max);
}

export function identifiersPage(db: Db, ref: string, start: number, max: number): Page<IdentifierRecord> {
  return pageOf(db, SQL.identifiersPage, SQL.identifiersCount, { ref }, start, max);
}

/** Links from and to `ref` whose other end the caller may read. */
export function linksPage(db: Db, ref: string, tags: string, start: number, max: number): Page<LinkRecord> {
  return pageOf(db, SQL.linksPage, SQL.linksCount, { ref, tags }, start, max);
}

export function representationsPage(
  db: Db,
  ioRef: string,
  start: number,
  max: number,
): Page<RepresentationSummary> {
  return pageOf(db, SQL.representationsPage, SQL.representationsCount, { ref: ioRef }, start, max);
}

export function findRepresentation(
  db: Db,
  ioRef: string,
  type: string,
  idx: number,
): RepresentationRecord | undefined {
  return prepared(db, SQL.representation).get(ioRef, type, idx) as RepresentationRecord | undefined;
}

/** The asset's representation named `name` (case-insensitive), as in `…/representations/Access-2`. */
export function findRepresentationNamed(
  db: Db,
  ioRef: string,
  name: string,
): RepresentationRecord | undefined {
  return prepared(db, SQL.representationNamed).get(ioRef, name) as RepresentationRecord | undefined;
}

export function representationObjects(db: Db, representationId: number, tags: string): EntitySummary[] {
  return prepared(db, SQL.representationObjects).all({ rep: representationId, tags }) as EntitySummary[];
}

export function generationsPage(
  db: Db,
  coRef: string,
  start: number,
  max: number,
): Page<{ idx: number; active: number }> {
  return pageOf(db, SQL.generationsPage, SQL.generationsCount, { ref: coRef }, start, max);
}

export function findGeneration(db: Db, coRef: string, idx: number): GenerationRecord | undefined {
  return prepared(db, SQL.generation).get(coRef, idx) as GenerationRecord | undefined;
}

export function bitstreamsOf(db: Db, generationId: number): BitstreamRecord[] {
  return prepared(db, SQL.bitstreamsOf).all(generationId) as BitstreamRecord[];
}

export function findBitstream(db: Db, generationId: number, idx: number): BitstreamRecord | undefined {
  return prepared(db, SQL.bitstream).get(generationId, idx) as BitstreamRecord | undefined;
}

export function fixitiesOf(db: Db, bitstreamId: number): FixityRecord[] {
  return prepared(db, SQL.fixities).all(bitstreamId) as FixityRecord[];
}

export function entityActionsPage(db: Db, ref: string, start: number, max: number): Page<EventActionRecord> {
  return pageOf(db, SQL.entityActionsPage, SQL.entityActionsCount, { ref }, start, max);
}

export function findEvent(db: Db, ref: string): EventRecord | undefined {
  return prepared(db, SQL.event).get(ref) as EventRecord | undefined;
}

/** Events matching the filter that acted on at least one entity the caller may read. */
export function eventsPage(
  db: Db,
  filter: EventFilter,
  tags: string,
  start: number,
  max: number,
): Page<EventRecord> {
  return pageOf(db, SQL.eventsPage, SQL.eventsCount, { ...filter, tags }, start, max);
}

/** Actions of one event on entities the caller may read. */
export function eventActionsPage(
  db: Db,
  eventId: number,
  tags: string,
  start: number,
  max: number,
): Page<EventActionRecord> {
  return pageOf(db, SQL.eventActionsPage, SQL.eventActionsCount, { event: eventId, tags }, start, max);
}

/** Readable entities modified in [since, until] (ISO 8601 UTC strings; until may be null). */
export function updatedSincePage(
  db: Db,
  since: string,
  until: string | null,
  tags: string,
  start: number,
  max: number,
): Page<EntitySummary> {
  return pageOf(db, SQL.updatedPage, SQL.updatedCount, { since, until, tags }, start, max);
}

/** Readable entities carrying an identifier with this value (and type, when given). */
export function byIdentifierPage(
  db: Db,
  type: string | null,
  value: string,
  tags: string,
  start: number,
  max: number,
): Page<EntitySummary> {
  return pageOf(db, SQL.byIdentifierPage, SQL.byIdentifierCount, { type, value, tags }, start, max);
}

// ---------------------------------------------------------------------------------------------------
// Look-ups of whole rows, live or by id, that writes make before they change anything.

export function getEntity(db: Db, ref: string): EntityRow | undefined {
  return prepared(db, "SELECT * FROM entities WHERE ref = ? AND deleted = 0").get(ref) as
    | EntityRow
    | undefined;
}

export function getEntityById(db: Db, id: number): EntityRow | undefined {
  return prepared(db, "SELECT * FROM entities WHERE id = ?").get(id) as EntityRow | undefined;
}

export function securityTagExists(db: Db, name: string): boolean {
  return prepared(db, "SELECT 1 FROM security_tags WHERE name = ?").get(name) !== undefined;
}

/** Whether any entity, live or in the recycle bin, holds this ref (refs are never reused). */
export function refInUse(db: Db, ref: string): boolean {
  return prepared(db, "SELECT 1 FROM entities WHERE ref = ?").get(ref) !== undefined;
}

export function findIdentifier(db: Db, apiId: string): IdentifierRecord | undefined {
  return prepared(db, "SELECT api_id, entity_ref, type, value FROM identifiers WHERE api_id = ?").get(
    apiId,
  ) as IdentifierRecord | undefined;
}

export function findLink(db: Db, apiId: string): LinkRow | undefined {
  return prepared(db, "SELECT api_id, link_type, from_ref, to_ref FROM links WHERE api_id = ?").get(apiId) as
    | LinkRow
    | undefined;
}

/** The link of this type between these two entities, if one exists. */
export function findSameLink(db: Db, linkType: string, fromRef: string, toRef: string): LinkRow | undefined {
  return prepared(
    db,
    "SELECT api_id, link_type, from_ref, to_ref FROM links WHERE from_ref = ? AND to_ref = ? AND link_type = ?",
  ).get(fromRef, toRef, linkType) as LinkRow | undefined;
}
