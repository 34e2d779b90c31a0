import type { Db, Statement } from "../db.js";
import type { EntityType } from "./write.js";

/**
 * Read queries behind the Entity API. Statements are prepared once per database (cached in a WeakMap)
 * because entity GETs are the service's hot path. Every list that shows entities takes the caller's
 * readable security tags as a JSON array (`tags`), so one prepared statement serves any set of tags and
 * the totals count only what the caller may see.
 */

export interface EntitySummary {
  id: number;
  ref: string;
  type: EntityType;
  title: string;
  security_tag: string;
}

export interface EntityRecord extends EntitySummary {
  description: string | null;
  custom_type: string | null;
  parent_ref: string | null;
  modified: string;
}

export interface FragmentSummary {
  mref: string;
  schema_uri: string;
}

export interface FragmentRecord extends FragmentSummary {
  entity_ref: string;
  content: string;
}

export interface IdentifierRecord {
  api_id: string;
  entity_ref: string;
  type: string;
  value: string;
}

export interface LinkRecord {
  api_id: string;
  link_type: string;
  direction: "From" | "To";
  other_ref: string;
  other_type: EntityType;
  other_title: string;
}

export interface RepresentationSummary {
  type: string;
  name: string | null;
  idx: number;
}

export interface RepresentationRecord extends RepresentationSummary {
  id: number;
  io_ref: string;
}

export interface GenerationRecord {
  id: number;
  co_ref: string;
  idx: number;
  original: number;
  active: number;
  label: string | null;
  format_group: string | null;
  effective_date: string | null;
  format_puid: string | null;
  format_name: string | null;
  format_version: string | null;
}

export interface BitstreamRecord {
  id: number;
  generation_id: number;
  idx: number;
  filename: string;
  original_name: string | null;
  size: number;
  mime_type: string;
  content_sha256: string;
  /** Present only if a later schema adds the column. */
  physical_location?: string | null;
}

export interface FixityRecord {
  algorithm: string;
  value: string;
}

export interface EventRecord {
  id: number;
  ref: string;
  type: string;
  date: string;
  username: string;
  workflow_name: string | null;
  workflow_instance_id: string | null;
}

