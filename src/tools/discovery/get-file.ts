import { z } from "zod";
import { bitstreamUri } from "../../resources/uris.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import {
  binaryContentType,
  guessMime,
  incompleteTail,
  leadingContinuation,
  looksBinary,
  looksLikeText,
  readAtMost,
} from "../support/file-text.js";
import {
  compactFormats,
  formatLabel,
  namedObjects,
  propertiesText,
  type ResolvedFile,
  resolveFile,
  technicalProperties,
} from "../support/files.js";
import { READ_ONLY } from "../support/hints.js";
import { extractPdfText, looksLikePdf, PDF_TEXT_MAX_BYTES, PDF_TEXT_MAX_CHARS } from "../support/pdf-text.js";
import { pickFile } from "../support/pick-file.js";
import { exactBytes, formatBytes, lines } from "../support/text.js";
import type { UnreadPart } from "../support/unread.js";
import { fileChoice, fixity, format, technicalProperty } from "./params.js";

const DEFAULT_TEXT_BYTES = 16 * 1024;
const MAX_TEXT_BYTES = 64 * 1024;

const input = z.object({
  ...fileChoice,
  name: z.string().min(1).optional().describe('Pick the file by name (exact, or with * ?: "*.csv")'),
  format: z
    .string()
    .min(1)
    .optional()
    .describe('Pick the file by format: extension, PUID, media type or family ("csv", "fmt/18", "image")'),
  offset: z.number().int().min(0).default(0).describe("Text files: byte to start at (from `nextOffset`)"),
  maxBytes: z
    .number()
    .int()
    .min(256)
    .max(MAX_TEXT_BYTES)
    .default(DEFAULT_TEXT_BYTES)
    .describe(`Text files: most bytes to return (default ${DEFAULT_TEXT_BYTES}, max ${MAX_TEXT_BYTES})`),
});

const output = z.object({
  contentObject: z.string(),
  asset: z.string().optional(),
  representation: z.string().optional(),
  generation: z.number(),
  bitstream: z.number(),
  filename: z.string(),
  size: z.number(),
  formats: z.array(format),
  /** Technical properties from characterisation (image dimensions, colour space, camera, pages, duration, …). */
  properties: z.array(technicalProperty).optional(),
  fixities: z.array(fixity),
  mimeType: z.string().optional(),
  uri: z.string(),
  /** The file's text (text-like files; a PDF's extracted text), from `offset`. */
  text: z.string().optional(),
  offset: z.number().optional(),
  truncated: z.boolean().optional(),
  nextOffset: z.number().optional(),
  /** Parts the service failed to give while choosing by name or format, with why; the choice is among the rest. */
  unread: z.array(z.object({ part: z.string(), reason: z.string() })).optional(),
  /** Files of the chosen representation besides this one (asset refs only). */
  otherFiles: z.number().optional(),
});

