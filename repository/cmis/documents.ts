import { XmlWriter } from "../xml/writer.js";
import type { CmisObject } from "./objects.js";
import { ROOT_ID } from "./objects.js";
import { type PropertyDefinition, type TypeDefinition, typeById } from "./types.js";

/**
 * The CMIS 1.1 AtomPub documents (service document, entries, feeds, type definitions, allowable
 * actions). Every value goes through XmlWriter, which escapes text and attributes and drops characters
 * XML cannot carry, so titles and metadata taken from stored fragments can never break a reply. No
 * whitespace between elements: some clients (libcmis) read every child node of a definition.
 */

export const APP_NS = "http://www.w3.org/2007/app";
export const ATOM_NS = "http://www.w3.org/2005/Atom";
export const CMIS_NS = "http://docs.oasis-open.org/ns/cmis/core/200908/";
export const CMISRA_NS = "http://docs.oasis-open.org/ns/cmis/restatom/200908/";
const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
const LINK = "http://docs.oasis-open.org/ns/cmis/link/200908/";

export const REPOSITORY_ID = "preservica";
export const REPOSITORY_NAME = "Preservation repository (local, Preservica-compatible)";

export const ENTRY_TYPE = "application/atom+xml;type=entry";
export const FEED_TYPE = "application/atom+xml;type=feed";
export const SERVICE_TYPE = "application/atomsvc+xml";
export const ACTIONS_TYPE = "application/cmisallowableactions+xml";
export const QUERY_TYPE = "application/cmisquery+xml";

const NAMESPACES = {
  "xmlns:app": APP_NS,
  "xmlns:atom": ATOM_NS,
  "xmlns:cmis": CMIS_NS,
  "xmlns:cmisra": CMISRA_NS,
  "xmlns:xsi": XSI_NS,
};

/** The addresses of the endpoint's resources, from the base `…/api/cmis/atom`. */
export class CmisUrls {
  readonly repo: string;
  constructor(readonly base: string) {
    this.repo = `${base}/${REPOSITORY_ID}`;
  }
  private q(path: string, params: Record<string, string | number | undefined>): string {
    const pairs: [string, string][] = [];
    for (const [k, v] of Object.entries(params)) if (v !== undefined) pairs.push([k, String(v)]);
    return `${this.repo}/${path}?${new URLSearchParams(pairs)}`;
  }
  object(id: string) {
    return this.q("id", { id });
  }
  children(id: string, skipCount?: number, maxItems?: number) {
    return this.q("children", { id, skipCount, maxItems: skipCount === undefined ? undefined : maxItems });
  }
  parents(id: string) {
    return this.q("parents", { id });
  }
  content(id: string) {
    return this.q("content", { id });
  }
  actions(id: string) {
    return this.q("allowableactions", { id });
  }
  type(id: string) {
    return this.q("type", { id });
  }
  types(typeId?: string) {
    return typeId ? this.q("types", { typeId }) : `${this.repo}/types`;
  }
  /** The query collection (POST), or one page of a statement's results (GET). */
  query(q?: string, skipCount?: number, maxItems?: number, includeAllowableActions?: boolean) {
    if (q === undefined) return `${this.repo}/query`;
    return this.q("query", {
      q,
      skipCount,
      maxItems,
      includeAllowableActions: includeAllowableActions ? "true" : undefined,
    });
  }
}

/**
 * The repository's capabilities, declared as they are: read-only navigation, no ACLs, and queries that
 * combine full text (CONTAINS) with property and folder predicates in one statement (`bothcombined`;
 * what the statements may hold is in cmis/query.ts).
 */
