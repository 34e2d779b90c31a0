import { isUuid, listValues, type Params } from "../http/params.js";
import { type FieldDef, findField } from "./fields.js";
import { type TextQuery, toFtsQuery } from "./fts.js";

/**
 * Reads a Content API search request (the `q` parameter and its companions) into a `SearchRequest`.
 * Real clients build `q` by string formatting without escaping, so this is tolerant where it can be
 * (plain text instead of JSON, empty filter values, unknown top-level keys) and says exactly what is
 * wrong where it cannot guess (JSON that does not parse, unknown fields in filters, sorts or facets).
 */

/** A client mistake in a search request; the route answers 400 with this message. */
export class SearchInputError extends Error {}

export interface FieldFilter {
  field: FieldDef;
  values: string[];
  negate: boolean;
}

export interface SortKey {
  field: FieldDef;
  descending: boolean;
}

export interface SearchRequest {
  text: TextQuery;
  /** Refs from `id:<ref>` terms: the hits are restricted to these entities. */
  refs: string[];
  filters: FieldFilter[];
  sort: SortKey[];
  facets: FieldDef[];
  /** Fields to return for each hit, in the order asked for (unknown names dropped). */
  metadata: FieldDef[];
}

/**
 * Most filter values one search may list, in all its filters together ("fields" values and field
 * terms in the text). Every value is a condition of one SQL statement, and most scan a table: past
 * SQLite's caps on bound values and expression depth a search failed, and well before them it slowed
 * to seconds.
 */
export const MAX_FILTER_VALUES = 100;

const FIELDS_HINT = "GET /api/content/indexed-fields lists the indexed fields";
const Q_EXAMPLE = '{"q":"maps","fields":[{"name":"xip.document_type","values":["IO"]}]}';

interface RawQuery {
  text: string;
  fields: unknown[];
  sort: unknown[];
  facets: unknown[];
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

function asString(value: unknown, where: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new SearchInputError(`${where} must be a string, got ${describe(value)}`);
}

function asList(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  throw new SearchInputError(`${where} must be a JSON array, got ${describe(value)}`);
}

/** `q` is a JSON object, or (anything not starting with `{`) plain search text. */
function readQ(raw: string | undefined): RawQuery {
  const trimmed = (raw ?? "").trim();
  if (!trimmed.startsWith("{")) return { text: trimmed, fields: [], sort: [], facets: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SearchInputError(
      `Parameter q starts with "{" but is not valid JSON (${reason}); send a JSON object such as ${Q_EXAMPLE}, or plain search text`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new SearchInputError(`Parameter q must be a JSON object such as ${Q_EXAMPLE}`);
  }
  const o = parsed as Record<string, unknown>;
  return {
    text: o.q === undefined || o.q === null ? "" : asString(o.q, 'q "q"'),
    fields: asList(o.fields, 'q "fields"'),
    sort: asList(o.sort, 'q "sort"'),
    facets: asList(o.facets, 'q "facets"'),
  };
}

function fieldOrFail(name: string, use: "filter" | "sort" | "facet"): FieldDef {
  const field = findField(name);
  if (!field) throw new SearchInputError(`Unknown field "${name}" in ${use}; ${FIELDS_HINT}`);
  const allowed = use === "filter" ? field.filterable : use === "sort" ? field.sortable : field.facetable;
  if (!allowed) throw new SearchInputError(`Field "${field.key}" cannot be used to ${use}; ${FIELDS_HINT}`);
  return field;
}

function readFilter(item: unknown, i: number): FieldFilter | undefined {
  const where = `q "fields"[${i}]`;
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw new SearchInputError(`${where} must be an object like {"name":"xip.title","values":["x"]}`);
  }
  const o = item as Record<string, unknown>;
  const name = asString(o.name, `${where} "name"`);
  const rawValues = typeof o.values === "string" ? [o.values] : asList(o.values, `${where} "values"`);
  const values = rawValues
    .map((v, j) => asString(v, `${where} "values"[${j}]`))
    .filter((v) => v.trim() !== "");
  // Clients list every column they want returned as a filter with no values: that restricts nothing.
  if (values.length === 0) return undefined;
  const operator =
    o.operator === undefined || o.operator === null ? "IS" : asString(o.operator, `${where} "operator"`);
  const op = operator.trim().toUpperCase();
  if (op !== "IS" && op !== "NOT") {
    throw new SearchInputError(`${where} "operator" must be "IS" or "NOT", got "${operator}"`);
  }
  return { field: fieldOrFail(name, "filter"), values, negate: op === "NOT" };
}

function readSort(item: unknown, i: number): SortKey[] {
  const where = `q "sort"[${i}]`;
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw new SearchInputError(
      `${where} must be an object like {"sortFields":["xip.title"],"sortOrder":"asc"}`,
    );
  }
  const o = item as Record<string, unknown>;
  const names =
    typeof o.sortFields === "string" ? [o.sortFields] : asList(o.sortFields, `${where} "sortFields"`);
  const order =
    o.sortOrder === undefined || o.sortOrder === null ? "asc" : asString(o.sortOrder, `${where} "sortOrder"`);
  const dir = order.trim().toLowerCase();
  if (dir !== "asc" && dir !== "desc") {
    throw new SearchInputError(`${where} "sortOrder" must be "asc" or "desc", got "${order}"`);
  }
  return names.map((n, j) => ({
    field: fieldOrFail(asString(n, `${where} "sortFields"[${j}]`), "sort"),
    descending: dir === "desc",
  }));
}

