import { utcInstant } from "../http/dates.js";
import type { ContentStore } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import { prepared } from "../store/statements.js";
import { ensureDublinCoreIndex } from "./dublin-core.js";
import type { FieldDef } from "./fields.js";
import { ensureFileText } from "./file-text.js";
import { memo } from "./memo.js";
import { type FieldFilter, SearchInputError, type SearchRequest, type SortKey } from "./query.js";

/**
 * Runs a Content API search on SQLite: one WHERE clause built from the request (permissions, scope,
 * text, filters) is shared by the page, the count and every facet, so a hit the caller may not see is
 * never counted anywhere. Values are always bound parameters; only the request's shape reaches the
 * SQL text, which keeps the statement cache effective. Metadata for a page takes one query per kind of
 * field asked for, never one per hit.
 */

export type Scope =
  /** `search`: every folder and asset (content objects only when a filter asks for document type CO). */
  | { kind: "everywhere" }
  /** `search-within`: anywhere below a folder. */
  | { kind: "below"; folderRef: string }
  /** `object-children`: direct children of an entity. */
  | { kind: "children"; parentRef: string }
  /** `top-level-list`: entities at the root. */
  | { kind: "top-level" };

export interface MetadataItem {
  name: string;
  /** Multi-valued fields (xip.identifier, xip.format_group, oai_dc.*) answer an array, others a string. */
  value: string | string[];
}

export interface FacetTerm {
  name: string;
  value: string;
  displayName: string;
  count: number;
}

export interface Facet {
  name: string;
  fieldName: string;
  displayName: string;
  terms: FacetTerm[];
}

export interface SearchPage {
  objectIds: string[];
  totalHits: number;
  metadata: MetadataItem[][];
  facets: Facet[];
  /** Snippets per object id, present when the request had search text. */
  highlighting?: Record<string, string[]>;
}

export interface SearchContext {
  db: Db;
  content: ContentStore;
  /** Tags the caller has Read Metadata on; everything else is invisible. */
  visibleTags: readonly string[];
}

/** Terms per facet: the most frequent values, then alphabetical. */
export const MAX_FACET_TERMS = 100;
/** xip.full_text returns at most this much of an asset's text file. */
const FULL_TEXT_LIMIT = 100_000;
/**
 * Relevance: bm25 with column weights (a word in the title counts more than one in the description or
 * metadata, which counts more than the words inside the asset's files), set through FTS5's `rank`
 * column so FTS5 sorts the matches itself, about twice as fast as ordering by a bm25() call.
 */
const RANK_WEIGHTS = "entity_fts.rank MATCH 'bm25(10.0, 5.0, 1.0, 0.5)'";
const RELEVANCE = "entity_fts.rank";

/** A folder and the folders below it: the possible parents of the folders and assets in a subtree. */
const SUBTREE_FOLDERS = `WITH RECURSIVE sub(ref) AS (
  SELECT ? UNION SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.type = 'SO' AND c.deleted = 0
) SELECT ref FROM sub`;
/**
 * The same walk through assets too: the parents of everything in a subtree, content objects included
 * (a content object's parent is its asset). Used only when the search includes content objects, since
 * the set is then as large as the subtree's assets.
 */
const SUBTREE_PARENTS = `WITH RECURSIVE sub(ref) AS (
  SELECT ? UNION SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.type IN ('SO', 'IO') AND c.deleted = 0
) SELECT ref FROM sub`;

/** The subtree walk a search needs: through assets only when content objects are among the hits. */
function subtreeParents(withContentObjects: boolean): string {
  return withContentObjects ? SUBTREE_PARENTS : SUBTREE_FOLDERS;
}

const COLUMN_SQL: Record<string, string> = {
  ref: "e.ref",
  title: "e.title",
  description: "coalesce(e.description, '')",
  type: "e.type",
  parent_ref: "coalesce(e.parent_ref, '')",
  security_tag: "e.security_tag",
  created: "e.created",
};