const CAPABILITIES: [string, string][] = [
  ["capabilityACL", "none"],
  ["capabilityAllVersionsSearchable", "false"],
  ["capabilityChanges", "none"],
  ["capabilityContentStreamUpdatability", "none"],
  ["capabilityGetDescendants", "false"],
  ["capabilityGetFolderTree", "false"],
  ["capabilityOrderBy", "none"],
  ["capabilityMultifiling", "false"],
  ["capabilityPWCSearchable", "false"],
  ["capabilityPWCUpdatable", "false"],
  ["capabilityQuery", "bothcombined"],
  ["capabilityRenditions", "none"],
  ["capabilityUnfiling", "false"],
  ["capabilityVersionSpecificFiling", "false"],
  ["capabilityJoin", "none"],
];

function repositoryInfo(w: XmlWriter): void {
  w.open("cmisra:repositoryInfo")
    .leaf("cmis:repositoryId", REPOSITORY_ID)
    .leaf("cmis:repositoryName", REPOSITORY_NAME)
    .leaf(
      "cmis:repositoryDescription",
      "Read-only CMIS 1.1 view of the folders and assets you may read; write through the Entity API",
    )
    .leaf("cmis:vendorName", "preservation-mcp")
    .leaf("cmis:productName", "Local Preservica-compatible repository")
    .leaf("cmis:productVersion", "0.1.0")
    .leaf("cmis:rootFolderId", ROOT_ID)
    .open("cmis:capabilities");
  for (const [name, value] of CAPABILITIES) w.leaf(`cmis:${name}`, value);
  w.close("cmis:capabilities").leaf("cmis:cmisVersionSupported", "1.1").close("cmisra:repositoryInfo");
}

function collection(w: XmlWriter, href: string, title: string, type: string, accept?: string): void {
  w.open("app:collection", { href }).leaf("atom:title", title, { type: "text" });
  if (accept) w.leaf("app:accept", accept);
  w.leaf("cmisra:collectionType", type).close("app:collection");
}

function uriTemplate(w: XmlWriter, template: string, type: string, mediatype: string): void {
  w.open("cmisra:uritemplate")
    .leaf("cmisra:template", template)
    .leaf("cmisra:type", type)
    .leaf("cmisra:mediatype", mediatype)
    .close("cmisra:uritemplate");
}

export function serviceDocument(urls: CmisUrls): string {
  const w = new XmlWriter().open("app:service", NAMESPACES).open("app:workspace");
  w.leaf("atom:title", REPOSITORY_NAME, { type: "text" });
  repositoryInfo(w);
  collection(w, urls.children(ROOT_ID), "Root Collection", "root");
  collection(w, urls.types(), "Types Collection", "types");
  collection(w, urls.query(), "Query Collection", "query", QUERY_TYPE);
  w.leaf("atom:link", "", {
    rel: `${LINK}typedescendants`,
    type: FEED_TYPE,
    href: urls.types(),
  });
  uriTemplate(
    w,
    `${urls.repo}/id?id={id}&filter={filter}&includeAllowableActions={includeAllowableActions}&includeACL={includeACL}&includePolicyIds={includePolicyIds}&includeRelationships={includeRelationships}&renditionFilter={renditionFilter}`,
    "objectbyid",
    ENTRY_TYPE,
  );
  uriTemplate(w, `${urls.repo}/type?id={id}`, "typebyid", ENTRY_TYPE);
  uriTemplate(
    w,
    `${urls.repo}/query?q={q}&searchAllVersions={searchAllVersions}&maxItems={maxItems}&skipCount={skipCount}&includeAllowableActions={includeAllowableActions}&includeRelationships={includeRelationships}&renditionFilter={renditionFilter}`,
    "query",
    FEED_TYPE,
  );
  return w.close("app:workspace").close("app:service").toString();
}

// ---------------------------------------------------------------------------------------------------
// Objects

const PROPERTY_ELEMENT: Record<PropertyDefinition["type"], string> = {
  id: "cmis:propertyId",
  string: "cmis:propertyString",
  integer: "cmis:propertyInteger",
  boolean: "cmis:propertyBoolean",
  datetime: "cmis:propertyDateTime",
};

/** Always in a query result, whatever was selected: a client cannot use a result it cannot identify. */
const IDENTIFYING = ["cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"];

