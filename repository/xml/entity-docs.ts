import type {
  EntityRecord,
  EntitySummary,
  FragmentRecord,
  FragmentSummary,
  IdentifierRecord,
  LinkRecord,
} from "../store/entities/types.js";
import {
  entityUrl,
  type ListMeta,
  openDocument,
  type RenderContext,
  writeListTail,
  XIP_ELEMENT,
} from "./common.js";
import { isXip60 } from "./versions.js";
import { inlineableXml, type XmlWriter } from "./writer.js";

/** EntityAPI documents about entities themselves: the entity, children, metadata, identifiers, links. */

function fragmentUrl(
  ctx: RenderContext,
  e: { type: EntityRecord["type"]; ref: string },
  mref: string,
): string {
  return `${entityUrl(ctx, e.type, e.ref)}/metadata/${mref}`;
}

function writeFragments(
  w: XmlWriter,
  ctx: RenderContext,
  e: EntityRecord,
  fragments: FragmentSummary[],
): void {
  w.open("Metadata");
  for (const f of fragments) w.leaf("Fragment", fragmentUrl(ctx, e, f.mref), { schema: f.schema_uri });
  w.close("Metadata");
}

/** EntityResponse: the XIP object, then AdditionalInformation with the URLs of its sub-resources. */
export function entityDocument(ctx: RenderContext, e: EntityRecord, fragments: FragmentSummary[]): string {
  const self = entityUrl(ctx, e.type, e.ref);
  const el = XIP_ELEMENT[e.type];
  const w = openDocument(ctx, "EntityResponse");
  w.open(el)
    .leaf("xip:Ref", e.ref)
    .leaf("xip:Title", e.title)
    .opt("xip:Description", e.description)
    .leaf("xip:SecurityTag", e.security_tag)
    .opt("xip:CustomType", e.custom_type)
    .opt("xip:Parent", e.parent_ref)
    .close(el);
  w.open("AdditionalInformation").leaf("Self", self);
  // Folders and assets live in folders; content objects in assets.
  if (e.parent_ref) w.leaf("Parent", entityUrl(ctx, e.type === "CO" ? "IO" : "SO", e.parent_ref));
  w.leaf("Identifiers", `${self}/identifiers`)
    .leaf("Links", `${self}/links`)
    .leaf("EventActions", `${self}/event-actions`);
  if (e.type === "SO") w.leaf("Children", `${self}/children`);
  if (e.type === "IO") w.leaf("Representations", `${self}/representations`);
  if (e.type === "CO") w.leaf("Generations", `${self}/generations`);
  writeFragments(w, ctx, e, fragments);
  return w.close("AdditionalInformation").close("EntityResponse").toString();
}

/** ChildrenResponse: Child title/ref/type with the child's URL as text. */
export function childrenDocument(ctx: RenderContext, children: EntitySummary[], meta: ListMeta): string {
  const w = openDocument(ctx, "ChildrenResponse").open("Children");
  for (const c of children) {
    w.leaf("Child", entityUrl(ctx, c.type, c.ref), { title: c.title, ref: c.ref, type: c.type });
  }
  w.close("Children");
  return writeListTail(w, meta).close("ChildrenResponse").toString();
}

/** The fragments of one entity, as `Metadata/Fragment schema=…` like the entity's own reply. */
export function fragmentListDocument(
  ctx: RenderContext,
  e: EntityRecord,
  fragments: FragmentSummary[],
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "MetadataFragmentsResponse");
  writeFragments(w, ctx, e, fragments);
  return writeListTail(w, meta).close("MetadataFragmentsResponse").toString();
}

/**
 * MetadataResponse: xip:MetadataContainer(schemaUri) with Ref, Entity and Content holding the stored
 * document as XML (never escaped). A stored text that is not well-formed XML cannot be inlined safely,
 * so it is carried as escaped text rather than breaking the reply.
 */
export function metadataDocument(ctx: RenderContext, e: EntityRecord, f: FragmentRecord): string {
  const w = openDocument(ctx, "MetadataResponse");
  w.open("xip:MetadataContainer", { schemaUri: f.schema_uri })
    .leaf("xip:Ref", f.mref)
    .leaf("xip:Entity", e.ref)
    .open("xip:Content");
  const inline = inlineableXml(f.content);
  if (inline === undefined) w.text(f.content);
  else w.raw(inline);
  w.close("xip:Content").close("xip:MetadataContainer");
  w.open("AdditionalInformation")
    .leaf("Self", fragmentUrl(ctx, e, f.mref))
    .close("AdditionalInformation");
  return w.close("MetadataResponse").toString();
}

/**
 * IdentifiersResponse: Identifiers/xip:Identifier (ApiId, Type, Value, Entity in XIP order; XIP v6.0
 * has no ApiId).
 */
export function identifiersDocument(ctx: RenderContext, ids: IdentifierRecord[], meta: ListMeta): string {
  const w = openDocument(ctx, "IdentifiersResponse").open("Identifiers");
  const withApiId = !isXip60(ctx.version);
  for (const i of ids) {
    w.open("xip:Identifier");
    if (withApiId) w.leaf("xip:ApiId", i.api_id);
    w.leaf("xip:Type", i.type)
      .leaf("xip:Value", i.value)
      .leaf("xip:Entity", i.entity_ref)
      .close("xip:Identifier");
  }
  w.close("Identifiers");
  return writeListTail(w, meta).close("IdentifiersResponse").toString();
}

/** LinksResponse: Link linkType/linkDirection/title/ref/type/apiId with the other entity's URL. */
export function linksDocument(ctx: RenderContext, links: LinkRecord[], meta: ListMeta): string {
  const w = openDocument(ctx, "LinksResponse").open("Links");
  for (const l of links) {
    w.leaf("Link", entityUrl(ctx, l.other_type, l.other_ref), {
      linkType: l.link_type,
      linkDirection: l.direction,
      title: l.other_title,
      ref: l.other_ref,
      type: l.other_type,
      apiId: l.api_id,
    });
  }
  w.close("Links");
  return writeListTail(w, meta).close("LinksResponse").toString();
}
