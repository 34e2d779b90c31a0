import { createHash } from "node:crypto";
import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { walkTree } from "../../api/walk.js";
import type { ToolContext } from "../context.js";
import { ancestors } from "../support/entities.js";
import { KIND_OF, KINDS } from "../support/kinds.js";
import { clip, plural } from "../support/text.js";

/**
 * What the structure tools share: the write hints, title paths for answers, and the bounded count of a
 * folder's contents that confirmation plans and answers name.
 */

/** A write that changes nothing it cannot change back, and does nothing more when repeated. */
export const ARRANGE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** At most this many entities are counted below a folder; more are reported as "more than". */
export const MAX_COUNTED = 5000;
/** Titles of a folder's contents named in a confirmation plan. */
const SAMPLE_TITLES = 8;

export const entityOut = z.object({ ref: z.string(), type: z.enum(KINDS), title: z.string() });

export const contentsOut = z.object({
  folders: z.number().int(),
  assets: z.number().int(),
  /** False when the count stopped at MAX_COUNTED (or at a folder the caller may not read). */
  complete: z.boolean(),
});
export type Contents = z.infer<typeof contentsOut>;

export function summaryOf(e: Pick<Entity, "ref" | "type" | "title">) {
  return { ref: e.ref, type: KIND_OF[e.type], title: e.title };
}

/** The title path of a folder, `/Archive/Maps`, or `/` for the top level; `…/` when the top was unreadable. */
export async function folderPath(ctx: ToolContext, folder: Entity | null): Promise<string> {
  if (!folder) return "/";
  const { crumbs, complete } = await ancestors(ctx, folder);
  const titles = [...crumbs.map((c) => c.title), folder.title].map((t) => t.replaceAll("/", "\\/"));
  return `${complete ? "" : "…"}/${titles.join("/")}`;
}

/** How a path reads in a sentence: “/Archive/Maps”, or the top level. */
export function spokenPath(path: string): string {
  return path === "/" ? "the top level" : `“${path}”`;
}

/** Direct children of a folder, from the first page's total: one request. */
export async function childCount(ctx: ToolContext, ref: string): Promise<number> {
  return (await ctx.entity.children(ref, { max: 1, signal: ctx.signal })).total;
}

/** Folders and assets below a folder (any depth), counted by walking at most MAX_COUNTED of them. */
export async function countContents(ctx: ToolContext, ref: string): Promise<Contents & { titles: string[] }> {
  let folders = 0;
  let assets = 0;
  const titles: string[] = [];
  for await (const item of walkTree(ctx.entity, ref, { limit: MAX_COUNTED + 1, signal: ctx.signal })) {
    if (folders + assets >= MAX_COUNTED) return { folders, assets, complete: false, titles };
    if (item.type === "SO") folders++;
    else if (item.type === "IO") assets++;
    if (titles.length < SAMPLE_TITLES && item.depth === 1) titles.push(clip(item.title, 80));
  }
  return { folders, assets, complete: true, titles };
}

/** “3 folders and 12 assets”, “1 asset”; “5,000+ …” when the count was cut. */
export function contentsPhrase(c: Contents): string {
  const parts = [c.folders && plural(c.folders, "folder"), c.assets && plural(c.assets, "asset")].filter(
    Boolean,
  );
  const counted = parts.length ? parts.join(" and ") : "contents";
  return c.complete
    ? counted
    : `${MAX_COUNTED.toLocaleString("en")}+ folders and assets (counting stopped there: ${counted} seen)`;
}

/** A digest of the state a plan depends on: the confirmed call plans again and compares. */
export function fingerprint(...parts: (string | number | undefined)[]): string {
  return createHash("sha256")
    .update(parts.map((p) => String(p ?? "")).join("\u0000"))
    .digest("hex");
}