function properties(w: XmlWriter, o: CmisObject, select?: ReadonlySet<string>): void {
  const type = typeById(o.baseType) as TypeDefinition;
  w.open("cmis:properties");
  for (const def of type.properties) {
    if (select && !select.has(def.id) && !IDENTIFYING.includes(def.id)) continue;
    const element = PROPERTY_ELEMENT[def.type];
    const attrs = {
      propertyDefinitionId: def.id,
      localName: def.id.replace(/^\w+:/, ""),
      displayName: def.displayName,
      queryName: def.id,
    };
    const values = (o.values.get(def.id) ?? []).filter((v) => v !== "" || def.type === "string");
    if (values.length === 0) {
      w.leaf(element, "", attrs);
      continue;
    }
    w.open(element, attrs);
    for (const v of values) w.leaf("cmis:value", v);
    w.close(element);
  }
  w.close("cmis:properties");
}

/** CMIS 1.1's allowable actions, in the schema's order; only reading is ever allowed. */
export function allowableActions(o: CmisObject): [string, boolean][] {
  const folder = o.baseType === "cmis:folder";
  const root = o.id === ROOT_ID;
  return [
    ["canDeleteObject", false],
    ["canUpdateProperties", false],
    ["canGetFolderTree", false],
    ["canGetProperties", true],
    ["canGetObjectRelationships", false],
    ["canGetObjectParents", !root],
    ["canGetFolderParent", folder && !root],
    ["canGetDescendants", false],
    ["canMoveObject", false],
    ["canDeleteContentStream", false],
    ["canCheckOut", false],
    ["canCancelCheckOut", false],
    ["canCheckIn", false],
    ["canSetContentStream", false],
    ["canGetAllVersions", false],
    ["canAddObjectToFolder", false],
    ["canRemoveObjectFromFolder", false],
    ["canGetContentStream", !folder && o.canDownload],
    ["canApplyPolicy", false],
    ["canGetAppliedPolicies", false],
    ["canRemovePolicy", false],
    ["canGetChildren", folder],
    ["canCreateDocument", false],
    ["canCreateFolder", false],
    ["canCreateRelationship", false],
    ["canCreateItem", false],
    ["canDeleteTree", false],
    ["canGetRenditions", false],
    ["canGetACL", false],
    ["canApplyACL", false],
  ];
}

function actionsElement(w: XmlWriter, o: CmisObject, attrs?: Record<string, string>): void {
  w.open("cmis:allowableActions", attrs);
  for (const [name, allowed] of allowableActions(o)) w.leaf(`cmis:${name}`, String(allowed));
  w.close("cmis:allowableActions");
}

export function allowableActionsDocument(o: CmisObject): string {
  const w = new XmlWriter();
  actionsElement(w, o, { "xmlns:cmis": CMIS_NS });
  return w.toString();
}

export interface EntryOptions {
  includeAllowableActions: boolean;
  /** A query's select list: only these properties (and the identifying ones); all when absent. */
  select?: ReadonlySet<string>;
}

