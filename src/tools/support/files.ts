import type { Bitstream, FileFormat, Fixity, Generation } from "../../api/entity.js";
import { bitstreamUri } from "../../resources/uris.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { loadEntity, mapLimit } from "./entities.js";
import { clip } from "./text.js";
import type { UnreadParts } from "./unread.js";

/**
 * The content chain below an asset, in our terms: representations (Preservation, Access) hold content
 * objects; a content object's active generation has the formats and the files (bitstreams). Shared by
 * `get_entity` (include files) and `get_file`. Requests run a few at a time.
 */

const IN_FLIGHT = 4;

export interface ContentObjectRef {
  ref: string;
  title?: string;
  /** "Preservation" or "Access". */
  representation: string;
}

/** The content objects of an asset, representation by representation, at most `max` of them. */
export async function contentObjectsOf(
  ctx: ToolContext,
  assetRef: string,
  max: number,
  unread?: UnreadParts,
  /** Read only the representations of this type (case-insensitive), e.g. "Preservation". */
  onlyType?: string,
): Promise<{ objects: ContentObjectRef[]; total: number }> {
  const listed = await ctx.entity.representations(assetRef, { max: 20, signal: ctx.signal });
  const reps = onlyType
    ? { ...listed, items: listed.items.filter((r) => r.type.toLowerCase() === onlyType.toLowerCase()) }
    : listed;
  // Given `unread`, a representation that cannot be read is named there and the others still count.
  const read = (r: (typeof reps.items)[number]) =>
    ctx.entity.representation(assetRef, r.type, r.index, ctx.signal);
  const details = await mapLimit(reps.items, IN_FLIGHT, (r) =>
    unread
      ? unread.attempt(`the ${r.type} representation ${r.index} of asset ${assetRef}`, () => read(r))
      : read(r),
  );
  const all: ContentObjectRef[] = details.flatMap((rep, i) =>
    (rep?.contentObjects ?? []).map((co) => ({
      ref: co.ref,
      ...(co.title ? { title: co.title } : {}),
      representation: rep?.type || (reps.items[i]?.type ?? ""),
    })),
  );
  // Preservation copies first: they are the originals people mean by "the file".
  const ordered = [
    ...all.filter((o) => o.representation.toLowerCase() === "preservation"),
    ...all.filter((o) => o.representation.toLowerCase() !== "preservation"),
  ];
  return { objects: ordered.slice(0, max), total: ordered.length };
}

export interface BitstreamFacts {
  index: number;
  filename: string;
  size: number;
  fixities: Fixity[];
  uri: string;
}

export interface GenerationFacts {
  generation: number;
  /** Generations the content object has in all. */
  generations: number;
  formats: FileFormat[];
  properties: TechnicalProperty[];
  bitstreams: BitstreamFacts[];
  /** Bitstreams left out beyond the cap. */
  moreBitstreams: number;
}

/** The generation to use: `wanted` when given (checked to exist), else the newest active one. */
export async function pickGeneration(
  ctx: ToolContext,
  coRef: string,
  wanted?: number,
): Promise<{ index: number; count: number }> {
  const gens = await ctx.entity.generations(coRef, { max: 100, signal: ctx.signal });
  if (gens.items.length === 0) {
    throw new UserInputError(`Content object ${coRef} has no generations, so no file to show.`);
  }
  if (wanted !== undefined) {
    if (!gens.items.some((g) => g.index === wanted)) {
      throw new UserInputError(
        `Content object ${coRef} has no generation ${wanted}; it has ${gens.items.map((g) => g.index).join(", ")}.`,
      );
    }
    return { index: wanted, count: gens.total };
  }
  const active = gens.items.filter((g) => g.active);
  const chosen = (active.length ? active : gens.items).reduce((a, b) => (b.index > a.index ? b : a));
  return { index: chosen.index, count: gens.total };
}

/** Formats and files of one generation, each file with its size and fixities (at most `maxBitstreams`). */
export async function generationFacts(
  ctx: ToolContext,
  coRef: string,
  gen: { index: number; count: number },
  maxBitstreams: number,
): Promise<GenerationFacts> {
  const g = await ctx.entity.generation(coRef, gen.index, ctx.signal);
  const listed = g.bitstreams.slice(0, maxBitstreams);
  const bitstreams = await mapLimit(listed, IN_FLIGHT, async (b) => {
    const facts = await ctx.entity.bitstream(coRef, gen.index, b.index, ctx.signal);
    return {
      index: b.index,
      filename: facts.filename || b.filename,
      size: facts.size,
      fixities: facts.fixities,
      uri: bitstreamUri(coRef, gen.index, b.index),
    };
  });
  return {
    generation: gen.index,
    generations: gen.count,
    formats: compactFormats(g.formats),
    properties: technicalProperties(g),
    bitstreams,
    moreBitstreams: g.bitstreams.length - listed.length,
  };
}

/** Formats as the tools report them: PUID, name and version, each only when known. */
export function compactFormats(formats: FileFormat[]): FileFormat[] {
  return formats.map((f) => ({
    ...(f.puid ? { puid: f.puid } : {}),
    ...(f.name ? { name: f.name } : {}),
    ...(f.version ? { version: f.version } : {}),
  }));
}

