import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/**
 * Reads behind the OAI-PMH data provider. A record is a folder (SO) or asset (IO) the caller may read
 * (Read Metadata on its security tag). Live entities are records; entities in the recycle bin are
 * deleted records until they are deleted for good (then their rows, and so their records, are gone:
 * the provider declares deletedRecord "transient").
 *
 * A record's datestamp is its last change: `modified` (moved by every recorded change, see
 * store/events/write.ts) for a live entity, and the time it went to the recycle bin for a deleted one
 * (deletion leaves `modified` alone). Lists are ordered by the entities' `id` (insertion order, never
 * reused), so a resumption token holding the last id seen stays valid while the store changes.
 */

export interface OaiRecordRow {
  id: number;
  ref: string;
  type: "SO" | "IO";
  title: string;
  description: string | null;
  security_tag: string;
  parent_ref: string | null;
  deleted: number;
  /** ISO 8601 instant (milliseconds) of the last change. */
  stamp: string;
}

export interface OaiSetRow {
  id: number;
  ref: string;
  title: string;
  description: string | null;
  parent_ref: string | null;
}

/** What a list request selects; dates are ISO instants, `untilBefore` exclusive. */
export interface RecordFilter {
  /** JSON array of readable security tags. */
  tags: string;
  from: string | null;
  untilBefore: string | null;
  /** Ref of the folder whose subtree is the set, or null for all records. */
  setRef: string | null;
}

const STAMP = "(CASE WHEN e.deleted = 1 THEN coalesce(e.deleted_at, e.modified) ELSE e.modified END)";
const COLUMNS = `e.id, e.ref, e.type, e.title, e.description, e.security_tag, e.parent_ref, e.deleted, ${STAMP} AS stamp`;
const SUBTREE = `WITH RECURSIVE sub(ref) AS (
    SELECT ref FROM entities INDEXED BY entities_parent WHERE parent_ref = @set
    UNION SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref
  ) `;

function recordWhere(f: RecordFilter): string {
  return `e.type IN ('SO','IO') AND e.security_tag IN (SELECT value FROM json_each(@tags))
    AND (@from IS NULL OR ${STAMP} >= @from) AND (@until IS NULL OR ${STAMP} < @until)
    ${f.setRef === null ? "" : "AND e.ref IN (SELECT ref FROM sub)"}`;
}

function bind(f: RecordFilter) {
  return { tags: f.tags, from: f.from, until: f.untilBefore, set: f.setRef };
}

/** One page of records after the entity id `after`, at most `limit` rows. */
export function recordsPage(db: Db, f: RecordFilter, after: number, limit: number): OaiRecordRow[] {
  const sql = `${f.setRef === null ? "" : SUBTREE}SELECT ${COLUMNS} FROM entities e
    WHERE ${recordWhere(f)} AND e.id > @after ORDER BY e.id LIMIT @limit`;
  return prepared(db, sql).all({ ...bind(f), after, limit }) as OaiRecordRow[];
}

/** How many records match, and how many of them come at or before the entity id `after`. */
export function recordsCount(db: Db, f: RecordFilter, after: number): { total: number; before: number } {
  const sql = `${f.setRef === null ? "" : SUBTREE}SELECT count(*) AS total, coalesce(sum(e.id <= @after), 0) AS before
    FROM entities e WHERE ${recordWhere(f)}`;
  return prepared(db, sql).get({ ...bind(f), after }) as { total: number; before: number };
}

/** A folder or asset by ref and type, live or in the recycle bin (permissions are the caller's check). */
export function findRecord(db: Db, type: "SO" | "IO", ref: string): OaiRecordRow | undefined {
  return prepared(db, `SELECT ${COLUMNS} FROM entities e WHERE e.ref = ? AND e.type = ?`).get(ref, type) as
    | OaiRecordRow
    | undefined;
}

/** The stored metadata documents of an entity, in the order they were added. */
export function fragmentsOf(db: Db, ref: string): string[] {
  return (
    // Its own SQL text: a cached statement with the same text elsewhere is set to pluck.
    (
      prepared(db, "SELECT content AS xml FROM metadata_fragments WHERE entity_ref = ? ORDER BY id").all(
        ref,
      ) as {
        xml: string;
      }[]
    ).map((r) => r.xml)
  );
}

/** The parent of an entity (null at the top or when unknown). */
export function parentOf(db: Db, ref: string): string | null {
  const row = prepared(db, "SELECT parent_ref FROM entities WHERE ref = ?").get(ref) as
    | { parent_ref: string | null }
    | undefined;
  return row?.parent_ref ?? null;
}

const SET_WHERE =
  "e.type = 'SO' AND e.deleted = 0 AND e.security_tag IN (SELECT value FROM json_each(@tags))";

/** Live folders the caller may read (each is a set), after the entity id `after`. */
export function setsPage(db: Db, tags: string, after: number, limit: number): OaiSetRow[] {
  return prepared(
    db,
    `SELECT e.id, e.ref, e.title, e.description, e.parent_ref FROM entities e
      WHERE ${SET_WHERE} AND e.id > @after ORDER BY e.id LIMIT @limit`,
  ).all({ tags, after, limit }) as OaiSetRow[];
}

export function setsCount(db: Db, tags: string, after: number): { total: number; before: number } {
  return prepared(
    db,
    `SELECT count(*) AS total, coalesce(sum(e.id <= @after), 0) AS before FROM entities e WHERE ${SET_WHERE}`,
  ).get({ tags, after }) as { total: number; before: number };
}

/** A live folder the caller may read, by ref. */
export function readableFolder(db: Db, tags: string, ref: string): OaiSetRow | undefined {
  return prepared(
    db,
    `SELECT e.id, e.ref, e.title, e.description, e.parent_ref FROM entities e WHERE e.ref = @ref AND ${SET_WHERE}`,
  ).get({ tags, ref }) as OaiSetRow | undefined;
}

/** A lower bound of every datestamp: the oldest change of any folder or asset (null when none). */
export function earliestChange(db: Db): string | null {
  const row = prepared(db, "SELECT min(modified) AS m FROM entities WHERE type IN ('SO','IO')").get() as {
    m: string | null;
  };
  return row.m;
}

/** The e-mail address of the first enabled administrator, for Identify's adminEmail. */
export function administratorEmail(db: Db, adminRole: string): string | undefined {
  const rows = prepared(db, "SELECT email, roles FROM users WHERE enabled = 1 ORDER BY username").all() as {
    email: string;
    roles: string;
  }[];
  return rows.find((r) => (JSON.parse(r.roles) as string[]).includes(adminRole))?.email;
}