function readFacetName(item: unknown, i: number): string {
  if (typeof item === "object" && item !== null && !Array.isArray(item)) {
    const o = item as Record<string, unknown>;
    return asString(o.name ?? o.field ?? o.fieldName, `q "facets"[${i}] "name"`);
  }
  return asString(item, `q "facets"[${i}]`);
}

function unique<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = key(t);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `sdb:IO|<uuid>` or a bare UUID, as the Content API accepts them. */
export function parseObjectId(raw: string): { type?: "SO" | "IO" | "CO"; ref: string } | undefined {
  const m = raw.trim().match(/^(?:sdb:(SO|IO|CO)\|)?([0-9a-f-]{36})$/i);
  if (!m?.[2] || !isUuid(m[2])) return undefined;
  const type = m[1]?.toUpperCase() as "SO" | "IO" | "CO" | undefined;
  return type ? { type, ref: m[2].toLowerCase() } : { ref: m[2].toLowerCase() };
}

/**
 * Field terms written inside the text: `id:<ref>` (what pyPreservica's full_text sends) and
 * `<indexed field>:<value>` such as `xip.document_type:IO` or `-oai_dc.subject:"war memorials"`.
 * Terms naming no indexed field stay in the text.
 */
function extractFieldTerms(text: string): { rest: string; refs: string[]; filters: FieldFilter[] } {
  const refs: string[] = [];
  const filters: FieldFilter[] = [];
  const rest = text.replace(
    /(^|\s)(-?)([A-Za-z_]+\.[A-Za-z_]+|id):("[^"]*"|\S+)/g,
    (whole, lead: string, minus: string, name: string, rawValue: string) => {
      const value = rawValue.replace(/^"|"$/g, "");
      if (name.toLowerCase() === "id") {
        // An id that is not a UUID can match nothing; keep it so the answer is an honest empty list.
        refs.push(parseObjectId(value)?.ref ?? value);
        return lead;
      }
      const field = findField(name);
      if (!field?.filterable) return whole;
      filters.push({ field, values: [value], negate: minus === "-" });
      return lead;
    },
  );
  return { rest, refs, filters };
}

/** Parses `q`, `metadata` and `facets` of a search request. */
export function parseSearchRequest(params: Params): SearchRequest {
  const raw = readQ(params.get("q"));
  const terms = extractFieldTerms(raw.text);
  const filters = [
    ...raw.fields.map(readFilter).filter((f): f is FieldFilter => f !== undefined),
    ...terms.filters,
  ];
  const valueCount = filters.reduce((n, f) => n + f.values.length, 0);
  if (valueCount > MAX_FILTER_VALUES) {
    throw new SearchInputError(
      `The search's filters list ${valueCount} values; at most ${MAX_FILTER_VALUES} are allowed in all, so use fewer (a wildcard such as "maps*" matches many)`,
    );
  }
  const sort = unique(raw.sort.flatMap(readSort), (s) => s.field.key);
  const facetNames = [...raw.facets.map(readFacetName), ...listValues(params.getAll("facets"))];
  const facets = unique(
    facetNames.map((n) => fieldOrFail(n, "facet")),
    (f) => f.key,
  );
  const metadata = unique(
    listValues(params.getAll("metadata"))
      .map((n) => findField(n))
      .filter((f): f is FieldDef => f !== undefined),
    (f) => f.key,
  );
  const hasFieldTerms = terms.refs.length > 0 || terms.filters.length > 0;
  // "id:<ref>" alone means "that entity", not "everything": an empty rest is no text constraint.
  const text = hasFieldTerms && terms.rest.trim() === "" ? { kind: "all" as const } : toFtsQuery(terms.rest);
  return { text, refs: terms.refs, filters, sort, facets, metadata };
}