const FORMAT_GROUP_JOIN = `representations r
  JOIN representation_objects ro ON ro.representation_id = r.id
  JOIN generations g ON g.co_ref = ro.co_ref AND g.active = 1 AND g.format_group IS NOT NULL`;

interface Clause {
  sql: string;
  params: unknown[];
}

interface Where {
  from: string;
  /** Conditions after the liveness test (which `conditions` adds), all ANDed. */
  conds: string[];
  params: unknown[];
  hasText: boolean;
  /** Whether counts and facets should read the entities_visibility index (see `conditions`). */
  wholeStore: boolean;
}

/**
 * The WHERE text of a query. The liveness test comes first; written `+e.deleted` it keeps SQLite off
 * the entities_visibility index, whose leading column it is. Counts and facets over the whole store
 * want that narrow covering index; everything else is better served by FTS, the parent index or a
 * rowid-order scan that a LIMIT stops early, which a planner without statistics might not choose.
 */
function conditions(where: Where, useVisibilityIndex: boolean): string {
  return [useVisibilityIndex ? "e.deleted = 0" : "+e.deleted = 0", ...where.conds].join(" AND ");
}

interface HitRow {
  id: number;
  ref: string;
  type: string;
  title: string;
  description: string | null;
  parent_ref: string | null;
  security_tag: string;
  created: string;
  snippet?: string;
}

// ---------------------------------------------------------------------------------------------------
// WHERE clause

/** A filter value as a LIKE pattern: `%` and `*` are wildcards, everything else literal. */
function likePattern(value: string): string {
  return value.replace(/[\\_]/g, "\\$&").replace(/\*/g, "%");
}
const LIKE = "LIKE ? ESCAPE '\\'";

const DATE_PREFIX = /^\d{4}(-\d{2}(-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?)?)?$/;

/** The first instant after a bare year, month or day, so an inclusive upper bound covers it whole. */
function afterPeriod(value: string): string | undefined {
  if (/^\d{4}$/.test(value)) return String(Number(value) + 1);
  const month = value.match(/^(\d{4})-(\d{2})$/);
  if (month) {
    const d = new Date(Date.UTC(Number(month[1]), Number(month[2]), 1));
    return d.toISOString().slice(0, 7);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const d = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(d.getTime())) return undefined;
    d.setUTCDate(d.getUTCDate() + 1);
    return d.toISOString().slice(0, 10);
  }
  return undefined;
}

/**
 * A range bound as stored dates are written (UTC, milliseconds) when it has a time, so that text
 * comparison compares instants (`10:00+01:00` is `09:00:00.000Z`); a bare year, month or day stays as
 * written, since its prefix already compares correctly.
 */
function storedBound(bound: string): string {
  return bound.includes("T") ? (utcInstant(bound) ?? bound) : bound;
}

function createdClause(value: string): Clause {
  const range = value.trim().match(/^\[\s*(\S+)\s+TO\s+(\S+)\s*\]$/i);
  if (range) {
    const [, from = "*", until = "*"] = range;
    const conds: string[] = [];
    const params: unknown[] = [];
    for (const bound of [from, until]) {
      if (bound !== "*" && !DATE_PREFIX.test(bound)) {
        throw new SearchInputError(
          `xip.created range bound "${bound}" is not a date; use [2020-01-01 TO 2020-12-31], with * for an open end`,
        );
      }
    }
    if (from !== "*") {
      conds.push("e.created >= ?");
      params.push(storedBound(from));
    }
    if (until !== "*") {
      const after = afterPeriod(until);
      conds.push(after === undefined ? "e.created <= ?" : "e.created < ?");
      params.push(after ?? storedBound(until));
    }
    return { sql: conds.length ? conds.join(" AND ") : "1", params };
  }
  if (/[%*]/.test(value)) return { sql: `e.created ${LIKE}`, params: [likePattern(value)] };
  if (DATE_PREFIX.test(value.trim()))
    return { sql: `e.created ${LIKE}`, params: [`${likePattern(value.trim())}%`] };
  throw new SearchInputError(
    `xip.created value "${value}" is not a date; give a date or its prefix (2021, 2021-03), a wildcard (2021%), or a range [2020-01-01 TO 2020-12-31]`,
  );
}