function entry(w: XmlWriter, urls: CmisUrls, o: CmisObject, opts: EntryOptions, ns = false): void {
  const self = urls.object(o.id);
  w.open("atom:entry", ns ? NAMESPACES : undefined)
    .open("atom:author")
    .leaf("atom:name", o.createdBy)
    .close("atom:author");
  if (o.baseType === "cmis:document" && o.file) {
    w.leaf("atom:content", "", {
      src: urls.content(o.id),
      type: o.file.mimeType || "application/octet-stream",
    });
  }
  w.leaf("atom:id", self)
    .leaf("atom:published", o.created)
    .leaf("atom:summary", o.description, { type: "text" })
    .leaf("atom:title", o.name, { type: "text" })
    .leaf("atom:updated", o.modified)
    .leaf("atom:link", "", { rel: "self", type: ENTRY_TYPE, href: self })
    .leaf("atom:link", "", { rel: "service", type: SERVICE_TYPE, href: urls.base })
    .leaf("atom:link", "", { rel: "describedby", type: ENTRY_TYPE, href: urls.type(o.baseType) })
    .leaf("atom:link", "", { rel: `${LINK}allowableactions`, type: ACTIONS_TYPE, href: urls.actions(o.id) });
  if (o.baseType === "cmis:folder") {
    w.leaf("atom:link", "", { rel: "down", type: FEED_TYPE, href: urls.children(o.id) });
    if (o.parentId) w.leaf("atom:link", "", { rel: "up", type: ENTRY_TYPE, href: urls.object(o.parentId) });
  } else {
    w.leaf("atom:link", "", { rel: "up", type: FEED_TYPE, href: urls.parents(o.id) });
  }
  w.open("cmisra:object");
  properties(w, o, opts.select);
  if (opts.includeAllowableActions) actionsElement(w, o);
  w.close("cmisra:object").close("atom:entry");
}

export function entryDocument(urls: CmisUrls, o: CmisObject, opts: EntryOptions): string {
  const w = new XmlWriter();
  entry(w, urls, o, opts, true);
  return w.toString();
}

export interface FeedPage {
  /** The feed's own address, and the addresses of the other pages (absent when there is none). */
  self: string;
  first?: string;
  previous?: string;
  next?: string;
  last?: string;
  total: number;
  hasMoreItems: boolean;
}

interface FeedHead {
  title: string;
  author: string;
  updated: string;
  /** The entry the feed is about (`via`): a folder for its children, an object for its parents. */
  via?: string;
}

function feed(
  urls: CmisUrls,
  head: FeedHead,
  items: CmisObject[],
  page: FeedPage,
  opts: EntryOptions,
): string {
  const w = new XmlWriter().open("atom:feed", NAMESPACES);
  w.open("atom:author").leaf("atom:name", head.author).close("atom:author");
  w.leaf("atom:id", page.self)
    .leaf("atom:title", head.title, { type: "text" })
    .leaf("atom:updated", head.updated)
    .leaf("atom:link", "", { rel: "self", type: FEED_TYPE, href: page.self })
    .leaf("atom:link", "", { rel: "service", type: SERVICE_TYPE, href: urls.base });
  if (head.via) w.leaf("atom:link", "", { rel: "via", type: ENTRY_TYPE, href: head.via });
  for (const rel of ["first", "previous", "next", "last"] as const) {
    const href = page[rel];
    if (href) w.leaf("atom:link", "", { rel, type: FEED_TYPE, href });
  }
  w.leaf("cmisra:numItems", page.total);
  for (const o of items) entry(w, urls, o, opts);
  return w.close("atom:feed").toString();
}

/** A feed of objects: a folder's children (`via` = the folder) or an object's parents. */
export function objectFeed(
  urls: CmisUrls,
  title: string,
  about: CmisObject,
  items: CmisObject[],
  page: FeedPage,
  opts: EntryOptions,
): string {
  const head = { title, author: about.createdBy, updated: about.modified, via: urls.object(about.id) };
  return feed(urls, head, items, page, opts);
}

/** The results of a query: titled with the statement, no `via` (results have no one owner). */
export function queryFeed(
  urls: CmisUrls,
  statement: string,
  items: CmisObject[],
  page: FeedPage,
  opts: EntryOptions,
  updated: string,
): string {
  return feed(urls, { title: statement, author: "system", updated }, items, page, opts);
}

// ---------------------------------------------------------------------------------------------------
// Types

const PROPERTY_DEFINITION: Record<PropertyDefinition["type"], string> = {
  id: "cmis:propertyIdDefinition",
  string: "cmis:propertyStringDefinition",
  integer: "cmis:propertyIntegerDefinition",
  boolean: "cmis:propertyBooleanDefinition",
  datetime: "cmis:propertyDateTimeDefinition",
};

