import type { EntityType, IdentifierRecord, LinkRow } from "../store/entities/types.js";
import { entityUrl, openDocument, type RenderContext } from "./common.js";
import { isXip60 } from "./versions.js";

/**
 * Replies of the Entity API's basic writes that are not an entity or a metadata fragment (those reuse
 * entityDocument and metadataDocument). Clients look for *descendants* (`.//xip:ApiId`,
 * `.//xip:Link/xip:Type`), so the XIP element is always wrapped in a response root.
 */

/**
 * IdentifierResponse: xip:Identifier (ApiId, Type, Value, Entity in XIP order; no ApiId in XIP v6.0,
 * whose clients find it at the end of Self), then Self.
 */
export function identifierDocument(ctx: RenderContext, entityType: EntityType, i: IdentifierRecord): string {
  const w = openDocument(ctx, "IdentifierResponse");
  w.open("xip:Identifier");
  if (!isXip60(ctx.version)) w.leaf("xip:ApiId", i.api_id);
  w.leaf("xip:Type", i.type)
    .leaf("xip:Value", i.value)
    .leaf("xip:Entity", i.entity_ref)
    .close("xip:Identifier");
  w.open("AdditionalInformation")
    .leaf("Self", `${entityUrl(ctx, entityType, i.entity_ref)}/identifiers/${i.api_id}`)
    .close("AdditionalInformation");
  return w.close("IdentifierResponse").toString();
}

/**
 * LinkResponse: xip:Link (Type, FromEntity, ToEntity: no XIP version has a Link/ApiId), then Self under
 * the entity the request addressed (`viewedFrom`), which may be either end of the link; the link's ApiId
 * is the last segment of Self, as in the links list (`apiId` attribute).
 */
export function linkDocument(
  ctx: RenderContext,
  viewedFrom: { type: EntityType; ref: string },
  l: LinkRow,
): string {
  const w = openDocument(ctx, "LinkResponse");
  w.open("xip:Link")
    .leaf("xip:Type", l.link_type)
    .leaf("xip:FromEntity", l.from_ref)
    .leaf("xip:ToEntity", l.to_ref)
    .close("xip:Link");
  w.open("AdditionalInformation")
    .leaf("Self", `${entityUrl(ctx, viewedFrom.type, viewedFrom.ref)}/links/${l.api_id}`)
    .close("AdditionalInformation");
  return w.close("LinkResponse").toString();
}