/** The condition one value of a filter puts on an entity `e`. */
function valueClause(field: FieldDef, value: string, withContentObjects: boolean): Clause {
  const source = field.source;
  switch (source.kind) {
    case "column":
      if (source.column === "created") return createdClause(value);
      return { sql: `${COLUMN_SQL[source.column]} ${LIKE}`, params: [likePattern(value)] };
    case "top_level_so":
      return {
        sql: `(e.ref = ? OR e.parent_ref IN (${subtreeParents(withContentObjects)}))`,
        params: [value.trim().toLowerCase(), value.trim().toLowerCase()],
      };
    case "parent_hierarchy":
      // Everything below the folder, not the folder itself (its own hierarchy holds only its ancestors).
      return {
        sql: `e.parent_ref IN (${subtreeParents(withContentObjects)})`,
        params: [value.trim().toLowerCase()],
      };
    case "identifier":
      return {
        sql: `e.ref IN (SELECT i.entity_ref FROM identifiers i WHERE i.value ${LIKE} OR (i.type || ' ' || i.value) ${LIKE})`,
        params: [likePattern(value), likePattern(value)],
      };
    case "format_group":
      return {
        sql: `e.ref IN (SELECT r.io_ref FROM ${FORMAT_GROUP_JOIN} WHERE g.format_group ${LIKE})`,
        params: [likePattern(value)],
      };
    case "dc":
      // An exact value seeks the (name, value) index; a pattern scans that element's values.
      return /[%*]/.test(value)
        ? {
            sql: `e.ref IN (SELECT d.entity_ref FROM entity_dc_values d WHERE d.name = ? AND d.value ${LIKE})`,
            params: [source.element, likePattern(value)],
          }
        : {
            sql: "e.ref IN (SELECT d.entity_ref FROM entity_dc_values d WHERE d.name = ? AND d.value = ? COLLATE NOCASE)",
            params: [source.element, value],
          };
    case "full_text":
      throw new SearchInputError(`Field "${field.key}" cannot be used to filter`);
  }
}

function filterClause(filter: FieldFilter, withContentObjects: boolean): Clause {
  const parts = filter.values.map((v) => valueClause(filter.field, v, withContentObjects));
  const any = parts.map((p) => `(${p.sql})`).join(" OR ");
  return { sql: filter.negate ? `NOT (${any})` : `(${any})`, params: parts.flatMap((p) => p.params) };
}

/** Content objects appear only where asked for: by scope (children of an asset) or a type filter. */
function includesContentObjects(req: SearchRequest, scope: Scope): boolean {
  if (scope.kind === "children") return true;
  return req.filters.some(
    (f) =>
      !f.negate &&
      f.field.source.kind === "column" &&
      f.field.source.column === "type" &&
      f.values.some((v) => v.trim().toUpperCase() === "CO"),
  );
}

