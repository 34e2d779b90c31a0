import { z } from "zod";
import type { Entity, EntityType } from "../../api/entity.js";
import { entityUri } from "../../resources/uris.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { ALL_TYPES, ancestors, loadEntity, mapLimit } from "../support/entities.js";
import {
  type ContentObjectRef,
  contentObjectsOf,
  formatLabel,
  generationFacts,
  pickGeneration,
  propertiesText,
} from "../support/files.js";
import { READ_ONLY } from "../support/hints.js";
import { KIND_OF, spoken, TYPE_OF } from "../support/kinds.js";
import { windowOf } from "../support/paging.js";
import { schemaName } from "../support/schemas.js";
import { clip, exactBytes, lines } from "../support/text.js";
import { UnreadParts } from "../support/unread.js";
import { crumb, entityRef, fixity, format, kind, technicalProperty } from "./params.js";

const MAX_LIST = 20;
const MAX_FILES = 10;
const MAX_BITSTREAMS = 5;
const RECENT_EVENTS = 10;
/** An asset's history is read with its content objects' (integrity checks, characterisation): this many. */
const MAX_EVENT_OBJECTS = 5;

const INCLUDES = ["path", "identifiers", "metadata", "files", "links", "events"] as const;

const input = z.object({
  ref: entityRef,
  type: kind.optional().describe("Its kind, if known (saves a look-up; a wrong guess still works)"),
  include: z
    .array(z.enum(INCLUDES))
    .max(6)
    .default(["path", "metadata"])
    .describe(
      "Extra parts: path (titles from the top), identifiers, metadata (fragment list for `read_metadata`), files (formats, sizes, fixity), links, events (recent 10, with its files'). Default [path, metadata]",
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
  /** The folders (and, for a content object, the asset) above it, the top one first. */
  breadcrumbs: z.array(crumb).optional(),
  breadcrumbsComplete: z.boolean().optional(),
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
        /** Technical properties from characterisation (image dimensions, colour space, pages, duration, …). */
        properties: z.array(technicalProperty).optional(),
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
        entityRef: z.string().optional(),
      }),
    )
    .optional(),
  /** How many were left out of each list. */
  omitted: z.record(z.string(), z.number()).optional(),
  /** Parts the service failed to give (one representation, one content object's files…), with why. */
  unread: z.array(z.object({ part: z.string(), reason: z.string() })).optional(),
});