export default defineTool({
  name: "get_file",
  title: "Get a file",
  description:
    "One file of an asset (default: first preservation file; or pick by name/format) or content object: name, size, format, technical properties (dimensions, pages, duration), fixity; the text of text files (txt, CSV, XML, JSON) and PDFs (extracted), else a resource link to the bytes.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const file = await chooseFile(ctx, args);
    const { contentObject: coRef, asset, representation, otherFiles, facts } = file;
    const bitstream = file.bitstream;
    const g = file.generation;
    const gen = { index: g.index };
    const formats = compactFormats(g.formats);
    const properties = technicalProperties(g);
    const uri = bitstreamUri(coRef, gen.index, bitstream);
    const filename = facts.filename;
    const base = {
      contentObject: coRef,
      ...(asset ? { asset } : {}),
      ...(representation ? { representation } : {}),
      generation: gen.index,
      bitstream,
      filename,
      size: facts.size,
      formats,
      ...(properties.length ? { properties } : {}),
      fixities: facts.fixities,
      uri,
      ...(otherFiles ? { otherFiles } : {}),
      ...(file.unread?.length ? { unread: file.unread } : {}),
    };
    const where = `content object ${coRef}${representation ? ` (${representation} copy of asset ${asset})` : ""}, generation ${gen.index}, file ${bitstream}`;
    const head = lines(
      `${filename}, ${exactBytes(facts.size)}, ${formatLabel(formats)}; ${where}`,
      properties.length > 0 && `Technical properties: ${propertiesText(properties)}`,
      facts.fixities.length > 0 &&
        `Fixity: ${facts.fixities.map((f) => `${f.algorithm} ${f.value}`).join("; ")}`,
      otherFiles
        ? `Other files of the ${representation} copy (pass a ref to \`get_file\`): ${namedObjects(file.others ?? [], otherFiles)}.`
        : "",
      file.matches !== undefined &&
        file.matches > 1 &&
        `First of ${file.matches} files matching name/format; narrow them to pick another.`,
      (file.unread?.length ?? 0) > 0 &&
        `Not searched (the choice is among the rest): ${(file.unread ?? []).map((u) => `${u.part}: ${u.reason}`).join(" ")}`,
    );
    const link = (mimeType: string | undefined, why: string) => ({
      structured: { ...base, ...(mimeType ? { mimeType } : {}) },
      text: lines(
        head,
        mimeType && `Media type ${mimeType}.`,
        `${why} Read the bytes as the resource ${uri}.`,
      ),
      links: [
        {
          uri,
          name: filename,
          ...(mimeType ? { mimeType } : {}),
          description: `${formatLabel(formats)}, ${formatBytes(facts.size)}`,
        },
      ],
    });

    if (looksLikePdf(filename, formats)) {
      const pdfMime = guessMime(filename) ?? "application/pdf";
      if (facts.size > PDF_TEXT_MAX_BYTES) {
        return link(pdfMime, `A PDF over ${formatBytes(PDF_TEXT_MAX_BYTES)}: its text is not read here.`);
      }
      const content = await ctx.entity.bitstreamContent(coRef, gen.index, bitstream, { signal: ctx.signal });
      const bytes = await readAtMost(content.stream, PDF_TEXT_MAX_BYTES + 1);
      if (bytes.length > PDF_TEXT_MAX_BYTES) {
        return link(pdfMime, `A PDF over ${formatBytes(PDF_TEXT_MAX_BYTES)}: its text is not read here.`);
      }
      const wanted = args.offset + args.maxBytes + 1;
      const result = await extractPdfText(bytes, wanted, ctx.signal);
      if ("error" in result || result.text.trim() === "") {
        const why = "error" in result ? result.error : "it has no text layer (a scan?)";
        return link(pdfMime, `No text could be read from this PDF: ${why}.`);
      }
      const all = Buffer.from(result.text, "utf8");
      if (args.offset >= all.length) {
        throw new UserInputError(
          `offset ${args.offset} is past the end of the text of ${filename} (${all.length} bytes).`,
        );
      }
      const raw = all.subarray(args.offset, args.offset + args.maxBytes);
      const lead = args.offset > 0 ? leadingContinuation(raw) : 0;
      const startsAt = args.offset + lead;
      const more = all.length > args.offset + args.maxBytes;
      const slice = raw.subarray(lead, raw.length - (more ? incompleteTail(raw) : 0));
      const text = slice.toString("utf8");
      const nextOffset = more ? startsAt + slice.length : undefined;
      const capped = !more && result.text.length >= PDF_TEXT_MAX_CHARS;
      return {
        structured: {
          ...base,
          mimeType: pdfMime,
          text,
          offset: startsAt,
          truncated: nextOffset !== undefined || capped,
          ...(nextOffset !== undefined ? { nextOffset } : {}),
        },
        text: lines(
          head,
          `Media type ${pdfMime}.`,
          `Text extracted from the PDF (${result.pages} page${result.pages === 1 ? "" : "s"}; ${startsAt === 0 && !more ? "all of it" : `bytes ${startsAt}–${startsAt + slice.length - 1} of the text`}):`,
          text,
          nextOffset !== undefined &&
            `[cut: call again with offset ${nextOffset} for more, or read the resource ${uri}]`,
          capped &&
            `[only the first ${PDF_TEXT_MAX_CHARS} characters of text are read; the resource ${uri} has the whole file]`,
        ),
        links: [{ uri, name: filename, mimeType: pdfMime }],
      };
    }
    if (!looksLikeText(filename, formats)) return link(guessMime(filename), "Not text, so not shown inline.");
    if (facts.size > 0 && args.offset >= facts.size) {
      throw new UserInputError(`offset ${args.offset} is past the end of ${filename} (${facts.size} bytes).`);
    }
    const end =
      facts.size > 0
        ? Math.min(facts.size, args.offset + args.maxBytes) - 1
        : args.offset + args.maxBytes - 1;
    const content = await ctx.entity.bitstreamContent(coRef, gen.index, bitstream, {
      ...(args.offset > 0 || facts.size > args.maxBytes ? { range: { start: args.offset, end } } : {}),
      signal: ctx.signal,
    });
    const mimeType = content.contentType?.split(";")[0]?.trim() || guessMime(filename);
    if (binaryContentType(content.contentType)) {
      content.stream.destroy();
      return link(mimeType, `The service says it is ${mimeType}, not text, so not shown inline.`);
    }
    // A service that ignores Range sends the whole file: skip to the offset ourselves.
    const skip = content.status === 206 ? 0 : args.offset;
    const raw = (await readAtMost(content.stream, skip + args.maxBytes)).subarray(skip);
    const lead = args.offset > 0 ? leadingContinuation(raw) : 0;
    const startsAt = args.offset + lead;
    const reachedEnd =
      facts.size > 0 ? startsAt + (raw.length - lead) >= facts.size : raw.length < args.maxBytes;
    const tail = reachedEnd ? 0 : incompleteTail(raw);
    const slice = raw.subarray(lead, raw.length - tail);
    const text = slice.toString("utf8");
    if (looksBinary(text)) return link(mimeType, "It does not decode as text, so not shown inline.");
    const nextOffset = reachedEnd ? undefined : startsAt + slice.length;
    const structured = {
      ...base,
      ...(mimeType ? { mimeType } : {}),
      text,
      offset: startsAt,
      truncated: nextOffset !== undefined,
      ...(nextOffset !== undefined ? { nextOffset } : {}),
    };
    const span =
      startsAt === 0 && nextOffset === undefined
        ? "the whole file"
        : `bytes ${startsAt}–${startsAt + slice.length - 1} of ${facts.size}`;
    return {
      structured,
      text: lines(
        head,
        mimeType && `Media type ${mimeType}.`,
        `Text (${span}):`,
        text,
        nextOffset !== undefined &&
          `[cut: ${facts.size - nextOffset} more bytes; call again with offset ${nextOffset}, or read the resource ${uri}]`,
      ),
      ...(nextOffset !== undefined
        ? { links: [{ uri, name: filename, ...(mimeType ? { mimeType } : {}) }] }
        : {}),
    };
  },
});

/**
 * The file asked for: by position (representation, generation, file number) as `resolveFile` takes it, or,
 * given a name or format, the first file of the asset's copy (or of the content object) that matches.
 */
async function chooseFile(
  ctx: ToolContext,
  args: z.infer<typeof input>,
): Promise<ResolvedFile & { matches?: number; unread?: UnreadPart[] }> {
  if (args.name === undefined && args.format === undefined) return resolveFile(ctx, args);
  const { file, matches, asset, unread } = await pickFile(ctx, args);
  const chosen = await resolveFile(ctx, {
    ref: file.contentObject,
    representation: args.representation,
    generation: file.generation,
    bitstream: file.bitstream,
  });
  return {
    ...chosen,
    ...(asset ? { asset, representation: args.representation } : {}),
    matches,
    ...(unread.length ? { unread } : {}),
  };
}
