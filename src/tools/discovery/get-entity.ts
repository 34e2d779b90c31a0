import { z } from "zod";
import { entityUri } from "../../resources/uris.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { ALL_TYPES, loadEntity, mapLimit } from "../support/entities.js";
import {
  type ContentObjectRef,
  contentObjectsOf,
  formatLabel,
  generationFacts,
  pickGeneration,
} from "../support/files.js";
import { KIND_OF, spoken, TYPE_OF } from "../support/kinds.js";
import { windowOf } from "../support/paging.js";
import { schemaName } from "../support/schemas.js";
import { clip, formatBytes, lines } from "../support/text.js";
import { entityRef, fixity, format, kind, READ_ONLY } from "./params.js";

const MAX_LIST = 20;
const MAX_FILES = 10;
const MAX_BITSTREAMS = 5;
const RECENT_EVENTS = 10;

const INCLUDES = ["identifiers", "metadata", "files", "links", "events"] as const;

const input = z.object({
  ref: entityRef,
  type: kind.optional().describe("Its kind, if known (saves a look-up; a wrong guess still works)"),
  include: z
    .array(z.enum(INCLUDES))
    .max(5)
    .default(["metadata"])
    .describe(
      "Extra parts: identifiers, metadata (fragment list for `read_metadata`), files (formats, sizes, fixity), links, events (recent 10). Default [metadata]",
    ),
});

const output = z.object({
  entity: z.object({
    ref: z.string(),
    type: kind,
    title: z.string(),
    description: z.string().optional(),
    securityTag: z.string(),
    parentRef: z.string().optional(),
    customType: z.string().optional(),
    uri: z.string(),
  }),
  metadata: z.array(z.object({ mref: z.string(), schema: z.string(), schemaName: z.string() })).optional(),
  identifiers: z.array(z.object({ type: z.string(), value: z.string() })).optional(),
  links: z
    .array(
      z.object({
        relation: z.string(),
        direction: z.string(),
        ref: z.string(),
        type: kind,
        title: z.string(),
      }),
    )
    .optional(),
  files: z
    .array(
      z.object({
        contentObject: z.string(),
        title: z.string().optional(),
        representation: z.string().optional(),
        generation: z.number(),
        formats: z.array(format),
        bitstreams: z.array(
          z.object({
            index: z.number(),
            filename: z.string(),
            size: z.number(),
            fixities: z.array(fixity),
            uri: z.string(),
          }),
        ),
      }),
    )
    .optional(),
  events: z
    .array(
      z.object({
        date: z.string(),
        type: z.string(),
        action: z.string(),
        user: z.string(),
        workflow: z.string().optional(),
        eventRef: z.string(),
      }),
    )
    .optional(),
  /** How many were left out of each list. */
  omitted: z.record(z.string(), z.number()).optional(),
});