function buildWhere(req: SearchRequest, scope: Scope, visibleTags: readonly string[]): Where {
  const hasText = req.text.kind === "match";
  const where: Where = {
    from: hasText ? "entity_fts JOIN entities e ON e.id = entity_fts.rowid" : "entities e",
    conds: ["e.security_tag IN (SELECT value FROM json_each(?))"],
    params: [JSON.stringify(visibleTags)],
    hasText,
    // Only when every condition can be answered from the index itself (type and tag filters).
    wholeStore:
      !hasText &&
      scope.kind === "everywhere" &&
      req.refs.length === 0 &&
      req.filters.every(
        (f) => f.field.source.kind === "column" && ["type", "security_tag"].includes(f.field.source.column),
      ),
  };
  const add = (sql: string, ...params: unknown[]) => {
    where.conds.push(sql);
    where.params.push(...params);
  };
  if (req.text.kind === "match") add("entity_fts MATCH ?", req.text.fts);
  if (req.text.kind === "exclude") {
    add("e.id NOT IN (SELECT rowid FROM entity_fts WHERE entity_fts MATCH ?)", req.text.fts);
  }
  const withContentObjects = includesContentObjects(req, scope);
  if (!withContentObjects) add("e.type IN ('SO', 'IO')");
  switch (scope.kind) {
    case "below":
      add(`e.parent_ref IN (${subtreeParents(withContentObjects)})`, scope.folderRef);
      break;
    case "children":
      add("e.parent_ref = ?", scope.parentRef);
      break;
    case "top-level":
      add("e.parent_ref IS NULL");
      break;
    case "everywhere":
      break;
  }
  if (req.refs.length > 0) add("e.ref IN (SELECT value FROM json_each(?))", JSON.stringify(req.refs));
  for (const f of req.filters) {
    const clause = filterClause(f, withContentObjects);
    add(clause.sql, ...clause.params);
  }
  return where;
}

// ---------------------------------------------------------------------------------------------------
// Ordering

function sortClause(key: SortKey): Clause {
  const dir = key.descending ? "DESC" : "ASC";
  const source = key.field.source;
  switch (source.kind) {
    case "column": {
      const expr = source.column === "created" ? "e.created" : `${COLUMN_SQL[source.column]} COLLATE NOCASE`;
      return { sql: `${expr} ${dir}`, params: [] };
    }
    case "identifier":
      return {
        sql: `(SELECT min(i.type || ' ' || i.value) FROM identifiers i WHERE i.entity_ref = e.ref) COLLATE NOCASE ${dir} NULLS LAST`,
        params: [],
      };
    case "dc":
      return {
        sql: `(SELECT d.value FROM entity_dc_values d WHERE d.entity_ref = e.ref AND d.name = ? ORDER BY d.position LIMIT 1) COLLATE NOCASE ${dir} NULLS LAST`,
        params: [source.element],
      };
    default:
      throw new SearchInputError(`Field "${key.field.key}" cannot be used to sort`);
  }
}

function orderBy(req: SearchRequest, where: Where): Clause {
  if (req.sort.length > 0) {
    const parts = req.sort.map(sortClause);
    return { sql: `${parts.map((p) => p.sql).join(", ")}, e.id`, params: parts.flatMap((p) => p.params) };
  }
  // Relevance when there is text (ties in FTS5's own order, which is stable for unchanged data);
  // otherwise insertion order, which the rowid index gives for free.
  if (!where.hasText || req.text.kind !== "match") return { sql: "e.id", params: [] };
  // FTS5's bm25 normalises by the length of the whole row, so the words of a long file would bury
  // its asset's title match below a description match elsewhere: entities whose title alone matches
  // come first, then the rest, by bm25 within each. (One extra FTS lookup: about +10 ms on a search
  // with 10,000 hits in a 100,000-entity store; a second tier for "not only in files" cost as much again.)
  return {
    sql: `(e.id IN (SELECT rowid FROM entity_fts WHERE entity_fts MATCH ?)) DESC, ${RELEVANCE}`,
    params: [`{title} : (${req.text.fts})`],
  };
}

// ---------------------------------------------------------------------------------------------------
// Facets