/** `http://purl.org/dc/terms/isVersionOf` → `isVersionOf`. */
function relationName(linkType: string): string {
  return linkType.split(/[/#]/).filter(Boolean).at(-1) ?? linkType;
}

type Output = z.infer<typeof output>;
type Include = (typeof INCLUDES)[number];
type Note = (key: string, total: number, shown: number) => void;

/** Records how many of a list were left out of the answer (nothing when all are shown). */
function noteOmitted(omitted: Record<string, number>, key: string, total: number, shown: number): void {
  if (total > shown) omitted[key] = total - shown;
}

/** The look-up order for each guessed kind: the guess first, then the others. */
const ORDER_FROM: Record<EntityType, readonly EntityType[]> = {
  IO: ["IO", "SO", "CO"],
  SO: ["SO", "IO", "CO"],
  CO: ["CO", "IO", "SO"],
};

/** The parts read with requests of their own (metadata comes with the entity). */
const READS_MORE = (part: Include) => part !== "metadata";
const NO_PARTS = [undefined, undefined, undefined, undefined, undefined] as const;

/**
 * The entity as answered: its optional facts only when present, keys in the schema's order (added one by
 * one rather than spread, which made an object per optional fact on every call).
 */
function entityOut(e: Entity): Output["entity"] {
  // Filled in below, in order; every required key is set before it is returned.
  const out = { ref: e.ref, type: KIND_OF[e.type], title: e.title } as Output["entity"];
  if (e.description) out.description = e.description;
  out.securityTag = e.securityTag;
  if (e.parentRef) out.parentRef = e.parentRef;
  if (e.customType) out.customType = e.customType;
  out.uri = entityUri(e.type, e.ref);
  return out;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * The parts asked for that take requests of their own: the path (one request per level above), identifiers,
 * links, files and recent events, read together.
 */
function readParts(ctx: ToolContext, e: Entity, want: readonly Include[], note: Note, unread: UnreadParts) {
  // An asset's content objects serve both its files and its files' events: listed once.
  const objects =
    e.type === "IO" && (want.includes("files") || want.includes("events"))
      ? contentObjectsOf(ctx, e.ref, MAX_FILES, unread)
      : undefined;
  return Promise.all([
    // Asked for by default, left out when a caller lists only other parts.
    want.includes("path") ? ancestors(ctx, e) : undefined,
    want.includes("identifiers")
      ? unread.attempt("the identifiers", () =>
          ctx.entity.identifiers(e.ref, e.type, { max: MAX_LIST, signal: ctx.signal }).then((p) => {
            note("identifiers", p.total, p.items.length);
            return p.items.map((i) => ({ type: i.type, value: i.value }));
          }),
        )
      : undefined,
    want.includes("links")
      ? unread.attempt("the links", () =>
          ctx.entity.links(e.ref, e.type, { max: MAX_LIST, signal: ctx.signal }).then((p) => {
            note("links", p.total, p.items.length);
            return p.items.map((l) => ({
              relation: relationName(l.linkType),
              direction: l.direction,
              ref: l.ref,
              type: KIND_OF[l.type],
              title: l.title,
            }));
          }),
        )
      : undefined,
    want.includes("files") && e.type !== "SO"
      ? unread.attempt(`the files of ${e.ref}`, () =>
          filesOf(
            ctx,
            objects ?? Promise.resolve({ objects: [{ ref: e.ref, representation: "" }], total: 1 }),
            note,
            unread,
          ),
        )
      : undefined,
    want.includes("events")
      ? unread.attempt("the recent events", () => recentEvents(ctx, e.ref, e.type, objects, note, unread))
      : undefined,
  ]);
}

export default defineTool({
  name: "get_entity",
  title: "Get an entity",
  description:
    "Describe one folder, asset or content object by ref: title, description, security tag, path from the top; optionally its identifiers, metadata fragments, files (formats, sizes, fixity), links and recent events.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    // `type` only says which look-up to try first: a wrong guess still answers, with the entity's real kind.
    const e = await loadEntity(ctx, args.ref, {
      expect: args.type ? ORDER_FROM[TYPE_OF[args.type]] : ALL_TYPES,
    });
    const want = args.include;
    // The parts that take requests, read together; none at all when only the entity itself is asked for.
    if (!want.some(READS_MORE)) return answer(e, want, NO_PARTS, {}, undefined);
    const omitted: Record<string, number> = {};
    // One failed sub-request loses only its own part of the answer, named with why (support/unread.ts).
    const unread = new UnreadParts(ctx, "get_entity");
    const note: Note = (key, total, shown) => noteOmitted(omitted, key, total, shown);
    return answer(e, want, await readParts(ctx, e, want, note, unread), omitted, unread);
  },
});

type Parts = Awaited<ReturnType<typeof readParts>> | typeof NO_PARTS;

/**
 * The answer from what was read. Not part of the async handler: an async function's whole frame is saved at
 * each await, and this one builds every line of the text.
 */
function answer(
  e: Entity,
  want: readonly Include[],
  parts: Parts,
  omitted: Record<string, number>,
  unread: UnreadParts | undefined,
): { structured: Output; text: string } {
  // By index, not destructured: destructuring an array walks its iterator.
  const trail = parts[0];
  const identifiers = parts[1];
  const links = parts[2];
  const files = parts[3];
  const events = parts[4];
  const fragments = want.includes("metadata")
    ? e.fragments
        .slice(0, MAX_LIST)
        .map((f) => ({ mref: f.mref, schema: f.schema, schemaName: schemaName(f.schema) }))
    : undefined;
  if (fragments) noteOmitted(omitted, "metadata", e.fragments.length, fragments.length);

  // Optional parts added only when present, in the schema's order (no spread per part).
  const structured: Output = { entity: entityOut(e) };
  if (trail) {
    structured.breadcrumbs = trail.crumbs;
    if (!trail.complete) structured.breadcrumbsComplete = false;
  }
  if (fragments) structured.metadata = fragments;
  if (identifiers) structured.identifiers = identifiers;
  if (links) structured.links = links;
  if (files) structured.files = files;
  if (events) structured.events = events;
  if (hasKeys(omitted)) structured.omitted = omitted;
  if (unread?.items.length) structured.unread = unread.items;

  const more = (key: string, tool: string) =>
    omitted[key] ? `  … and ${omitted[key]} more${tool ? ` (${tool})` : ""}` : "";
  const parent = trail?.crumbs.at(-1);
  const container = e.type === "CO" ? "asset" : "folder";
  const where = !e.parentRef
    ? "; top level"
    : parent?.ref === e.parentRef
      ? `; in ${container} "${parent.title}" ${e.parentRef}`
      : `; in ${container} ${e.parentRef}`;
  const text = lines(
    `${spoken(e.type)} "${e.title}" ${e.ref}`,
    e.description && `Description: ${clip(e.description, 400)}`,
    `Security tag: ${e.securityTag}${where}${e.customType ? `; type ${e.customType}` : ""}`,
    trail &&
      trail.crumbs.length > 0 &&
      `Path: ${trail.complete ? "" : "… "}${[...trail.crumbs, e].map((c) => `/${c.title}`).join("")} (above: ${trail.crumbs.map((c) => c.ref).join(" > ")})`,
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
    want.includes("files") && e.type === "SO" && "Files: folders hold none; `browse` lists its assets.",
    files &&
      (files.length
        ? `Files:\n${files
            .map((f) =>
              lines(
                `- ${f.representation ? `${f.representation} ` : ""}content object ${f.contentObject}${f.title ? ` "${f.title}"` : ""}, generation ${f.generation}: ${formatLabel(f.formats)}`,
                f.properties && `    ${propertiesText(f.properties)}`,
                // Exact bytes and every fixity in full: a person compares them with a copy they hold.
                ...f.bitstreams.map((b) =>
                  lines(
                    `    file ${b.index}: ${b.filename}, ${exactBytes(b.size)}`,
                    b.fixities.length > 0 &&
                      `      ${b.fixities.map((x) => `${x.algorithm} ${x.value}`).join("; ")}`,
                  ),
                ),
              ),
            )
            .join("\n")}${more("files", "get_file with a content object ref")}`
        : "Files: none"),
    events &&
      (events.length
        ? `Recent events (newest first):\n${eventLines(events).join("\n")}${more("events", `list_events with this ref${e.type === "IO" ? " or a content object's" : ""}`)}`
        : "Events: none"),
    unread?.text(),
  );
  return { structured, text };
}

type EventRow = {
  date: string;
  type: string;
  action: string;
  user: string;
  workflow?: string;
  eventRef: string;
  entityRef?: string;
};

/** One line per event: one integrity check over several of the asset's files is one line naming them all. */
function eventLines(events: EventRow[]): string[] {
  const byEvent = new Map<string, { row: EventRow; objects: string[] }>();
  for (const v of events) {
    const key = `${v.eventRef} ${v.action} ${v.entityRef ? "co" : "own"}`;
    const seen = byEvent.get(key);
    if (seen) {
      if (v.entityRef) seen.objects.push(v.entityRef);
    } else byEvent.set(key, { row: v, objects: v.entityRef ? [v.entityRef] : [] });
  }
  return [...byEvent.values()].map(
    ({ row: v, objects }) =>
      `- ${v.date} ${v.type} (${v.action}) by ${v.user}${v.workflow ? `, ${v.workflow}` : ""}${objects.length ? ` on content object${objects.length > 1 ? "s" : ""} ${objects.join(", ")}` : ""}, event ${v.eventRef}`,
  );
}

type ObjectList = Promise<{ objects: ContentObjectRef[]; total: number }>;

/**
 * The recent events of an entity, newest first. An asset's own history holds ingest and edits; what happens
 * to its files (integrity checks, characterisation) is recorded on its content objects, so an asset's
 * recent events are read from both and merged, each file event naming its content object.
 */
async function recentEvents(
  ctx: ToolContext,
  ref: string,
  type: EntityType,
  objects: ObjectList | undefined,
  note: Note,
  unread: UnreadParts,
) {
  const histories: { ref: string; type: EntityType; own: boolean }[] = [{ ref, type, own: true }];
  if (objects) {
    const { objects: cos } = await objects;
    for (const co of cos.slice(0, MAX_EVENT_OBJECTS)) histories.push({ ref: co.ref, type: "CO", own: false });
  }
  const read = await mapLimit(histories, 3, (h) =>
    unread.attempt(h.own ? "this entity's events" : `the events of content object ${h.ref}`, () =>
      windowOf(
        (start, max) => ctx.entity.eventActions(h.ref, h.type, { start, max, signal: ctx.signal }),
        0,
        RECENT_EVENTS,
        true,
      ).then((w) => ({ ...w, h })),
    ),
  );
  const windows = read.filter((w) => w !== undefined);
  const rows = windows.flatMap(({ items, h }) =>
    items.map((a) => ({
      date: a.date ?? a.event.date,
      type: a.event.type,
      action: a.commandType,
      user: a.event.user,
      ...(a.event.workflowName ? { workflow: a.event.workflowName } : {}),
      eventRef: a.event.ref,
      ...(h.own ? {} : { entityRef: h.ref }),
    })),
  );
  rows.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  const shown = rows.slice(0, RECENT_EVENTS);
  note(
    "events",
    windows.reduce((n, w) => n + w.total, 0),
    shown.length,
  );
  return shown;
}

async function filesOf(ctx: ToolContext, list: ObjectList, note: Note, unread: UnreadParts) {
  const { objects, total } = await list;
  note("files", total, objects.length);
  // Content objects a couple at a time: each one is itself a few requests (generations, generation, files).
  const read = await mapLimit(objects, 2, (co: ContentObjectRef) =>
    unread.attempt(`the files of content object ${co.ref}`, () => fileFacts(ctx, co, note)),
  );
  return read.filter((f) => f !== undefined);
}

async function fileFacts(ctx: ToolContext, co: ContentObjectRef, note: Note) {
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
    ...(g.properties.length ? { properties: g.properties } : {}),
    bitstreams: g.bitstreams,
  };
}