/** `http://purl.org/dc/terms/isVersionOf` → `isVersionOf`. */
function relationName(linkType: string): string {
  return linkType.split(/[/#]/).filter(Boolean).at(-1) ?? linkType;
}

export default defineTool({
  name: "get_entity",
  title: "Get an entity",
  description:
    "Describe one folder, asset or content object by ref: title, description, security tag, parent; optionally its identifiers, metadata fragments, files (formats, sizes, fixity), links and recent events.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    // `type` only says which look-up to try first: a wrong guess still answers, with the entity's real kind.
    const first = args.type ? TYPE_OF[args.type] : undefined;
    const order = first ? [first, ...ALL_TYPES.filter((t) => t !== first)] : ALL_TYPES;
    const e = await loadEntity(ctx, args.ref, { expect: order });
    const want = new Set(args.include);
    const omitted: Record<string, number> = {};
    const note = (key: string, total: number, shown: number) => {
      if (total > shown) omitted[key] = total - shown;
    };

    const [identifiers, links, files, events] = await Promise.all([
      want.has("identifiers")
        ? ctx.entity.identifiers(e.ref, e.type, { max: MAX_LIST, signal: ctx.signal }).then((p) => {
            note("identifiers", p.total, p.items.length);
            return p.items.map((i) => ({ type: i.type, value: i.value }));
          })
        : undefined,
      want.has("links")
        ? ctx.entity.links(e.ref, e.type, { max: MAX_LIST, signal: ctx.signal }).then((p) => {
            note("links", p.total, p.items.length);
            return p.items.map((l) => ({
              relation: relationName(l.linkType),
              direction: l.direction,
              ref: l.ref,
              type: KIND_OF[l.type],
              title: l.title,
            }));
          })
        : undefined,
      want.has("files") && e.type !== "SO" ? filesOf(ctx, e.ref, e.type, note) : undefined,
      want.has("events")
        ? windowOf(
            (start, max) => ctx.entity.eventActions(e.ref, e.type, { start, max, signal: ctx.signal }),
            0,
            RECENT_EVENTS,
            true,
          ).then((w) => {
            note("events", w.total, w.items.length);
            return w.items.map((a) => ({
              date: a.date ?? a.event.date,
              type: a.event.type,
              action: a.commandType,
              user: a.event.user,
              ...(a.event.workflowName ? { workflow: a.event.workflowName } : {}),
              eventRef: a.event.ref,
            }));
          })
        : undefined,
    ]);
    const fragments = want.has("metadata")
      ? e.fragments
          .slice(0, MAX_LIST)
          .map((f) => ({ mref: f.mref, schema: f.schema, schemaName: schemaName(f.schema) }))
      : undefined;
    if (fragments) note("metadata", e.fragments.length, fragments.length);

    const structured = {
      entity: {
        ref: e.ref,
        type: KIND_OF[e.type],
        title: e.title,
        ...(e.description ? { description: e.description } : {}),
        securityTag: e.securityTag,
        ...(e.parentRef ? { parentRef: e.parentRef } : {}),
        ...(e.customType ? { customType: e.customType } : {}),
        uri: entityUri(e.type, e.ref),
      },
      ...(fragments ? { metadata: fragments } : {}),
      ...(identifiers ? { identifiers } : {}),
      ...(links ? { links } : {}),
      ...(files ? { files } : {}),
      ...(events ? { events } : {}),
      ...(Object.keys(omitted).length ? { omitted } : {}),
    };

    const more = (key: string, tool: string) =>
      omitted[key] ? `  … and ${omitted[key]} more${tool ? ` (${tool})` : ""}` : "";
    const text = lines(
      `${spoken(e.type)} "${e.title}" ${e.ref}`,
      e.description && `Description: ${clip(e.description, 400)}`,
      `Security tag: ${e.securityTag}${e.parentRef ? `; in ${e.type === "CO" ? "asset" : "folder"} ${e.parentRef}` : "; top level"}${e.customType ? `; type ${e.customType}` : ""}`,
      fragments &&
        (fragments.length
          ? `Metadata (read with \`read_metadata\`): ${fragments.map((f) => `${f.schemaName} ${f.mref}`).join(", ")}${more("metadata", "")}`
          : "Metadata: none"),
      identifiers &&
        (identifiers.length
          ? `Identifiers: ${identifiers.map((i) => `${i.type} ${i.value}`).join("; ")}${more("identifiers", "")}`
          : "Identifiers: none"),
      links &&
        (links.length
          ? `Links:\n${links
              .map((l) =>
                l.direction.toLowerCase() === "to"
                  ? `- ${spoken(TYPE_OF[l.type])} "${clip(l.title, 80)}" ${l.ref} ${l.relation} this`
                  : `- this ${l.relation} ${spoken(TYPE_OF[l.type])} "${clip(l.title, 80)}" ${l.ref}`,
              )
              .join("\n")}${more("links", "")}`
          : "Links: none"),
      want.has("files") && e.type === "SO" && "Files: folders hold none; `browse` lists its assets.",
      files &&
        (files.length
          ? `Files:\n${files
              .map((f) =>
                lines(
                  `- ${f.representation ? `${f.representation} ` : ""}content object ${f.contentObject}, generation ${f.generation}: ${formatLabel(f.formats)}`,
                  ...f.bitstreams.map((b) => {
                    const sha = b.fixities.find((x) => /sha-?256/i.test(x.algorithm)) ?? b.fixities[0];
                    return `    ${b.filename}, ${formatBytes(b.size)}${sha ? `, ${sha.algorithm} ${sha.value}` : ""}`;
                  }),
                ),
              )
              .join("\n")}${more("files", "get_file with a content object ref")}`
          : "Files: none"),
      events &&
        (events.length
          ? `Recent events (newest first):\n${events
              .map(
                (v) =>
                  `- ${v.date} ${v.type} (${v.action}) by ${v.user}${v.workflow ? `, ${v.workflow}` : ""}`,
              )
              .join("\n")}${more("events", "list_events with this ref")}`
          : "Events: none"),
    );
    return { structured, text };
  },
});

async function filesOf(
  ctx: ToolContext,
  ref: string,
  type: "IO" | "CO" | "SO",
  note: (key: string, total: number, shown: number) => void,
) {
  const { objects, total } =
    type === "IO"
      ? await contentObjectsOf(ctx, ref, MAX_FILES)
      : { objects: [{ ref, representation: "" } as ContentObjectRef], total: 1 };
  note("files", total, objects.length);
  // Content objects a couple at a time: each one is itself a few requests (generations, generation, files).
  return mapLimit(objects, 2, async (co: ContentObjectRef) => {
    const gen = await pickGeneration(ctx, co.ref);
    const g = await generationFacts(ctx, co.ref, gen, MAX_BITSTREAMS);
    if (g.moreBitstreams)
      note(`bitstreams of ${co.ref}`, g.moreBitstreams + g.bitstreams.length, g.bitstreams.length);
    return {
      contentObject: co.ref,
      ...(co.title ? { title: co.title } : {}),
      ...(co.representation ? { representation: co.representation } : {}),
      generation: g.generation,
      formats: g.formats,
      bitstreams: g.bitstreams,
    };
  });
}
