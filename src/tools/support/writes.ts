import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { walkTree } from "../../api/walk.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import type { ConfirmPlan } from "../define.js";
import { ancestors } from "./entities.js";
import { clip, plural } from "./text.js";

/**
 * What the confirmed writes share (moving, re-tagging, deleting, managing policies and groups): the bounded
 * count of what a folder holds and the one way it is worded, title paths and how they read in a sentence,
 * and the plans of the create / change / delete tools.
 */

/** At most this many entities are counted below a folder; more are reported as "at least". */
export const MAX_COUNTED = 5000;
/** Titles of a folder's contents named in a confirmation plan. */
const SAMPLE_TITLES = 8;

export const contentsOut = z.object({
  folders: z.number().int(),
  assets: z.number().int(),
  /** False when the count stopped at MAX_COUNTED (or at a folder the caller may not read). */
  complete: z.boolean(),
});
export type Contents = z.infer<typeof contentsOut>;

/** What a folder holds, counted: the counts, and the titles of the first few things directly inside. */
export type CountedContents = Contents & { titles: string[] };

/**
 * Folders and assets below a folder (any depth), counted by walking at most MAX_COUNTED of them; `onAsset`
 * sees each asset counted (a deletion's plan reads the first ones' retention).
 */
export async function countContents(
  ctx: ToolContext,
  ref: string,
  onAsset?: (asset: { ref: string; title: string }) => void,
): Promise<CountedContents> {
  let folders = 0;
  let assets = 0;
  const titles: string[] = [];
  for await (const item of walkTree(ctx.entity, ref, { limit: MAX_COUNTED + 1, signal: ctx.signal })) {
    if (folders + assets >= MAX_COUNTED) return { folders, assets, complete: false, titles };
    if (item.type === "SO") folders++;
    else if (item.type === "IO") {
      assets++;
      onAsset?.({ ref: item.ref, title: item.title });
    }
    if (titles.length < SAMPLE_TITLES && item.depth === 1) titles.push(clip(item.title, 80));
  }
  return { folders, assets, complete: true, titles };
}

/** The counts alone, without the sample titles: what structured answers and previews carry. */
export function counts(c: Contents): Contents {
  return { folders: c.folders, assets: c.assets, complete: c.complete };
}

/**
 * “3 folders and 12 assets”, “1 asset”; “at least …” when the count was cut. The one wording of a count
 * of contents, in plans and answers alike.
 */
export function contentsPhrase(c: Contents): string {
  const parts = [c.folders && plural(c.folders, "folder"), c.assets && plural(c.assets, "asset")].filter(
    Boolean,
  );
  const counted = parts.length ? parts.join(" and ") : "no folders or assets";
  return c.complete
    ? counted
    : `at least ${counted} (counting stopped at ${MAX_COUNTED.toLocaleString("en")})`;
}

/** `In it: “A”, “B”, …` and what follows the titles (how many more there are). */
export function sampleLine(titles: readonly string[], more: string): string {
  return `In it: ${titles.map((t) => `“${t}”`).join(", ")}${more}`;
}

/** `/Archive/Maps` from the titles of the folders down to it; `…/` in front when the top was unreadable. */
function titlePath(titles: readonly string[], complete: boolean): string {
  return `${complete ? "" : "…"}/${titles.map((t) => t.replaceAll("/", "\\/")).join("/")}`;
}

/** The title path of a folder, `/Archive/Maps`, or `/` for the top level. */
export async function folderPath(ctx: ToolContext, folder: Entity | null): Promise<string> {
  if (!folder) return "/";
  const { crumbs, complete } = await ancestors(ctx, folder);
  return titlePath([...crumbs.map((c) => c.title), folder.title], complete);
}

/** The title path of the folder an entity is in: `/Archive/Maps`, `/` at the top level. */
export async function placeOf(ctx: ToolContext, e: Entity): Promise<string> {
  if (!e.parentRef) return "/";
  const { crumbs, complete } = await ancestors(ctx, e);
  return titlePath(
    crumbs.map((c) => c.title),
    complete,
  );
}

/** How a path reads in a sentence: “/Archive/Maps”, or the top level. */
export function spokenPath(path: string): string {
  return path === "/" ? "the top level" : `“${path}”`;
}

/** “in “/Archive/Maps”” or “at the top level”. */
export function inPlace(path: string): string {
  return path === "/" ? "at the top level" : `in “${path}”`;
}

// ---- create / change / delete of a named record (a retention policy, a metadata group, a user) ---------------

/**
 * The target of a create: a record of that name that does not exist yet, so someone creating the same name
 * between the preview and the confirmation makes the token stale.
 */
export function absentTarget(prefix: string, name: string, title = name): ConfirmPlan["targets"][number] {
  return { ref: `${prefix}:${name}`, title, fingerprint: fingerprint("absent", name) };
}

/** The plan of an update: each change on a line of its own, then what stays as it was. */
export function changesPlan(
  summary: string,
  changes: readonly string[],
  note: string,
  target: ConfirmPlan["targets"][number],
): ConfirmPlan {
  return {
    summary,
    details: [...changes.map((c) => `  ${c}`), note],
    targets: [target],
    preview: { changes },
  };
}
