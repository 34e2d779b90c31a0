import type { Readable } from "node:stream";
import { isNotFound, UnexpectedResponseError } from "./errors.js";
import type { HttpClient, HttpResponse } from "./http.js";
import { checkRef } from "./refs.js";
import {
  all,
  attr,
  boolAttr,
  childText,
  descendants,
  find,
  innerXml,
  intText,
  one,
  path,
  rootOf,
  text,
  type XmlElement,
} from "./xml.js";

export { looksLikeRef } from "./refs.js";

/**
 * The Entity API (XML) as thin typed methods returning plain objects in our own terms ("folder/asset"
 * facts, `parentRef`, `fragments`), not XIP element names. The pure `read*` functions turn a parsed
 * reply into those objects; they read by local name, so any EntityAPI/XIP namespace version parses.
 * Paths are the unversioned `/api/entity/...` by default (the service answers in its newest version).
 */

export type EntityType = "SO" | "IO" | "CO";

export const ENTITY_PATHS: Record<EntityType, string> = {
  SO: "structural-objects",
  IO: "information-objects",
  CO: "content-objects",
};
const XIP_ELEMENTS: Record<string, EntityType> = {
  StructuralObject: "SO",
  InformationObject: "IO",
  ContentObject: "CO",
};

export interface FragmentRef {
  /** The fragment's own reference (the URL tail after `/metadata/`). */
  mref: string;
  /** Schema (namespace URI) of the metadata document. */
  schema: string;
  url: string;
}

export interface Entity {
  ref: string;
  type: EntityType;
  title: string;
  description?: string;
  securityTag: string;
  customType?: string;
  /** The folder (or, for a content object, the asset) above; absent at the top level. */
  parentRef?: string;
  fragments: FragmentRef[];
}

/** An entity named in a list (children, links, look-ups). */
export interface EntitySummary {
  ref: string;
  type: EntityType;
  title: string;
}

export interface Page<T> {
  items: T[];
  /** Total across all pages, as the service reports it. */
  total: number;
  /** The service's URL of the next page; absent on the last page. Pass back as `next`. */
  next?: string;
  /** `start` of the next page, parsed from `next`, for callers that page by offset. */
  nextStart?: number;
}

export interface PageRequest {
  start?: number;
  max?: number;
  /** A `next` URL from a previous page; when given, start/max are ignored. Must be on the service. */
  next?: string;
  signal?: AbortSignal;
}

export interface MetadataFragment {
  mref: string;
  schema: string;
  entityRef?: string;
  /** The metadata document itself, verbatim XML text. */
  document: string;
}

export interface Identifier {
  apiId: string;
  type: string;
  value: string;
  entityRef?: string;
}

export interface Link {
  apiId?: string;
  /** Relationship type, a Dublin Core terms URI or a short name. */
  linkType: string;
  /** "From": this entity points at the other; "To": the other points here. */
  direction: string;
  ref: string;
  type: EntityType;
  title: string;
}

export interface RepresentationRef {
  /** "Preservation" or "Access". */
  type: string;
  name?: string;
  /** Position among representations of that type (1-based), from the URL. */
  index: number;
  url: string;
}

export interface Representation {
  type: string;
  name?: string;
  assetRef?: string;
  contentObjects: { ref: string; title?: string }[];
}

export interface GenerationRef {
  index: number;
  active: boolean;
  url: string;
}

export interface FileFormat {
  puid?: string;
  name?: string;
  version?: string;
  valid?: boolean;
  priority?: number;
  identificationMethod?: string;
}

export interface Generation {
  index: number;
  original: boolean;
  active: boolean;
  contentObjectRef?: string;
  label?: string;
  formatGroup?: string;
  effectiveDate?: string;
  formats: FileFormat[];
  properties: { group?: string; puid?: string; name?: string; value?: string }[];
  bitstreams: { index: number; filename: string; url: string }[];
}

export interface Fixity {
  algorithm: string;
  value: string;
}

export interface Bitstream {
  filename: string;
  size: number;
  originalName?: string;
  fixities: Fixity[];
  /** Download URL of the bytes. */
  contentUrl?: string;
}

export interface BitstreamContent {
  status: number;
  /** The bytes; must be consumed or destroyed. */
  stream: Readable;
  contentType?: string;
  /** Length of this reply's body, when the service said. */
  length?: number;
  /** `bytes a-b/total` on a 206 answer to a range request. */
  contentRange?: string;
  filename?: string;
}

