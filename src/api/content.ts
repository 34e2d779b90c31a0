import type { Readable } from "node:stream";
import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";

/**
 * The Content API (JSON): search and listings, object details, indexed fields, download. Listings are
 * form-encoded POSTs whose `q` is a JSON *string*, built here with JSON.stringify (so quotes and
 * backslashes in search text cannot break it). Replies come in an envelope `{success, version, value}`;
 * results are returned in our terms: ids as `{type, ref}`, metadata rows as records.
 */

export type ObjectType = "SO" | "IO" | "CO";

export interface ObjectId {
  type: ObjectType;
  ref: string;
}

export interface FieldFilter {
  /** Indexed field, e.g. "xip.title", "oai_dc.subject". */
  name: string;
  values: string[];
  /** true: exclude matches (operator NOT). */
  exclude?: boolean;
}

export interface SearchQuery {
  /** Search text; "%" is the wildcard. Empty or omitted: everything. */
  text?: string;
  filters?: FieldFilter[];
  sort?: { field: string; descending?: boolean }[];
  /** Fields to count values of. */
  facets?: string[];
  /** Fields to return per hit (default: reference, title, document type, parent). */
  metadata?: string[];
  start?: number;
  max?: number;
  signal?: AbortSignal;
}

export interface FacetValue {
  value: string;
  label?: string;
  count: number;
}

export interface Facet {
  field: string;
  label?: string;
  values: FacetValue[];
}

export type MetadataRow = Record<string, string | string[]>;

export interface SearchResult {
  ids: ObjectId[];
  totalHits: number;
  /** Parallel to `ids`: the requested fields of each hit. */
  rows: MetadataRow[];
  facets: Facet[];
}

export interface IndexedField {
  /** The name used in queries: `shortName.index`, e.g. "xip.title". */
  field: string;
  shortName: string;
  index: string;
  displayName?: string;
  type?: string;
  facetable?: boolean;
  uri?: string;
  shortKey?: string;
}

/** What the service says about one object (CMIS-style properties, descriptive groups, links). */
export interface ObjectDetails {
  id: string;
  name: string;
  properties: Record<string, string>;
  metadata?: unknown;
  links: { rel: string; href: string; type?: string }[];
  /** The envelope value as received, for fields not mapped above. */
  raw: Record<string, unknown>;
}

export const DEFAULT_METADATA = ["xip.reference", "xip.title", "xip.document_type", "xip.parent_ref"];

/** "sdb:IO|uuid" → {type, ref}; undefined when it is not an object id. */
export function parseObjectId(id: string): ObjectId | undefined {
  const m = /^sdb:(SO|IO|CO)\|(.+)$/i.exec(id.trim());
  if (!m?.[1] || !m[2]) return undefined;
  return { type: m[1].toUpperCase() as ObjectType, ref: m[2] };
}

export function formatObjectId(id: ObjectId): string {
  return `sdb:${id.type}|${id.ref}`;
}

/** The `q` parameter: a JSON string, never assembled by hand. */
export function buildQ(query: SearchQuery): string {
  const q: Record<string, unknown> = { q: query.text ?? "" };
  if (query.filters?.length) {
    q.fields = query.filters.map((f) => ({
      name: f.name,
      values: f.values,
      ...(f.exclude ? { operator: "NOT" } : {}),
    }));
  }
  if (query.sort?.length) {
    q.sort = query.sort.map((s) => ({ sortFields: [s.field], sortOrder: s.descending ? "desc" : "asc" }));
  }
  if (query.facets?.length) q.facets = query.facets.map((name) => ({ name }));
  return JSON.stringify(q);
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;
}

/** The envelope's `value`, read defensively. */
function envelopeValue(data: unknown): unknown {
  return isObject(data) && "value" in data ? data.value : data;
}

export function readSearchResult(data: unknown): SearchResult {
  const v = envelopeValue(data);
  if (!isObject(v)) throw new TypeError("the reply has no search result");
  const rawIds = Array.isArray(v.objectIds) ? v.objectIds : [];
  const rawRows = Array.isArray(v.metadata) ? v.metadata : [];
  const ids: ObjectId[] = [];
  const rows: MetadataRow[] = [];
  rawIds.forEach((raw, i) => {
    const id = typeof raw === "string" ? parseObjectId(raw) : undefined;
    if (!id) return;
    ids.push(id);
    const row: MetadataRow = {};
    const items = rawRows[i];
    if (Array.isArray(items)) {
      for (const item of items) {
        if (!isObject(item) || typeof item.name !== "string") continue;
        const value = item.value;
        if (Array.isArray(value)) row[item.name] = value.map((x) => str(x) ?? "").filter((x) => x !== "");
        else if (str(value) !== undefined) row[item.name] = str(value) as string;
      }
    }
    rows.push(row);
  });
  const facets: Facet[] = [];
  for (const f of Array.isArray(v.facets) ? v.facets : []) {
    if (!isObject(f)) continue;
    const terms = Array.isArray(f.terms) ? f.terms : Array.isArray(f.values) ? f.values : [];
    const label = str(f.displayName);
    facets.push({
      field: str(f.fieldName) ?? str(f.name) ?? "",
      ...(label ? { label } : {}),
      values: terms.filter(isObject).map((t) => {
        const termLabel = str(t.displayName);
        return {
          value: str(t.value) ?? str(t.name) ?? "",
          ...(termLabel && termLabel !== str(t.value) ? { label: termLabel } : {}),
          count: Number(t.count) || 0,
        };
      }),
    });
  }
  const total = Number(v.totalHits);
  return { ids, totalHits: Number.isFinite(total) ? total : ids.length, rows, facets };
}

