import type { Readable } from "node:stream";

/** The Entity API's objects in our own terms ("folder/asset" facts, `parentRef`, `fragments`), not XIP names. */

export type EntityType = "SO" | "IO" | "CO";

export const ENTITY_PATHS: Record<EntityType, string> = {
  SO: "structural-objects",
  IO: "information-objects",
  CO: "content-objects",
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

/**
 * Where a page request goes: the `next` URL as the previous page gave it (it carries its own query), else
 * `path` with the filters, start and max (100 unless asked).
 */
export function pageTarget<F extends Record<string, unknown> = Record<never, never>>(
  page: PageRequest,
  path: string,
  filters?: F,
): { path: string; query?: F & { start: number; max: number } } {
  if (page.next) return { path: page.next };
  return { path, query: { ...(filters as F), start: page.start ?? 0, max: page.max ?? 100 } };
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