export interface HistoryEvent {
  ref: string;
  /** Ingest, Modified, Moved, Characterise… */
  type: string;
  date: string;
  user: string;
  workflowName?: string;
  workflowInstanceId?: string;
}

export interface EventAction {
  commandType: string;
  event: HistoryEvent;
  date?: string;
  entityRef?: string;
}

export interface EventFilter extends PageRequest {
  /** Event types, e.g. ["Ingest", "Modified"]. */
  types?: string[];
  /** ISO 8601 bounds. */
  from?: string;
  to?: string;
  username?: string;
}

export interface ServiceVersion {
  version: string;
  major: number;
  minor: number;
  patch: number;
}

// ---- pure readers ------------------------------------------------------------------------------------------

function asType(raw: string | undefined): EntityType | undefined {
  const t = raw?.trim().toUpperCase();
  return t === "SO" || t === "IO" || t === "CO" ? t : undefined;
}

function tail(url: string, marker: string): string | undefined {
  const i = url.lastIndexOf(marker);
  if (i < 0) return undefined;
  return url.slice(i + marker.length).split(/[?#]/)[0];
}

function startOf(next: string | undefined): number | undefined {
  if (!next) return undefined;
  const m = next.match(/[?&]start=(\d+)/);
  return m?.[1] ? Number(m[1]) : undefined;
}

function pageTail(root: XmlElement): Pick<Page<unknown>, "total" | "next" | "nextStart"> {
  const paging = find(root, "Paging");
  const next = text(one(paging, "Next"));
  const total = intText(one(paging, "TotalResults")) ?? intText(find(root, "TotalResults"));
  return { total: total ?? 0, ...(next ? { next, nextStart: startOf(next) } : {}) };
}

function expectRoot(doc: XmlElement): XmlElement {
  return rootOf(doc).el;
}

/** EntityResponse → Entity. */
export function readEntity(doc: XmlElement): Entity {
  const root = expectRoot(doc);
  let obj: XmlElement | undefined;
  let type: EntityType | undefined;
  for (const [name, t] of Object.entries(XIP_ELEMENTS)) {
    obj = one(root, name);
    if (obj) {
      type = t;
      break;
    }
  }
  const ref = childText(obj, "Ref");
  if (!obj || !type || !ref)
    throw new TypeError("the reply holds no StructuralObject, InformationObject or ContentObject");
  const fragments: FragmentRef[] = [];
  const metadata = path(root, "AdditionalInformation", "Metadata") ?? find(root, "Metadata");
  for (const f of all(metadata, "Fragment")) {
    const url = text(f) ?? "";
    fragments.push({ mref: tail(url, "/metadata/") ?? url, schema: attr(f, "schema") ?? "", url });
  }
  const description = childText(obj, "Description");
  const customType = childText(obj, "CustomType");
  const parentRef = childText(obj, "Parent");
  return {
    ref,
    type,
    title: childText(obj, "Title") ?? "",
    ...(description ? { description } : {}),
    securityTag: childText(obj, "SecurityTag") ?? "",
    ...(customType ? { customType } : {}),
    ...(parentRef ? { parentRef } : {}),
    fragments,
  };
}

function summary(el: XmlElement): EntitySummary | undefined {
  const ref = attr(el, "ref");
  const type = asType(attr(el, "type"));
  if (!ref || !type) return undefined;
  return { ref, type, title: attr(el, "title") ?? "" };
}

/** A page of entity summaries listed as `<list><item ref type title>` elements. */
function summaries(doc: XmlElement, list: string, item: string): Page<EntitySummary> {
  const root = expectRoot(doc);
  const items = all(find(root, list), item)
    .map(summary)
    .filter((s): s is EntitySummary => s !== undefined);
  return { items, ...pageTail(root) };
}

/** ChildrenResponse → page of children. */
export function readChildren(doc: XmlElement): Page<EntitySummary> {
  return summaries(doc, "Children", "Child");
}

/** EntitiesResponse (updated-since, by-identifier) → page of entities. */
export function readEntities(doc: XmlElement): Page<EntitySummary> {
  return summaries(doc, "Entities", "Entity");
}

/** IdentifiersResponse → identifiers. */
export function readIdentifiers(doc: XmlElement): Page<Identifier> {
  const root = expectRoot(doc);
  const items = descendants(root, "Identifier").map((i) => {
    const entityRef = childText(i, "Entity");
    return {
      apiId: childText(i, "ApiId") ?? "",
      type: childText(i, "Type") ?? "",
      value: childText(i, "Value") ?? "",
      ...(entityRef ? { entityRef } : {}),
    };
  });
  return { items, ...pageTail(root) };
}

/** LinksResponse → links. */
export function readLinks(doc: XmlElement): Page<Link> {
  const root = expectRoot(doc);
  const items: Link[] = [];
  for (const l of all(find(root, "Links"), "Link")) {
    const ref = attr(l, "ref");
    const type = asType(attr(l, "type"));
    if (!ref || !type) continue;
    const apiId = attr(l, "apiId");
    items.push({
      ...(apiId ? { apiId } : {}),
      linkType: attr(l, "linkType") ?? "",
      direction: attr(l, "linkDirection") ?? "",
      ref,
      type,
      title: attr(l, "title") ?? "",
    });
  }
  return { items, ...pageTail(root) };
}

/** MetadataResponse (plus its raw text) → the fragment with its document verbatim. */
export function readMetadata(doc: XmlElement, raw: string): MetadataFragment {
  const root = expectRoot(doc);
  const container = find(root, "MetadataContainer");
  const document = innerXml(raw, "MetadataContainer", "Content");
  if (!container || document === undefined)
    throw new TypeError("the reply holds no MetadataContainer/Content");
  const entityRef = childText(container, "Entity");
  return {
    mref: childText(container, "Ref") ?? "",
    schema: attr(container, "schemaUri") ?? "",
    ...(entityRef ? { entityRef } : {}),
    document,
  };
}

/** RepresentationsResponse → representation references. */
export function readRepresentations(doc: XmlElement): Page<RepresentationRef> {
  const root = expectRoot(doc);
  const items = all(find(root, "Representations"), "Representation").map((r) => {
    const url = text(r) ?? "";
    const parts = (tail(url, "/representations/") ?? "").split("/");
    const name = attr(r, "name");
    return {
      type: attr(r, "type") ?? decodeURIComponent(parts[0] ?? ""),
      ...(name ? { name } : {}),
      index: Number(parts[1]) || 1,
      url,
    };
  });
  return { items, ...pageTail(root) };
}

/** RepresentationResponse → representation with its content objects. */
export function readRepresentation(doc: XmlElement): Representation {
  const root = expectRoot(doc);
  const rep = one(root, "Representation");
  const listed = all(one(root, "ContentObjects"), "ContentObject");
  const contentObjects = listed.length
    ? listed.map((c) => {
        const title = attr(c, "title");
        return {
          ref: attr(c, "ref") ?? tail(text(c) ?? "", "/content-objects/") ?? "",
          ...(title ? { title } : {}),
        };
      })
    : all(one(rep, "ContentObjects"), "ContentObject").map((c) => ({ ref: text(c) ?? "" }));
  const name = childText(rep, "Name");
  const assetRef = childText(rep, "InformationObject");
  return {
    type: childText(rep, "Type") ?? "",
    ...(name ? { name } : {}),
    ...(assetRef ? { assetRef } : {}),
    contentObjects: contentObjects.filter((c) => c.ref),
  };
}

/** GenerationsResponse → generation references. */
export function readGenerations(doc: XmlElement): Page<GenerationRef> {
  const root = expectRoot(doc);
  const items = all(find(root, "Generations"), "Generation").map((g) => {
    const url = text(g) ?? "";
    return { index: Number(tail(url, "/generations/")) || 0, active: boolAttr(g, "active") ?? true, url };
  });
  return { items, ...pageTail(root) };
}

/** GenerationResponse → generation with formats and bitstream list. */
export function readGeneration(doc: XmlElement, index: number): Generation {
  const root = expectRoot(doc);
  const g = one(root, "Generation");
  if (!g) throw new TypeError("the reply holds no Generation");
  const formats = all(one(g, "Formats"), "Format").map((f) => {
    const priority = intText(one(f, "Priority"));
    return {
      ...opt("puid", childText(f, "PUID")),
      ...opt("name", childText(f, "FormatName")),
      ...opt("version", childText(f, "FormatVersion")),
      ...(attr(f, "valid") !== undefined ? { valid: boolAttr(f, "valid") } : {}),
      ...(priority !== undefined ? { priority } : {}),
      ...opt("identificationMethod", childText(f, "IdentificationMethod")),
    };
  });
  const properties = all(one(g, "Properties"), "Property").map((p) => ({
    ...opt("group", childText(p, "Group")),
    ...opt("puid", childText(p, "PUID")),
    ...opt("name", childText(p, "PropertyName")),
    ...opt("value", childText(p, "Value")),
  }));
  // The linked list sits directly under the root; the XIP list inside Generation holds filenames only.
  const bitstreams = all(one(root, "Bitstreams"), "Bitstream").map((b, i) => {
    const url = text(b) ?? "";
    return { index: Number(tail(url, "/bitstreams/")) || i + 1, filename: attr(b, "filename") ?? "", url };
  });
  return {
    index,
    original: boolAttr(g, "original") ?? false,
    active: boolAttr(g, "active") ?? true,
    ...opt("contentObjectRef", childText(g, "ContentObject")),
    ...opt("label", childText(g, "Label")),
    ...opt("formatGroup", childText(g, "FormatGroup")),
    ...opt("effectiveDate", childText(g, "EffectiveDate")),
    formats,
    properties,
    bitstreams,
  };
}

/** BitstreamResponse → bitstream facts and fixities. */
export function readBitstream(doc: XmlElement): Bitstream {
  const root = expectRoot(doc);
  const b = one(root, "Bitstream");
  if (!b) throw new TypeError("the reply holds no Bitstream");
  const fixities = all(one(b, "Fixities"), "Fixity").map((f) => ({
    algorithm: childText(f, "FixityAlgorithmRef") ?? "",
    value: childText(f, "FixityValue") ?? "",
  }));
  return {
    filename: childText(b, "Filename") ?? "",
    size: intText(one(b, "FileSize")) ?? 0,
    // The spec's element (6.3 on), or the official XIP schemas' name for the same field.
    ...opt("originalName", childText(b, "OriginalName") ?? childText(b, "OriginalFilename")),
    fixities,
    ...opt("contentUrl", text(path(root, "AdditionalInformation", "Content"))),
  };
}

function readEvent(e: XmlElement): HistoryEvent {
  return {
    ref: childText(e, "Ref") ?? "",
    type: attr(e, "type") ?? "",
    date: childText(e, "Date") ?? "",
    user: childText(e, "User") ?? "",
    ...opt("workflowName", childText(e, "WorkflowName")),
    ...opt("workflowInstanceId", childText(e, "WorkflowInstanceId")),
  };
}

/** EventActionsResponse → event actions. */
export function readEventActions(doc: XmlElement): Page<EventAction> {
  const root = expectRoot(doc);
  const items = descendants(root, "EventAction").map((a) => {
    const event = one(a, "Event");
    return {
      commandType: attr(a, "commandType") ?? "",
      event: event ? readEvent(event) : { ref: "", type: "", date: "", user: "" },
      ...opt("date", childText(a, "Date")),
      ...opt("entityRef", childText(a, "Entity")),
    };
  });
  return { items, ...pageTail(root) };
}

/** EventsResponse → events. */
export function readEvents(doc: XmlElement): Page<HistoryEvent> {
  const root = expectRoot(doc);
  const items = all(find(root, "Events"), "Event").map(readEvent);
  return { items, ...pageTail(root) };
}

/** `7.7.0` → parts; the service reports three numbers (`CurrentVersion`). */
export function readVersion(doc: XmlElement): ServiceVersion {
  const version = text(find(doc, "CurrentVersion"))?.trim() ?? "";
  const [major = 0, minor = 0, patch = 0] = version.split(".").map((n) => Number.parseInt(n, 10) || 0);
  return { version, major, minor, patch };
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

// ---- the client --------------------------------------------------------------------------------------------

export interface EntityApiOptions {
  /** Base of the Entity API; "/api/entity" (unversioned: the service's newest version) by default. */
  basePath?: string;
}

export class EntityApi {
  private readonly base: string;

  constructor(
    private readonly http: HttpClient,
    opts: EntityApiOptions = {},
  ) {
    this.base = (opts.basePath ?? "/api/entity").replace(/\/+$/, "");
  }

  private entityPath(type: EntityType, ref: string): string {
    return `${this.base}/${ENTITY_PATHS[type]}/${encodeURIComponent(checkRef(ref))}`;
  }

  private async xml(
    operation: string,
    path: string,
    query?: Record<string, string | number | undefined | readonly string[]>,
    signal?: AbortSignal,
  ): Promise<HttpResponse<XmlElement> & { doc: XmlElement }> {
    const res = await this.http.request<XmlElement>({
      path,
      query,
      accept: "application/xml",
      operation,
      signal,
    });
    if (!res.data || typeof res.data !== "object" || !res.text) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation,
        method: "GET",
        path,
        detail: "the reply is not XML",
      });
    }
    return { ...res, doc: res.data };
  }

  /** GETs one document and reads it with a pure reader. */
  private async document<T>(
    operation: string,
    path: string,
    signal: AbortSignal | undefined,
    reader: (doc: XmlElement, raw: string) => T,
  ): Promise<T> {
    const res = await this.xml(operation, path, undefined, signal);
    return this.read(operation, path, res.status, () => reader(res.doc, res.text ?? ""));
  }

  /** Runs a pure reader, turning a shape it cannot read into an UnexpectedResponseError. */
  private read<T>(operation: string, path: string, status: number, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw new UnexpectedResponseError({
        status,
        operation,
        method: "GET",
        path,
        detail: `unexpected reply: ${(err as Error).message}`,
        cause: err,
      });
    }
  }

  private async list<T>(
    operation: string,
    path: string,
    page: PageRequest,
    reader: (doc: XmlElement) => Page<T>,
    extra: Record<string, string | number | undefined | readonly string[]> = {},
  ): Promise<Page<T>> {
    const target = page.next ?? path;
    const query = page.next ? undefined : { ...extra, start: page.start ?? 0, max: page.max ?? 100 };
    const res = await this.xml(operation, target, query, page.signal);
    return this.read(operation, target, res.status, () => reader(res.doc));
  }

  /**
   * An entity. Without `type`, tries asset, folder, then content object (a 404 moves to the next), since
   * a bare reference does not say what it names.
   */
  async get(ref: string, type?: EntityType, signal?: AbortSignal): Promise<Entity> {
    const types: EntityType[] = type ? [type] : ["IO", "SO", "CO"];
    let lastError: unknown;
    for (const t of types) {
      const p = this.entityPath(t, ref);
      try {
        return await this.document("entity.get", p, signal, readEntity);
      } catch (err) {
        lastError = err;
        if (!(type === undefined && isNotFound(err))) throw err;
      }
    }
    throw lastError;
  }

  /** Children of a folder, or the top-level folders when `ref` is null. */
  children(ref: string | null, page: PageRequest = {}): Promise<Page<EntitySummary>> {
    const p = ref === null ? `${this.base}/root/children` : `${this.entityPath("SO", ref)}/children`;
    return this.list("entity.children", p, page, readChildren);
  }

  /** One metadata fragment (from an entity's `fragments`), with the document as verbatim XML. */
  async metadata(
    fragment: FragmentRef | { ref: string; type: EntityType; mref: string },
    signal?: AbortSignal,
  ) {
    const p =
      "url" in fragment
        ? fragment.url
        : `${this.entityPath(fragment.type, fragment.ref)}/metadata/${encodeURIComponent(checkRef(fragment.mref, "fragment reference"))}`;
    return this.document("entity.metadata", p, signal, readMetadata);
  }

  async identifiers(ref: string, type: EntityType, page: PageRequest = {}): Promise<Page<Identifier>> {
    return this.list(
      "entity.identifiers",
      `${this.entityPath(type, ref)}/identifiers`,
      page,
      readIdentifiers,
    );
  }

  links(ref: string, type: EntityType, page: PageRequest = {}): Promise<Page<Link>> {
    return this.list("entity.links", `${this.entityPath(type, ref)}/links`, page, readLinks);
  }

  representations(assetRef: string, page: PageRequest = {}): Promise<Page<RepresentationRef>> {
    return this.list(
      "entity.representations",
      `${this.entityPath("IO", assetRef)}/representations`,
      page,
      readRepresentations,
    );
  }

  async representation(
    assetRef: string,
    type: string,
    index = 1,
    signal?: AbortSignal,
  ): Promise<Representation> {
    const p = `${this.entityPath("IO", assetRef)}/representations/${encodeURIComponent(type)}/${index}`;
    return this.document("entity.representation", p, signal, readRepresentation);
  }

  generations(contentObjectRef: string, page: PageRequest = {}): Promise<Page<GenerationRef>> {
    return this.list(
      "entity.generations",
      `${this.entityPath("CO", contentObjectRef)}/generations`,
      page,
      readGenerations,
    );
  }

  async generation(contentObjectRef: string, index: number, signal?: AbortSignal): Promise<Generation> {
    const p = `${this.entityPath("CO", contentObjectRef)}/generations/${index}`;
    return this.document("entity.generation", p, signal, (doc) => readGeneration(doc, index));
  }

  async bitstream(
    contentObjectRef: string,
    generation: number,
    index: number,
    signal?: AbortSignal,
  ): Promise<Bitstream> {
    const p = `${this.entityPath("CO", contentObjectRef)}/generations/${generation}/bitstreams/${index}`;
    return this.document("entity.bitstream", p, signal, readBitstream);
  }

  /** The bytes of a bitstream as a stream; `range` asks for part of it (inclusive byte offsets). */
  async bitstreamContent(
    contentObjectRef: string,
    generation: number,
    index: number,
    opts: { range?: { start: number; end?: number }; signal?: AbortSignal } = {},
  ): Promise<BitstreamContent> {
    const p = `${this.entityPath("CO", contentObjectRef)}/generations/${generation}/bitstreams/${index}/content`;
    const headers: Record<string, string> = {};
    if (opts.range) headers.range = `bytes=${opts.range.start}-${opts.range.end ?? ""}`;
    const res = await this.http.request<Readable>({
      path: p,
      headers,
      accept: "*/*",
      operation: "entity.bitstreamContent",
      responseType: "stream",
      signal: opts.signal,
    });
    const length = res.headers["content-length"];
    const filename = res.headers["content-disposition"]?.match(/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i)?.[1];
    return {
      status: res.status,
      stream: res.data,
      ...opt("contentType", res.headers["content-type"]),
      ...(length && /^\d+$/.test(length) ? { length: Number(length) } : {}),
      ...opt("contentRange", res.headers["content-range"]),
      ...(filename ? { filename: safeDecode(filename) } : {}),
    };
  }

  /** History of one entity: the event actions that touched it. */
  eventActions(ref: string, type: EntityType, page: PageRequest = {}): Promise<Page<EventAction>> {
    return this.list(
      "entity.eventActions",
      `${this.entityPath(type, ref)}/event-actions`,
      page,
      readEventActions,
    );
  }

  /** Events across the repository, filtered. */
  events(filter: EventFilter = {}): Promise<Page<HistoryEvent>> {
    return this.list("entity.events", `${this.base}/events`, filter, readEvents, {
      types: filter.types?.length ? filter.types.join(",") : undefined,
      from: filter.from,
      to: filter.to,
      username: filter.username,
    });
  }

  /** The actions of one event (an event can act on several entities). */
  eventActionsOfEvent(eventRef: string, page: PageRequest = {}): Promise<Page<EventAction>> {
    return this.list(
      "entity.eventActionsOfEvent",
      `${this.base}/events/${encodeURIComponent(checkRef(eventRef, "event reference"))}/event-actions`,
      page,
      readEventActions,
    );
  }

  /** Entities changed since `date` (ISO 8601), optionally until `endDate`. */
  updatedSince(date: string, opts: PageRequest & { endDate?: string } = {}): Promise<Page<EntitySummary>> {
    return this.list("entity.updatedSince", `${this.base}/entities/updated-since`, opts, readEntities, {
      date,
      endDate: opts.endDate,
    });
  }

  /** Entities carrying an identifier (`type` e.g. "code", "ISBN"; omitted = any type). */
  byIdentifier(value: string, type?: string, page: PageRequest = {}): Promise<Page<EntitySummary>> {
    return this.list("entity.byIdentifier", `${this.base}/entities/by-identifier`, page, readEntities, {
      type,
      value,
    });
  }

  /** The service's version (`/versiondetails/version`). */
  async version(signal?: AbortSignal): Promise<ServiceVersion> {
    const p = `${this.base}/versiondetails/version`;
    return this.document("entity.version", p, signal, readVersion);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
