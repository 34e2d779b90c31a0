import { opt } from "../reply.js";
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
} from "../xml.js";
import type {
  Bitstream,
  Entity,
  EntitySummary,
  EntityType,
  EventAction,
  FragmentRef,
  Generation,
  GenerationRef,
  HistoryEvent,
  Identifier,
  Link,
  MetadataFragment,
  Page,
  Representation,
  RepresentationRef,
  ServiceVersion,
} from "./types.js";

/**
 * Pure readers: a parsed Entity API reply into our own objects. They read by local name, so any
 * EntityAPI/XIP namespace version parses.
 */

/** The element an entity document holds, by the type it names (in the order they are looked for). */
const XIP_ELEMENTS: readonly (readonly [string, EntityType])[] = [
  ["StructuralObject", "SO"],
  ["InformationObject", "IO"],
  ["ContentObject", "CO"],
];

// ---- pure readers ------------------------------------------------------------------------------------------

function asType(raw: string | undefined): EntityType | undefined {
  const t = raw?.trim().toUpperCase();
  return t === "SO" || t === "IO" || t === "CO" ? t : undefined;
}

function tail(url: string, marker: string): string | undefined {
  const i = url.lastIndexOf(marker);
  if (i < 0) return undefined;
  const from = i + marker.length;
  // Up to a query or fragment, if any.
  let end = url.length;
  const query = url.indexOf("?", from);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", from);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(from, end);
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
  for (const [name, t] of XIP_ELEMENTS) {
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
  // Filled in key by key, in this order (the optional facts only when present): a spread per optional fact
  // made an object more for each, on every entity read.
  const e = { ref, type, title: childText(obj, "Title") ?? "" } as Entity;
  if (description) e.description = description;
  e.securityTag = childText(obj, "SecurityTag") ?? "";
  if (customType) e.customType = customType;
  if (parentRef) e.parentRef = parentRef;
  e.fragments = fragments;
  return e;
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
