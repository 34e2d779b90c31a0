import type { FileFormat } from "../../api/entity.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { loadEntity, mapLimit } from "./entities.js";
import { guessMime } from "./file-text.js";
import { contentObjectsOf, formatLabel, pickGeneration } from "./files.js";
import { clip } from "./text.js";
import { type UnreadPart, UnreadParts } from "./unread.js";

/**
 * Choosing one file of an asset (or of a content object) by its name or its format, for `get_file`:
 * "the CSV of this asset", "register.csv", "*.tif", "fmt/18", "image". The candidates are the files of
 * the chosen copy's content objects (their active generation, or the one asked for), in order.
 */

/** Content objects looked at: an asset with more files is better browsed with `get_entity`. */
const MAX_OBJECTS = 50;
const IN_FLIGHT = 4;
/** Files named in the answer when nothing matches. */
const MAX_LISTED = 12;

export interface FileCandidate {
  contentObject: string;
  generation: number;
  bitstream: number;
  filename: string;
  formats: FileFormat[];
}

/** Whether a file name matches `pattern`: whole name, case-insensitive; `*` and `?` are wildcards. */
export function nameMatches(filename: string, pattern: string): boolean {
  const p = pattern.trim().toLowerCase();
  const name = filename.toLowerCase();
  if (!/[*?]/.test(p)) return name === p;
  const re = p
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${re}$`).test(name);
}

/**
 * Whether a file is of format `wanted`: a PRONOM id ("fmt/18"), a media type ("text/csv") or family
 * ("image"), an extension ("csv", ".tif"), or a word of the identified format's name ("PDF", "TIFF").
 */
export function formatMatches(filename: string, formats: readonly FileFormat[], wanted: string): boolean {
  const w = wanted.trim().toLowerCase().replace(/^\./, "");
  if (!w) return false;
  if (/^(x-)?fmt\/\d+$/.test(w)) return formats.some((f) => f.puid?.toLowerCase() === w);
  const mime = guessMime(filename)?.toLowerCase();
  if (w.includes("/")) return mime === w || (w.endsWith("/*") && !!mime?.startsWith(w.slice(0, -1)));
  const ext = filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (ext === w || (w === "jpg" && ext === "jpeg") || (w === "tif" && ext === "tiff")) return true;
  if (mime?.startsWith(`${w}/`)) return true;
  return formats.some((f) => new RegExp(`\\b${w.replace(/[^a-z0-9]/g, "")}\\b`, "i").test(f.name ?? ""));
}

/** The files of a content object's generation (the asked one, else the active one). */
async function filesOf(ctx: ToolContext, coRef: string, generation?: number): Promise<FileCandidate[]> {
  const gen = await pickGeneration(ctx, coRef, generation);
  const g = await ctx.entity.generation(coRef, gen.index, ctx.signal);
  return g.bitstreams.map((b) => ({
    contentObject: coRef,
    generation: gen.index,
    bitstream: b.index,
    filename: b.filename,
    formats: g.formats,
  }));
}

export interface FilePick {
  name?: string;
  format?: string;
  ref: string;
  representation: string;
  generation?: number;
}

/**
 * The first file matching every criterion given (name, format), and how many matched; a
 * UserInputError listing the files (name and format) when none does.
 */
export async function pickFile(
  ctx: ToolContext,
  pick: FilePick,
): Promise<{ file: FileCandidate; matches: number; asset?: string; unread: UnreadPart[] }> {
  const e = await loadEntity(ctx, pick.ref, { expect: ["IO", "CO"] });
  // A representation or content object that cannot be read is left out of the choice and named.
  const unread = new UnreadParts(ctx, "get_file");
  let candidates: FileCandidate[];
  let where: string;
  if (e.type === "IO") {
    const { objects } = await contentObjectsOf(ctx, e.ref, 1000, unread, pick.representation);
    const wanted = pick.representation.toLowerCase();
    const inRep = objects.filter((o) => o.representation.toLowerCase() === wanted).slice(0, MAX_OBJECTS);
    const lists = await mapLimit(inRep, IN_FLIGHT, (o) =>
      unread.attempt(`the files of content object ${o.ref}`, () => filesOf(ctx, o.ref, pick.generation)),
    );
    candidates = lists.flatMap((l) => l ?? []);
    where = `the ${pick.representation} copy of asset "${clip(e.title, 80)}"`;
  } else {
    candidates = await filesOf(ctx, e.ref, pick.generation);
    where = `content object ${e.ref}`;
  }
  const matching = candidates.filter(
    (c) =>
      (pick.name === undefined || nameMatches(c.filename, pick.name)) &&
      (pick.format === undefined || formatMatches(c.filename, c.formats, pick.format)),
  );
  const first = matching[0];
  if (first)
    return {
      file: first,
      matches: matching.length,
      ...(e.type === "IO" ? { asset: e.ref } : {}),
      unread: unread.items,
    };
  const notRead = unread.text() ? ` ${unread.text()}` : "";
  const asked = [
    pick.name !== undefined && `name "${pick.name}"`,
    pick.format !== undefined && `format "${pick.format}"`,
  ]
    .filter(Boolean)
    .join(" and ");
  if (candidates.length === 0)
    throw new UserInputError(`No file matches ${asked}: ${where} holds no files.${notRead}`);
  const listed = candidates
    .slice(0, MAX_LISTED)
    .map((c) => `${c.filename} (${formatLabel(c.formats)})`)
    .join(", ");
  const more = candidates.length > MAX_LISTED ? `, and ${candidates.length - MAX_LISTED} more` : "";
  throw new UserInputError(
    `No file of ${where} matches ${asked}. Its files: ${listed}${more}. Pass one of these names as name, or a format (extension, PUID, media type).${notRead}`,
  );
}
