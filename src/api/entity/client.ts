import type { Readable } from "node:stream";
import { isNotFound, UnexpectedResponseError } from "../errors.js";
import type { HttpClient, HttpResponse } from "../http.js";
import { checkRef } from "../refs.js";
import { opt, readReply, unreadableReply } from "../reply.js";
import type { XmlElement } from "../xml.js";
import {
  readBitstream,
  readChildren,
  readEntities,
  readEntity,
  readEventActions,
  readEvents,
  readGeneration,
  readGenerations,
  readIdentifiers,
  readLinks,
  readMetadata,
  readRepresentation,
  readRepresentations,
  readVersion,
} from "./read.js";
import {
  type Bitstream,
  type BitstreamContent,
  ENTITY_PATHS,
  type Entity,
  type EntitySummary,
  type EntityType,
  type EventAction,
  type EventFilter,
  type FragmentRef,
  type Generation,
  type GenerationRef,
  type HistoryEvent,
  type Identifier,
  type Link,
  type Page,
  type PageRequest,
  pageTarget,
  type Representation,
  type RepresentationRef,
  type ServiceVersion,
} from "./types.js";

/**
 * The Entity API (XML) as thin typed methods returning plain objects in our own terms; the pure readers in
 * read.ts turn each reply into them. Paths are the unversioned `/api/entity/...` by default (the service
 * answers in its newest version).
 */

/** Throws unless the reply is an XML document (a parsed tree and the text it was parsed from). */
function checkXml(res: HttpResponse<XmlElement>, operation: string, path: string): void {
  if (!res.data || typeof res.data !== "object" || !res.text) {
    throw new UnexpectedResponseError({
      status: res.status,
      operation,
      method: "GET",
      path,
      detail: "the reply is not XML",
    });
  }
}

/** A reply that should be an XML document, read with `reader`; anything else is an UnexpectedResponseError. */
function readDocument<T>(
  res: HttpResponse<XmlElement>,
  operation: string,
  path: string,
  reader: (doc: XmlElement, raw: string) => T,
): T {
  checkXml(res, operation, path);
  // readReply's rule, inline: a closure per call is not needed.
  try {
    return reader(res.data, res.text as string);
  } catch (err) {
    throw unreadableReply({ status: res.status, operation, method: "GET", path }, err);
  }
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
    // checkRef lets through hex digits and dashes only: nothing to encode.
    return `${this.base}/${ENTITY_PATHS[type]}/${checkRef(ref)}`;
  }

  /** GETs an XML document: the reply, whose `data` is the parsed tree and `text` the document as sent. */
  private async xml(
    operation: string,
    path: string,
    query?: Record<string, string | number | undefined | readonly string[]>,
    signal?: AbortSignal,
  ): Promise<HttpResponse<XmlElement>> {
    const res = await this.http.request<XmlElement>({
      path,
      query,
      accept: "application/xml",
      operation,
      signal,
    });
    checkXml(res, operation, path);
    return res;
  }

  /** GETs one document and reads it with a pure reader (a shape it cannot read: UnexpectedResponseError). */
  private async document<T>(
    operation: string,
    path: string,
    signal: AbortSignal | undefined,
    reader: (doc: XmlElement, raw: string) => T,
  ): Promise<T> {
    // The request straight from here rather than through xml(): this runs for every entity a tool reads, and
    // each async step is a promise, a turn and a saved frame more.
    const res = await this.http.request<XmlElement>({ path, accept: "application/xml", operation, signal });
    return readDocument(res, operation, path, reader);
  }

  /** Runs a pure reader, turning a shape it cannot read into an UnexpectedResponseError. */
  private read<T>(operation: string, path: string, status: number, fn: () => T): T {
    return readReply({ status, operation, method: "GET", path }, fn);
  }

  private async list<T>(
    operation: string,
    path: string,
    page: PageRequest,
    reader: (doc: XmlElement) => Page<T>,
    extra: Record<string, string | number | undefined | readonly string[]> = {},
  ): Promise<Page<T>> {
    const { path: target, query } = pageTarget(page, path, extra);
    const res = await this.xml(operation, target, query, page.signal);
    return this.read(operation, target, res.status, () => reader(res.data));
  }

  /**
   * An entity. Without `type`, tries asset, folder, then content object (a 404 moves to the next), since
   * a bare reference does not say what it names.
   */
  get(ref: string, type?: EntityType, signal?: AbortSignal): Promise<Entity> {
    // A known type (what tools pass whenever they can): one request, no fallback to set up, no async step of
    // its own. A bad ref is a rejection, as from every other method, not a throw.
    if (type) {
      let p: string;
      try {
        p = this.entityPath(type, ref);
      } catch (err) {
        return Promise.reject(err);
      }
      return this.document("entity.get", p, signal, readEntity);
    }
    return this.getAnyKind(ref, signal);
  }

  /** Tries asset, folder, then content object: a 404 moves to the next. */
  private async getAnyKind(ref: string, signal?: AbortSignal): Promise<Entity> {
    const types: EntityType[] = ["IO", "SO", "CO"];
    let lastError: unknown;
    for (const t of types) {
      const p = this.entityPath(t, ref);
      try {
        return await this.document("entity.get", p, signal, readEntity);
      } catch (err) {
        lastError = err;
        if (!isNotFound(err)) throw err;
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