function typeElement(w: XmlWriter, t: TypeDefinition): void {
  const folder = t.id === "cmis:folder";
  w.open("cmisra:type", {
    "xsi:type": folder ? "cmis:cmisTypeFolderDefinitionType" : "cmis:cmisTypeDocumentDefinitionType",
  })
    .leaf("cmis:id", t.id)
    .leaf("cmis:localName", t.id.replace(/^cmis:/, ""))
    .leaf("cmis:localNamespace", CMIS_NS)
    .leaf("cmis:displayName", t.displayName)
    .leaf("cmis:queryName", t.id)
    .leaf("cmis:description", t.description)
    .leaf("cmis:baseId", t.id)
    .leaf("cmis:creatable", "false")
    .leaf("cmis:fileable", "true")
    .leaf("cmis:queryable", "true")
    .leaf("cmis:fulltextIndexed", "true")
    .leaf("cmis:includedInSupertypeQuery", "true")
    .leaf("cmis:controllablePolicy", "false")
    .leaf("cmis:controllableACL", "false");
  for (const def of t.properties) {
    const element = PROPERTY_DEFINITION[def.type];
    w.open(element)
      .leaf("cmis:id", def.id)
      .leaf("cmis:localName", def.id.replace(/^\w+:/, ""))
      .leaf("cmis:displayName", def.displayName)
      .leaf("cmis:queryName", def.id)
      .leaf("cmis:description", def.description)
      .leaf("cmis:propertyType", def.type)
      .leaf("cmis:cardinality", def.multi ? "multi" : "single")
      .leaf("cmis:updatability", "readonly")
      .leaf("cmis:inherited", "false")
      .leaf("cmis:required", String(Boolean(def.required)))
      .leaf("cmis:queryable", String(Boolean(def.queryable)))
      .leaf("cmis:orderable", "false")
      .close(element);
  }
  if (!folder) w.leaf("cmis:versionable", "false").leaf("cmis:contentStreamAllowed", "allowed");
  w.close("cmisra:type");
}

function typeEntry(w: XmlWriter, urls: CmisUrls, t: TypeDefinition, updated: string, ns = false): void {
  w.open("atom:entry", ns ? NAMESPACES : undefined)
    .open("atom:author")
    .leaf("atom:name", "system")
    .close("atom:author")
    .leaf("atom:id", urls.type(t.id))
    .leaf("atom:title", t.displayName, { type: "text" })
    .leaf("atom:updated", updated)
    .leaf("atom:link", "", { rel: "self", type: ENTRY_TYPE, href: urls.type(t.id) })
    .leaf("atom:link", "", { rel: "service", type: SERVICE_TYPE, href: urls.base })
    .leaf("atom:link", "", { rel: "down", type: FEED_TYPE, href: urls.types(t.id) })
    .leaf("atom:link", "", { rel: "describedby", type: ENTRY_TYPE, href: urls.type(t.id) });
  typeElement(w, t);
  w.close("atom:entry");
}

export function typeEntryDocument(urls: CmisUrls, t: TypeDefinition, updated: string): string {
  const w = new XmlWriter();
  typeEntry(w, urls, t, updated, true);
  return w.toString();
}

export function typesFeed(
  urls: CmisUrls,
  self: string,
  types: readonly TypeDefinition[],
  updated: string,
): string {
  const w = new XmlWriter().open("atom:feed", NAMESPACES);
  w.open("atom:author")
    .leaf("atom:name", "system")
    .close("atom:author")
    .leaf("atom:id", self)
    .leaf("atom:title", "Types", { type: "text" })
    .leaf("atom:updated", updated)
    .leaf("atom:link", "", { rel: "self", type: FEED_TYPE, href: self })
    .leaf("atom:link", "", { rel: "service", type: SERVICE_TYPE, href: urls.base })
    .leaf("cmisra:numItems", types.length);
  for (const t of types) typeEntry(w, urls, t, updated);
  return w.close("atom:feed").toString();
}