function facetQuery(field: FieldDef, where: Where): Clause {
  const conds = conditions(where, where.wholeStore);
  const tail = `GROUP BY value ORDER BY n DESC, value LIMIT ${MAX_FACET_TERMS}`;
  // Multi-valued fields count distinct entities among the hits, found once as a set.
  const hits = (column: string) => `(SELECT ${column} FROM ${where.from} WHERE ${conds})`;
  const source = field.source;
  switch (source.kind) {
    case "column": {
      const expr = source.column === "created" ? "substr(e.created, 1, 4)" : COLUMN_SQL[source.column];
      return {
        sql: `SELECT ${expr} AS value, count(*) AS n FROM ${where.from} WHERE ${conds} ${tail}`,
        params: where.params,
      };
    }
    case "identifier":
      return {
        sql: `SELECT i.type || ' ' || i.value AS value, count(DISTINCT i.entity_ref) AS n FROM identifiers i
              WHERE i.entity_ref IN ${hits("e.ref")} ${tail}`,
        params: where.params,
      };
    case "format_group":
      return {
        sql: `SELECT g.format_group AS value, count(DISTINCT r.io_ref) AS n FROM ${FORMAT_GROUP_JOIN}
              WHERE r.io_ref IN ${hits("e.ref")} ${tail}`,
        params: where.params,
      };
    case "dc":
      return {
        sql: `SELECT d.value AS value, count(DISTINCT d.entity_ref) AS n FROM entity_dc_values d
              WHERE d.name = ? AND d.entity_ref IN ${hits("e.ref")} ${tail}`,
        params: [source.element, ...where.params],
      };
    default:
      throw new SearchInputError(`Field "${field.key}" cannot be used as a facet`);
  }
}