export class ContentApi {
  constructor(private readonly http: HttpClient) {}

  private async listing(
    operation: string,
    endpoint: string,
    query: SearchQuery,
    extra: Record<string, string>,
  ): Promise<SearchResult> {
    const path = `/api/content/${endpoint}`;
    const res = await this.http.request({
      method: "POST",
      path,
      form: {
        q: buildQ(query),
        start: query.start ?? 0,
        max: query.max ?? 25,
        metadata: (query.metadata ?? DEFAULT_METADATA).join(","),
        ...extra,
      },
      accept: "application/json",
      operation,
      // A query: sending it twice changes nothing, so it may be retried like a GET.
      idempotent: true,
      signal: query.signal,
    });
    try {
      return readSearchResult(res.data);
    } catch (err) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation,
        method: "POST",
        path,
        detail: (err as Error).message,
        cause: err,
      });
    }
  }

  /** Search the whole repository (what the caller may see). */
  search(query: SearchQuery = {}): Promise<SearchResult> {
    return this.listing("content.search", "search", query, {});
  }

  /** Search below one folder. */
  searchWithin(folderRef: string, query: SearchQuery = {}): Promise<SearchResult> {
    return this.listing("content.searchWithin", "search-within", query, { parenthierarchy: folderRef });
  }

  /** The top-level folders. */
  topLevelList(query: SearchQuery = {}): Promise<SearchResult> {
    return this.listing("content.topLevelList", "top-level-list", query, {});
  }

  /** Children of an object. */
  objectChildren(id: ObjectId, query: SearchQuery = {}): Promise<SearchResult> {
    return this.listing("content.objectChildren", "object-children", query, { id: formatObjectId(id) });
  }

  async objectDetails(id: ObjectId, signal?: AbortSignal): Promise<ObjectDetails> {
    const path = "/api/content/object-details";
    const res = await this.http.request({
      path,
      query: { id: formatObjectId(id) },
      accept: "application/json",
      operation: "content.objectDetails",
      signal,
    });
    const v = envelopeValue(res.data);
    if (!isObject(v)) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation: "content.objectDetails",
        method: "GET",
        path,
        detail: "the reply has no object details",
      });
    }
    const properties: Record<string, string> = {};
    for (const p of Array.isArray(v.properties) ? v.properties : []) {
      if (isObject(p) && typeof p.name === "string") properties[p.name] = str(p.value) ?? "";
    }
    const links = (Array.isArray(v.links) ? v.links : []).filter(isObject).map((l) => ({
      rel: str(l.rel) ?? "",
      href: str(l.href) ?? "",
      ...(str(l.type) ? { type: str(l.type) } : {}),
    }));
    return {
      id: str(v.id) ?? formatObjectId(id),
      name: str(v.name) ?? "",
      properties,
      ...(v.metadata !== undefined ? { metadata: v.metadata } : {}),
      links,
      raw: v,
    };
  }

  async indexedFields(signal?: AbortSignal): Promise<IndexedField[]> {
    const res = await this.http.request({
      path: "/api/content/indexed-fields",
      accept: "application/json",
      operation: "content.indexedFields",
      signal,
    });
    const v = envelopeValue(res.data);
    const list = Array.isArray(v) ? v : [];
    return list.filter(isObject).map((f) => {
      const shortName = str(f.shortName) ?? "";
      const index = str(f.index) ?? "";
      const out: IndexedField = {
        field: shortName && index ? `${shortName}.${index}` : index,
        shortName,
        index,
      };
      if (str(f.displayName)) out.displayName = str(f.displayName);
      if (str(f.type)) out.type = str(f.type);
      if (f.facetable !== undefined) out.facetable = f.facetable === true || f.facetable === "true";
      if (str(f.uri)) out.uri = str(f.uri);
      if (str(f.shortKey)) out.shortKey = str(f.shortKey);
      return out;
    });
  }

  /** The object's file as a stream (access copy first, else preservation); `range` for part of it. */
  async download(
    id: ObjectId,
    opts: { range?: { start: number; end?: number }; signal?: AbortSignal } = {},
  ): Promise<{ status: number; stream: Readable; contentType?: string; length?: number }> {
    const res = await this.http.request<Readable>({
      path: "/api/content/download",
      query: { id: formatObjectId(id) },
      headers: opts.range ? { range: `bytes=${opts.range.start}-${opts.range.end ?? ""}` } : {},
      accept: "*/*",
      operation: "content.download",
      responseType: "stream",
      signal: opts.signal,
    });
    const length = res.headers["content-length"];
    return {
      status: res.status,
      stream: res.data,
      ...(res.headers["content-type"] ? { contentType: res.headers["content-type"] } : {}),
      ...(length && /^\d+$/.test(length) ? { length: Number(length) } : {}),
    };
  }
}
