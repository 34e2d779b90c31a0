import type { EntityType } from "../store/entities/types.js";
import type { ApiVersion } from "./versions.js";
import { XmlWriter } from "./writer.js";

/** What every Entity API document needs: the version (namespaces) and the absolute base URL. */
export interface RenderContext {
  version: ApiVersion;
  /** Absolute base of the Entity API as the caller addressed it, e.g. `http://host:8080/api/entity/v6.2`. */
  base: string;
}

/** Paging facts of one list reply. */
export interface ListMeta {
  total: number;
  /** Absolute URL of the next page; absent on the last page. */
  next?: string;
  /** Absolute URL of the page before; absent on the first page (as the real service does). */
  previous?: string;
  /** Absolute URL of this request. */
  self: string;
}

export const ENTITY_PATH: Record<EntityType, string> = {
  SO: "structural-objects",
  IO: "information-objects",
  CO: "content-objects",
};

export const XIP_ELEMENT: Record<EntityType, string> = {
  SO: "xip:StructuralObject",
  IO: "xip:InformationObject",
  CO: "xip:ContentObject",
};

export function entityUrl(ctx: RenderContext, type: EntityType, ref: string): string {
  return `${ctx.base}/${ENTITY_PATH[type]}/${ref}`;
}

/** A writer with the root element opened: EntityAPI namespace as default, XIP bound to `xip`. */
export function openDocument(ctx: RenderContext, root: string): XmlWriter {
  return new XmlWriter().open(root, { xmlns: ctx.version.entityNs, "xmlns:xip": ctx.version.xipNs });
}

/**
 * `Paging` (Previous on pages after the first, Next only when more remain, TotalResults always) then
 * `AdditionalInformation/Self`.
 */
export function writeListTail(w: XmlWriter, meta: ListMeta): XmlWriter {
  w.open("Paging");
  if (meta.previous) w.leaf("Previous", meta.previous);
  if (meta.next) w.leaf("Next", meta.next);
  w.leaf("TotalResults", meta.total);
  w.close("Paging");
  return w.open("AdditionalInformation").leaf("Self", meta.self).close("AdditionalInformation");
}