export interface EventActionRecord {
  command_type: string;
  action_date: string;
  entity_ref: string;
  serialised_command: string | null;
  event_ref: string;
  event_type: string;
  event_date: string;
  username: string;
  workflow_name: string | null;
  workflow_instance_id: string | null;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export interface EventFilter {
  /** JSON array of event types, or null for any. */
  types: string | null;
  from: string | null;
  to: string | null;
  username: string | null;
}

type Stmt = Statement;

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

function prepareAll(db: Db) {
  const p = (sql: string): Stmt => db.prepare(sql);
  return {
    entity: p(
      "SELECT id, ref, type, title, description, security_tag, custom_type, parent_ref, modified FROM entities WHERE ref = ? AND deleted = 0",
    ),
    fragmentsOf: p("SELECT mref, schema_uri FROM metadata_fragments WHERE entity_ref = ? ORDER BY id"),
    fragmentsPage: p(
      "SELECT mref, schema_uri FROM metadata_fragments WHERE entity_ref = @ref ORDER BY id LIMIT @max OFFSET @start",
    ),
    fragmentsCount: p("SELECT count(*) AS n FROM metadata_fragments WHERE entity_ref = @ref"),
    fragment: p("SELECT mref, entity_ref, schema_uri, content FROM metadata_fragments WHERE mref = ?"),

    childrenPage: p(
      `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e
        WHERE e.parent_ref = @parent AND e.type IN ('SO','IO') AND ${READABLE} ORDER BY e.id LIMIT @max OFFSET @start`,
    ),
    childrenCount: p(
      `SELECT count(*) AS n FROM entities e WHERE e.parent_ref = @parent AND e.type IN ('SO','IO') AND ${READABLE}`,
    ),
    rootPage: p(
      `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e
        WHERE e.parent_ref IS NULL AND e.type IN ('SO','IO') AND ${READABLE} ORDER BY e.id LIMIT @max OFFSET @start`,
    ),
    rootCount: p(
      `SELECT count(*) AS n FROM entities e WHERE e.parent_ref IS NULL AND e.type IN ('SO','IO') AND ${READABLE}`,
    ),

    identifiersPage: p(
      "SELECT api_id, entity_ref, type, value FROM identifiers WHERE entity_ref = @ref ORDER BY id LIMIT @max OFFSET @start",
    ),
    identifiersCount: p("SELECT count(*) AS n FROM identifiers WHERE entity_ref = @ref"),

    linksPage: p(`SELECT * FROM (${LINKS_UNION}) ORDER BY id, direction LIMIT @max OFFSET @start`),
    linksCount: p(`SELECT count(*) AS n FROM (${LINKS_UNION})`),

    representationsPage: p(
      "SELECT type, name, idx FROM representations WHERE io_ref = @ref ORDER BY type, idx LIMIT @max OFFSET @start",
    ),
    representationsCount: p("SELECT count(*) AS n FROM representations WHERE io_ref = @ref"),
    representation: p(
      "SELECT id, io_ref, type, name, idx FROM representations WHERE io_ref = ? AND type = ? COLLATE NOCASE AND idx = ?",
    ),
    representationNamed: p(
      "SELECT id, io_ref, type, name, idx FROM representations WHERE io_ref = ? AND name = ? COLLATE NOCASE ORDER BY id LIMIT 1",
    ),
    representationObjects: p(
      `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM representation_objects ro
         JOIN entities e ON e.ref = ro.co_ref
        WHERE ro.representation_id = @rep AND ${READABLE} ORDER BY ro.position`,
    ),

    generationsPage: p(
      "SELECT idx, active FROM generations WHERE co_ref = @ref ORDER BY idx LIMIT @max OFFSET @start",
    ),
    generationsCount: p("SELECT count(*) AS n FROM generations WHERE co_ref = @ref"),
    generation: p("SELECT * FROM generations WHERE co_ref = ? AND idx = ?"),
    bitstreamsOf: p("SELECT * FROM bitstreams WHERE generation_id = ? ORDER BY idx"),
    bitstream: p("SELECT * FROM bitstreams WHERE generation_id = ? AND idx = ?"),
    fixities: p(
      `SELECT algorithm, value FROM fixities WHERE bitstream_id = ?
        ORDER BY CASE algorithm WHEN 'MD5' THEN 1 WHEN 'SHA1' THEN 2 WHEN 'SHA256' THEN 3 WHEN 'SHA512' THEN 4 ELSE 5 END, algorithm`,
    ),

    entityActionsPage: p(
      `SELECT ${EVENT_ACTION_COLUMNS} FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
        WHERE ea.entity_ref = @ref ORDER BY ea.id LIMIT @max OFFSET @start`,
    ),
    entityActionsCount: p("SELECT count(*) AS n FROM event_actions WHERE entity_ref = @ref"),

    event: p("SELECT * FROM events WHERE ref = ?"),
    eventsPage: p(
      `SELECT ev.* FROM events ev WHERE ${EVENT_FILTER} ORDER BY ev.date, ev.id LIMIT @max OFFSET @start`,
    ),
    eventsCount: p(`SELECT count(*) AS n FROM events ev WHERE ${EVENT_FILTER}`),
    eventActionsPage: p(
      `SELECT ${EVENT_ACTION_COLUMNS} FROM event_actions ea JOIN events ev ON ev.id = ea.event_id
         JOIN entities e ON e.ref = ea.entity_ref
        WHERE ea.event_id = @event AND e.security_tag IN (SELECT value FROM json_each(@tags))
        ORDER BY ea.id LIMIT @max OFFSET @start`,
    ),
    eventActionsCount: p(
      `SELECT count(*) AS n FROM event_actions ea JOIN entities e ON e.ref = ea.entity_ref
        WHERE ea.event_id = @event AND e.security_tag IN (SELECT value FROM json_each(@tags))`,
    ),

    updatedPage: p(
      `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e WHERE ${UPDATED_FILTER}
        ORDER BY e.modified, e.id LIMIT @max OFFSET @start`,
    ),
    updatedCount: p(`SELECT count(*) AS n FROM entities e WHERE ${UPDATED_FILTER}`),

    byIdentifierPage: p(
      `SELECT e.id, e.ref, e.type, e.title, e.security_tag FROM entities e WHERE ${BY_IDENTIFIER_FILTER}
        ORDER BY e.id LIMIT @max OFFSET @start`,
    ),
    byIdentifierCount: p(`SELECT count(*) AS n FROM entities e WHERE ${BY_IDENTIFIER_FILTER}`),
  };
}

type Statements = ReturnType<typeof prepareAll>;
const statements = new WeakMap<Db, Statements>();

function stmts(db: Db): Statements {
  let s = statements.get(db);
  if (!s) {
    s = prepareAll(db);
    statements.set(db, s);
  }
  return s;
}

/**
 * One page of a list and the total, from a page statement and its count twin. Both take the same named
 * parameters (the page statement also `@start` and `@max`), so the total counts exactly what is paged.
 */
function pageOf<T>(
  page: Stmt,
  total: Stmt,
  params: Record<string, unknown>,
  start: number,
  max: number,
): Page<T> {
  return {
    items: page.all({ ...params, start, max }) as T[],
    total: (total.get(params) as { n: number }).n,
  };
}

/** The caller's readable tags in the form the statements take. */
export function tagsParam(tags: readonly string[]): string {
  return JSON.stringify(tags);
}

export function findEntity(db: Db, ref: string): EntityRecord | undefined {
  return stmts(db).entity.get(ref) as EntityRecord | undefined;
}

export function fragmentsOf(db: Db, ref: string): FragmentSummary[] {
  return stmts(db).fragmentsOf.all(ref) as FragmentSummary[];
}

export function fragmentsPage(db: Db, ref: string, start: number, max: number): Page<FragmentSummary> {
  const s = stmts(db);
  return pageOf(s.fragmentsPage, s.fragmentsCount, { ref }, start, max);
}

export function findFragment(db: Db, mref: string): FragmentRecord | undefined {
  return stmts(db).fragment.get(mref) as FragmentRecord | undefined;
}

/** Readable folders and assets under `parent` (null = the top level). */
export function childrenPage(
  db: Db,
  parent: string | null,
  tags: string,
  start: number,
  max: number,
): Page<EntitySummary> {
  const s = stmts(db);
  if (parent === null) return pageOf(s.rootPage, s.rootCount, { tags }, start, max);
  return pageOf(s.childrenPage, s.childrenCount, { parent, tags }, start, max);
}

export function identifiersPage(db: Db, ref: string, start: number, max: number): Page<IdentifierRecord> {
  const s = stmts(db);
  return pageOf(s.identifiersPage, s.identifiersCount, { ref }, start, max);
}

/** Links from and to `ref` whose other end the caller may read. */
export function linksPage(db: Db, ref: string, tags: string, start: number, max: number): Page<LinkRecord> {
  const s = stmts(db);
  return pageOf(s.linksPage, s.linksCount, { ref, tags }, start, max);
}

export function representationsPage(
  db: Db,
  ioRef: string,
  start: number,
  max: number,
): Page<RepresentationSummary> {
  const s = stmts(db);
  return pageOf(s.representationsPage, s.representationsCount, { ref: ioRef }, start, max);
}

export function findRepresentation(
  db: Db,
  ioRef: string,
  type: string,
  idx: number,
): RepresentationRecord | undefined {
  return stmts(db).representation.get(ioRef, type, idx) as RepresentationRecord | undefined;
}

/** The asset's representation named `name` (case-insensitive), as in `…/representations/Access-2`. */
export function findRepresentationNamed(
  db: Db,
  ioRef: string,
  name: string,
): RepresentationRecord | undefined {
  return stmts(db).representationNamed.get(ioRef, name) as RepresentationRecord | undefined;
}

export function representationObjects(db: Db, representationId: number, tags: string): EntitySummary[] {
  return stmts(db).representationObjects.all({ rep: representationId, tags }) as EntitySummary[];
}

export function generationsPage(
  db: Db,
  coRef: string,
  start: number,
  max: number,
): Page<{ idx: number; active: number }> {
  const s = stmts(db);
  return pageOf(s.generationsPage, s.generationsCount, { ref: coRef }, start, max);
}

export function findGeneration(db: Db, coRef: string, idx: number): GenerationRecord | undefined {
  return stmts(db).generation.get(coRef, idx) as GenerationRecord | undefined;
}

export function bitstreamsOf(db: Db, generationId: number): BitstreamRecord[] {
  return stmts(db).bitstreamsOf.all(generationId) as BitstreamRecord[];
}

export function findBitstream(db: Db, generationId: number, idx: number): BitstreamRecord | undefined {
  return stmts(db).bitstream.get(generationId, idx) as BitstreamRecord | undefined;
}

export function fixitiesOf(db: Db, bitstreamId: number): FixityRecord[] {
  return stmts(db).fixities.all(bitstreamId) as FixityRecord[];
}

export function entityActionsPage(db: Db, ref: string, start: number, max: number): Page<EventActionRecord> {
  const s = stmts(db);
  return pageOf(s.entityActionsPage, s.entityActionsCount, { ref }, start, max);
}

export function findEvent(db: Db, ref: string): EventRecord | undefined {
  return stmts(db).event.get(ref) as EventRecord | undefined;
}

/** Events matching the filter that acted on at least one entity the caller may read. */
export function eventsPage(
  db: Db,
  filter: EventFilter,
  tags: string,
  start: number,
  max: number,
): Page<EventRecord> {
  const s = stmts(db);
  return pageOf(s.eventsPage, s.eventsCount, { ...filter, tags }, start, max);
}

/** Actions of one event on entities the caller may read. */
export function eventActionsPage(
  db: Db,
  eventId: number,
  tags: string,
  start: number,
  max: number,
): Page<EventActionRecord> {
  const s = stmts(db);
  return pageOf(s.eventActionsPage, s.eventActionsCount, { event: eventId, tags }, start, max);
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
  const s = stmts(db);
  return pageOf(s.updatedPage, s.updatedCount, { since, until, tags }, start, max);
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
  const s = stmts(db);
  return pageOf(s.byIdentifierPage, s.byIdentifierCount, { type, value, tags }, start, max);
}