function runFacets(db: Db, req: SearchRequest, where: Where | undefined): Facet[] {
  return req.facets.map((field) => {
    const q = where ? facetQuery(field, where) : undefined;
    const rows = q
      ? memo(db, `${q.sql}\n${JSON.stringify(q.params)}`, () => {
          return prepared(db, q.sql).all(...q.params) as { value: string; n: number }[];
        })
      : [];
    return {
      name: field.key,
      fieldName: field.key,
      displayName: field.displayName,
      terms: rows.map((r) => ({ name: r.value, value: r.value, displayName: r.value, count: r.n })),
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// Metadata of a page

type Values = Map<string, string[]>;

function pushValue(map: Values, ref: string, value: string) {
  const list = map.get(ref);
  if (list) list.push(value);
  else map.set(ref, [value]);
}

function identifiersOf(db: Db, refsJson: string): Values {
  const rows = prepared(
    db,
    "SELECT entity_ref, type, value FROM identifiers WHERE entity_ref IN (SELECT value FROM json_each(?)) ORDER BY id",
  ).all(refsJson) as { entity_ref: string; type: string; value: string }[];
  const out: Values = new Map();
  for (const r of rows) pushValue(out, r.entity_ref, `${r.type} ${r.value}`);
  return out;
}

function formatGroupsOf(db: Db, refsJson: string): Values {
  const rows = prepared(
    db,
    `SELECT DISTINCT r.io_ref AS ref, g.format_group AS value FROM ${FORMAT_GROUP_JOIN}
     WHERE r.io_ref IN (SELECT value FROM json_each(?)) ORDER BY r.io_ref, r.type, r.idx, ro.position, g.idx`,
  ).all(refsJson) as { ref: string; value: string }[];
  const out: Values = new Map();
  for (const r of rows) pushValue(out, r.ref, r.value);
  return out;
}

/** Values per element, then per entity ref. */
function dublinCoreOf(db: Db, refsJson: string, elements: string[]): Map<string, Values> {
  const rows = prepared(
    db,
    `SELECT entity_ref, name, value FROM entity_dc_values
     WHERE entity_ref IN (SELECT value FROM json_each(?)) AND name IN (SELECT value FROM json_each(?))
     ORDER BY entity_ref, position`,
  ).all(refsJson, JSON.stringify(elements)) as { entity_ref: string; name: string; value: string }[];
  const out = new Map<string, Values>();
  for (const r of rows) {
    let byRef = out.get(r.name);
    if (!byRef) {
      byRef = new Map();
      out.set(r.name, byRef);
    }
    pushValue(byRef, r.entity_ref, r.value);
  }
  return out;
}

/** The top-level folder above each entity (itself for a top-level folder; "" for anything else at root). */
function topLevelFoldersOf(db: Db, refsJson: string): Map<string, string> {
  const rows = prepared(
    db,
    `WITH RECURSIVE up(start, ref, type, parent, depth) AS (
       SELECT e.ref, e.ref, e.type, e.parent_ref, 0 FROM entities e WHERE e.ref IN (SELECT value FROM json_each(?))
       UNION ALL
       SELECT up.start, p.ref, p.type, p.parent_ref, up.depth + 1 FROM up JOIN entities p ON p.ref = up.parent
       WHERE up.depth < 256
     ) SELECT start, ref, type FROM up WHERE parent IS NULL`,
  ).all(refsJson) as { start: string; ref: string; type: string }[];
  return new Map(rows.map((r) => [r.start, r.type === "SO" ? r.ref : ""]));
}

/** The folders above each entity, nearest first (an asset's, then its parent's, …); none at the root. */
function parentHierarchiesOf(db: Db, refsJson: string): Map<string, string[]> {
  const rows = prepared(
    db,
    `WITH RECURSIVE up(start, parent, depth) AS (
       SELECT e.ref, e.parent_ref, 0 FROM entities e WHERE e.ref IN (SELECT value FROM json_each(?))
       UNION ALL
       SELECT up.start, p.parent_ref, up.depth + 1 FROM up JOIN entities p ON p.ref = up.parent
       WHERE up.depth < 256
     ) SELECT start, parent FROM up WHERE parent IS NOT NULL ORDER BY start, depth`,
  ).all(refsJson) as { start: string; parent: string }[];
  const out = new Map<string, string[]>();
  for (const r of rows) pushValue(out, r.start, r.parent);
  return out;
}

async function readText(content: ContentStore, sha256: string, size: number): Promise<string> {
  if (size === 0 || !content.has(sha256)) return "";
  const chunks: Buffer[] = [];
  for await (const chunk of content.read(sha256, { start: 0, end: Math.min(size, FULL_TEXT_LIMIT) - 1 })) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, FULL_TEXT_LIMIT);
}

/** Text of each asset's first text/* file (preservation before access), for xip.full_text. */
async function fullTextOf(db: Db, content: ContentStore, refsJson: string): Promise<Map<string, string>> {
  const rows = prepared(
    db,
    `SELECT r.io_ref AS ref, b.content_sha256 AS sha256, b.size AS size
     FROM representations r
     JOIN representation_objects ro ON ro.representation_id = r.id
     JOIN generations g ON g.co_ref = ro.co_ref
     JOIN bitstreams b ON b.generation_id = g.id
     WHERE r.io_ref IN (SELECT value FROM json_each(?)) AND b.mime_type LIKE 'text/%'
     ORDER BY r.io_ref, r.type DESC, r.idx, ro.position, g.active DESC, g.idx, b.idx`,
  ).all(refsJson) as { ref: string; sha256: string; size: number }[];
  const out = new Map<string, string>();
  for (const r of rows) {
    if (!out.has(r.ref)) out.set(r.ref, await readText(content, r.sha256, r.size));
  }
  return out;
}

async function pageMetadata(
  ctx: SearchContext,
  fields: FieldDef[],
  rows: HitRow[],
): Promise<MetadataItem[][]> {
  if (fields.length === 0 || rows.length === 0) return rows.map(() => []);
  const refsJson = JSON.stringify(rows.map((r) => r.ref));
  const kinds = new Set(fields.map((f) => f.source.kind));
  const none = new Map<string, never>();
  const identifiers = kinds.has("identifier") ? identifiersOf(ctx.db, refsJson) : none;
  const formatGroups = kinds.has("format_group") ? formatGroupsOf(ctx.db, refsJson) : none;
  const topLevel = kinds.has("top_level_so") ? topLevelFoldersOf(ctx.db, refsJson) : none;
  const hierarchies = kinds.has("parent_hierarchy") ? parentHierarchiesOf(ctx.db, refsJson) : none;
  const fullText = kinds.has("full_text") ? await fullTextOf(ctx.db, ctx.content, refsJson) : none;
  const dcElements = fields.flatMap((f) => (f.source.kind === "dc" ? [f.source.element] : []));
  const dc = dcElements.length ? dublinCoreOf(ctx.db, refsJson, dcElements) : new Map<string, Values>();

  return rows.map((row) =>
    fields.map((f): MetadataItem => {
      const s = f.source;
      let value: string | string[];
      if (s.kind === "column") value = row[s.column] ?? "";
      else if (s.kind === "identifier") value = identifiers.get(row.ref) ?? [];
      else if (s.kind === "format_group") value = formatGroups.get(row.ref) ?? [];
      else if (s.kind === "top_level_so") value = topLevel.get(row.ref) ?? "";
      else if (s.kind === "parent_hierarchy") value = hierarchies.get(row.ref) ?? [];
      else if (s.kind === "full_text") value = fullText.get(row.ref) ?? "";
      else value = dc.get(s.element)?.get(row.ref) ?? [];
      return { name: f.key, value };
    }),
  );
}

// ---------------------------------------------------------------------------------------------------

/** Runs the search and assembles one page of hits with their metadata, the total and the facets. */
export async function runSearch(
  ctx: SearchContext,
  req: SearchRequest,
  scope: Scope,
  page: { start: number; max: number },
): Promise<SearchPage> {
  if (req.text.kind === "none" || ctx.visibleTags.length === 0) {
    return { objectIds: [], totalHits: 0, metadata: [], facets: runFacets(ctx.db, req, undefined) };
  }
  ensureDublinCoreIndex(ctx.db);
  // Words inside files added since the last text search (new stores, upgrades, ingests, replacements).
  if (req.text.kind !== "all") await ensureFileText(ctx.db, ctx.content);
  const where = buildWhere(req, scope, ctx.visibleTags);
  const order = orderBy(req, where);

  let rows: HitRow[] = [];
  if (page.max > 0) {
    const snippet = where.hasText ? ", snippet(entity_fts, -1, '<em>', '</em>', '…', 16) AS snippet" : "";
    const ranked = order.sql.endsWith(RELEVANCE) ? ` AND ${RANK_WEIGHTS}` : "";
    const sql = `SELECT e.id, e.ref, e.type, e.title, e.description, e.parent_ref, e.security_tag, e.created${snippet}
                 FROM ${where.from} WHERE ${conditions(where, false)}${ranked} ORDER BY ${order.sql} LIMIT ? OFFSET ?`;
    rows = prepared(ctx.db, sql).all(...where.params, ...order.params, page.max, page.start) as HitRow[];
  }
  // A short page tells the total without counting; otherwise count (a page past the end included).
  const countSql = `SELECT count(*) AS n FROM ${where.from} WHERE ${conditions(where, where.wholeStore)}`;
  const totalHits =
    rows.length > 0 && rows.length < page.max
      ? page.start + rows.length
      : memo(
          ctx.db,
          `${countSql}\n${JSON.stringify(where.params)}`,
          () => (prepared(ctx.db, countSql).get(...where.params) as { n: number }).n,
        );

  const objectIds = rows.map((r) => `sdb:${r.type}|${r.ref}`);
  const result: SearchPage = {
    objectIds,
    totalHits,
    metadata: await pageMetadata(ctx, req.metadata, rows),
    facets: runFacets(ctx.db, req, where),
  };
  if (where.hasText) {
    result.highlighting = Object.fromEntries(
      rows.flatMap((r, i) => (r.snippet ? [[objectIds[i] as string, [r.snippet]]] : [])),
    );
  }
  return result;
}