/** A technical property as the tools report it: name and value, with its group and PUID when known. */
export interface TechnicalProperty {
  name: string;
  value: string;
  group?: string;
  puid?: string;
}

/** A generation's technical properties (dimensions, colour space, camera, pages, duration, …) that have a name and a value. */
export function technicalProperties(g: Pick<Generation, "properties">): TechnicalProperty[] {
  return g.properties.flatMap((p) =>
    p.name && p.value !== undefined
      ? [
          {
            name: p.name,
            value: p.value,
            ...(p.group ? { group: p.group } : {}),
            ...(p.puid ? { puid: p.puid } : {}),
          },
        ]
      : [],
  );
}

/** "Image Width 3502; Image Height 2400; Colour Space RGB": every property, for the text of an answer. */
export function propertiesText(props: readonly TechnicalProperty[]): string {
  return props.map((p) => `${p.name} ${p.value}`).join("; ");
}

/** "Plain Text File (x-fmt/111)". */
export function formatLabel(formats: FileFormat[]): string {
  const f = formats[0];
  if (!f) return "format not identified";
  const name = [f.name, f.version].filter(Boolean).join(" ");
  return f.puid ? `${name || "format"} (${f.puid})` : name || "format not identified";
}

/** Other files of an asset's copy named by ref in answers; the rest are counted. */
const MAX_OTHERS_NAMED = 5;

/** `c9252cac-… "transcript.txt", … and 3 more`: content objects as refs to pass on. */
export function namedObjects(objects: ContentObjectRef[], total: number): string {
  const named = objects.map((o) => `${o.ref}${o.title ? ` "${clip(o.title, 60)}"` : ""}`).join(", ");
  return total > objects.length ? `${named}, and ${total - objects.length} more` : named;
}

export interface FileChoice {
  /** Asset or content object ref. */
  ref: string;
  /** For an asset: which copy ("Preservation" or "Access"); its first content object is used. */
  representation: string;
  /** Generation number; undefined = the newest active one. */
  generation?: number;
  /** File number within the generation (1-based). */
  bitstream: number;
}

export interface ResolvedFile {
  contentObject: string;
  asset?: string;
  representation?: string;
  /** Files of the chosen representation besides this one (asset refs only). */
  otherFiles?: number;
  /** The first few of those other files: content objects of their own, each its own `get_file` ref. */
  others?: ContentObjectRef[];
  generation: Generation;
  bitstream: number;
  facts: Bitstream;
}

/**
 * The one file a person means by (asset or content object, copy, generation, file number), with its
 * generation and its recorded size and fixity. Shared by `get_file` and `download_file`; every wrong choice
 * is a UserInputError that says what exists instead.
 */
export async function resolveFile(ctx: ToolContext, choice: FileChoice): Promise<ResolvedFile> {
  const e = await loadEntity(ctx, choice.ref, {
    expect: ["IO", "CO"],
    wrongKind: () => "Folders hold no files: list its assets with `browse`, then pass an asset ref.",
  });
  let coRef = e.ref;
  let asset: string | undefined;
  let representation: string | undefined;
  let otherFiles: number | undefined;
  let others: ContentObjectRef[] | undefined;
  if (e.type === "IO") {
    const { objects } = await contentObjectsOf(ctx, e.ref, 1000);
    const wanted = choice.representation.toLowerCase();
    const inRep = objects.filter((o) => o.representation.toLowerCase() === wanted);
    const first = inRep[0];
    if (!first) {
      const reps = [...new Set(objects.map((o) => o.representation))];
      throw new UserInputError(
        reps.length
          ? `The asset "${clip(e.title, 80)}" has no ${choice.representation} copy; it has: ${reps.join(", ")}. Pass representation accordingly.`
          : `The asset "${clip(e.title, 80)}" has no files.`,
      );
    }
    coRef = first.ref;
    asset = e.ref;
    representation = first.representation;
    otherFiles = inRep.length - 1;
    others = inRep.slice(1, 1 + MAX_OTHERS_NAMED);
  }
  const gen = await pickGeneration(ctx, coRef, choice.generation);
  const generation = await ctx.entity.generation(coRef, gen.index, ctx.signal);
  if (!generation.bitstreams.some((b) => b.index === choice.bitstream)) {
    // An asset's files are usually one content object each, so "file 2 of the asset" is another ref.
    const elsewhere = others?.length
      ? ` The asset's other ${representation} files are content objects of their own: pass one as ref (${namedObjects(others, otherFiles ?? others.length)}).`
      : "";
    throw new UserInputError(
      (generation.bitstreams.length
        ? `Generation ${gen.index} of content object ${coRef} has no file ${choice.bitstream}; it has ${generation.bitstreams.length} (${generation.bitstreams.map((b) => `${b.index}: ${b.filename}`).join(", ")}).`
        : `Generation ${gen.index} of content object ${coRef} holds no files.`) + elsewhere,
    );
  }
  const facts = await ctx.entity.bitstream(coRef, gen.index, choice.bitstream, ctx.signal);
  return {
    contentObject: coRef,
    ...(asset ? { asset } : {}),
    ...(representation ? { representation } : {}),
    ...(otherFiles !== undefined ? { otherFiles } : {}),
    ...(others?.length ? { others } : {}),
    generation: { ...generation, index: gen.index },
    bitstream: choice.bitstream,
    facts,
  };
}
