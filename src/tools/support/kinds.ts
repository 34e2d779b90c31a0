import { z } from "zod";
import type { EntitySummary, EntityType } from "../../api/entity.js";

/**
 * Our words for the three kinds of entity. The service says SO/IO/CO (structural, information, content
 * object); a model and the person it talks to say folder, asset, content object. Structured answers use the
 * snake_case form, text the spoken one.
 */

export const KINDS = ["folder", "asset", "content_object"] as const;
export type Kind = (typeof KINDS)[number];

export const KIND_OF: Record<EntityType, Kind> = { SO: "folder", IO: "asset", CO: "content_object" };
export const TYPE_OF: Record<Kind, EntityType> = { folder: "SO", asset: "IO", content_object: "CO" };

/** "folder", "asset", "content object": for sentences. */
export function spoken(type: EntityType): string {
  return type === "CO" ? "content object" : KIND_OF[type];
}

/** "a folder", "an asset", "a content object". */
export function withArticle(type: EntityType): string {
  return type === "IO" ? "an asset" : `a ${spoken(type)}`;
}

export interface Item {
  ref: string;
  type: Kind;
  title: string;
}

/** An entity named in a structured answer: ref, kind and title. */
export const itemOut = z.object({ ref: z.string(), type: z.enum(KINDS), title: z.string() });

export function toItem(e: Pick<EntitySummary, "ref" | "type" | "title">): Item {
  return { ref: e.ref, type: KIND_OF[e.type], title: e.title };
}
