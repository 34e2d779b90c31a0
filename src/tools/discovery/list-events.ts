import { z } from "zod";
import type { EventAction, HistoryEvent } from "../../api/entity.js";
import { collect, paginate } from "../../api/walk.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { checkRange, toInstant } from "../support/dates.js";
import { loadEntity, mapLimit, type Named, nameRefs } from "../support/entities.js";
import { eventSpan, spanSentence } from "../support/event-span.js";
import { contentObjectsOf } from "../support/files.js";
import { READ_ONLY } from "../support/hints.js";
import { type Item, KIND_OF, spoken, TYPE_OF } from "../support/kinds.js";
import { budgetNote, windowOf, withinBudget } from "../support/paging.js";
import { clip, lines, pageNote, plural } from "../support/text.js";
import { cursor, date, entityRef, item, limit, page, refParam } from "./params.js";

/** An entity's own history is filtered here (the service filters only repository-wide); up to this many. */
const MAX_LOCAL_FILTER = 1000;
/** Recent events read to learn how types and usernames are spelt, after a filtered search found none. */
const SPELLING_SAMPLE = 200;
/** Events of a page whose touched entities are named (one request each), and entities named per event. */
const EVENTS_EXPLAINED = 20;
const TOUCHED_PER_EVENT = 3;
/** Distinct entities named by title on one page (one GET each; the rest by ref). */
const MAX_NAMED = 40;
/** An asset's content objects whose own histories are pointed to. */
const MAX_OBJECTS_POINTED = 5;

const input = z.object({
  ref: entityRef.optional().describe("Only this entity's events; find refs with `search` or `browse`"),
  event: refParam("List the entities this event acted on (an eventRef from this tool)").optional(),
  types: z
    .array(z.string().trim().min(1).max(50))
    .max(10)
    .optional()
    .describe("Event types, e.g. Ingest, Modified, Characterise, IntegrityCheck"),
  from: date("On or after"),
  to: date("On or before (inclusive)"),
  user: z.string().trim().min(1).max(100).optional().describe("Only events by this username"),
  newestFirst: z.boolean().default(true).describe("Order (default newest first)"),
  detail: z
    .enum(["compact", "full"])
    .default("compact")
    .describe(
      "With event: compact (default) says the event's type, date and user once and names each entity once; full repeats them on every line",
    ),
  limit: limit(20, 100),
  cursor,
});

const output = z.object({
  events: z.array(
    z.object({
      eventRef: z.string(),
      type: z.string(),
      date: z.string(),
      user: z.string(),
      workflow: z.string().optional(),
      action: z.string().optional(),
      entityRef: z.string().optional(),
      /** What the event acted on, named (bounded), and how many more it touched. */
      touched: z.array(item).optional(),
      touchedMore: z.number().optional(),
    }),
  ),
  /** With event and compact detail: the event once, and each entity it acted on once (events is empty). */
  event: z
    .object({
      eventRef: z.string(),
      type: z.string(),
      date: z.string(),
      user: z.string(),
      workflow: z.string().optional(),
    })
    .optional(),
  entities: z.array(item.extend({ action: z.string().optional() })).optional(),
  ...page,
});

type Row = z.infer<typeof output>["events"][number];

function fromEvent(e: HistoryEvent): Row {
  return {
    eventRef: e.ref,
    type: e.type,
    date: e.date,
    user: e.user,
    ...(e.workflowName ? { workflow: e.workflowName } : {}),
  };
}

function fromAction(a: EventAction, withEntity: boolean): Row {
  return {
    ...fromEvent(a.event),
    ...(a.date ? { date: a.date } : {}),
    action: a.commandType,
    ...(withEntity && a.entityRef ? { entityRef: a.entityRef } : {}),
  };
}

/** Distinct values, most frequent first. */
function distinct(values: string[], max: number): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, max)
    .map(([v]) => v);
}

/** "Types and users are matched as spelt; recent events have types: Ingest, Modified; users: curator." */
function spellingHint(seen: Row[], where: string): string {
  if (seen.length === 0) return "";
  const types = distinct(
    seen.map((r) => r.type),
    12,
  );
  const users = distinct(
    seen.map((r) => r.user),
    12,
  );
  return `Types and users are matched as spelt; ${where} have types: ${types.join(", ")}; users: ${users.join(", ")}.`;
}

/** The filter with types and username spelt as in `seen` when they differ by case only; else undefined. */
function respell<F extends { types?: string[]; username?: string }>(
  filter: F,
  seen: Row[],
): { filter: F; note: string } | undefined {
  const seenTypes = seen.map((r) => r.type);
  const seenUsers = seen.map((r) => r.user);
  const spelt = (wanted: string, known: string[]) =>
    known.find((k) => k === wanted) ?? known.find((k) => k.toLowerCase() === wanted.toLowerCase()) ?? wanted;
  const types = filter.types?.map((t) => spelt(t, seenTypes));
  const username = filter.username ? spelt(filter.username, seenUsers) : undefined;
  const changed = [
    ...(types ?? []).filter((t, i) => t !== filter.types?.[i]),
    ...(username && username !== filter.username ? [username] : []),
  ];
  if (changed.length === 0) return undefined;
  return {
    filter: { ...filter, ...(types ? { types } : {}), ...(username ? { username } : {}) },
    note: `matched as ${changed.join(", ")}`,
  };
}

/** Files' events (integrity checks, characterisation) are recorded on content objects: the text says which. */
const FILE_EVENTS = new Set(["integritycheck", "characterise", "characterize", "migrate"]);

/**
 * Names (kind and title) of what the listed events acted on: for an event's own actions, each row's entity;
 * for a list of events, the first few entities of each of the first events (one request per event). Bounded
 * throughout; the rest are counted or left as refs.
 */
async function explain(ctx: ToolContext, rows: Row[], perEvent: boolean): Promise<Row[]> {
  if (!perEvent) {
    const refs = rows.map((r) => r.entityRef).filter((r): r is string => Boolean(r));
    const names = await nameRefs(ctx, refs, ["IO", "SO", "CO"], MAX_NAMED);
    return rows.map((r) => {
      const n = r.entityRef ? names.get(r.entityRef) : undefined;
      return n ? { ...r, touched: [asItem(n)] } : r;
    });
  }
  const head = rows.slice(0, EVENTS_EXPLAINED);
  const actions = await mapLimit(head, 4, (r) =>
    ctx.entity
      .eventActionsOfEvent(r.eventRef, { start: 0, max: TOUCHED_PER_EVENT, signal: ctx.signal })
      .catch((err) => {
        if (ctx.signal.aborted) throw err;
        return undefined;
      }),
  );
  // Files' events touch content objects: try that kind first, so each is one request.
  const refsOf = (files: boolean) =>
    head.flatMap((r, i) =>
      FILE_EVENTS.has(r.type.toLowerCase()) === files
        ? (actions[i]?.items ?? []).map((a) => a.entityRef ?? "").filter(Boolean)
        : [],
    );
  const [fileNames, otherNames] = await Promise.all([
    nameRefs(ctx, refsOf(true), ["CO", "IO", "SO"], MAX_NAMED),
    nameRefs(ctx, refsOf(false), ["IO", "SO", "CO"], MAX_NAMED),
  ]);
  return rows.map((r, i) => {
    const page = actions[i];
    if (!page) return r;
    const touched = page.items.map((a): Item => {
      const ref = a.entityRef ?? "";
      const n = fileNames.get(ref) ?? otherNames.get(ref);
      return n ? asItem(n) : { ref, type: "asset", title: "" };
    });
    return {
      ...r,
      touched: touched.filter((t) => t.ref),
      ...(page.total > page.items.length ? { touchedMore: page.total - page.items.length } : {}),
    };
  });
}

function asItem(n: Named): Item {
  return { ref: n.ref, type: KIND_OF[n.type], title: n.title };
}

/** `asset "Title" ref` or the bare ref when it could not be named. */
function touchedText(r: Row): string {
  const named = (r.touched ?? []).map((t) =>
    t.title ? `${spoken(TYPE_OF[t.type])} "${clip(t.title, 60)}" ${t.ref}` : t.ref,
  );
  if (named.length === 0) return "";
  return `: ${named.join("; ")}${r.touchedMore ? `, and ${plural(r.touchedMore, "more entity", "more entities")}` : ""}`;
}

/**
 * An asset's own history holds its ingest and edits; what happened to its files is on its content objects.
 * Says which, with how many events each holds, so "when was this last checked" has a next step.
 */
async function fileHistories(ctx: ToolContext, assetRef: string): Promise<string> {
  try {
    const { objects, total } = await contentObjectsOf(ctx, assetRef, MAX_OBJECTS_POINTED);
    if (objects.length === 0) return "";
    const counts = await mapLimit(objects, 4, (o) =>
      ctx.entity.eventActions(o.ref, "CO", { start: 0, max: 1, signal: ctx.signal }).then((p) => p.total),
    );
    const named = objects.map(
      (o, i) => `${o.ref}${o.title ? ` "${clip(o.title, 60)}"` : ""} (${plural(counts[i] ?? 0, "event")})`,
    );
    return `Its files' events (integrity checks, characterisation) are recorded on its content objects: ${named.join(", ")}${total > objects.length ? `, and ${total - objects.length} more` : ""}; pass one as ref.`;
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return "";
  }
}

export default defineTool({
  name: "list_events",
  title: "List events",
  description:
    "History: events across the repository (filter by type, dates, user), one entity's events (ref), or the entities one event acted on (event). Newest first, paged.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    if (args.ref && args.event) {
      throw new UserInputError(
        "Give either ref (an entity's events) or event (what one event did), not both.",
      );
    }
    const hash = queryHash("list_events", args);
    const offset = decodeCursor(args.cursor, hash);
    const from = args.from ? toInstant(args.from, "start", "from") : undefined;
    const to = args.to ? toInstant(args.to, "end", "to") : undefined;
    checkRange(from, to, ["from", "to"]);
    const types = args.types?.map((t) => t.toLowerCase());
    const filtered = Boolean(types?.length || from || to || args.user);

    let rows: Row[];
    let total: number;
    let head: string;
    let partial = "";
    /** On a filtered miss: how types and usernames are spelt. */
    let missHint = "";
    /** When the filter's spelling was corrected. */
    let spelling = "";
    /** On a date-filtered miss: the dates that do hold events. */
    let spanHint = "";
    /** For an asset: where its files' events are. */
    let filesHint = "";
    if (args.event) {
      const eventRef = args.event;
      if (filtered)
        throw new UserInputError(
          "Filters apply to lists of events, not to one event's actions; leave them out.",
        );
      const w = await windowOf(
        (start, max) => ctx.entity.eventActionsOfEvent(eventRef, { start, max, signal: ctx.signal }),
        offset,
        args.limit,
        args.newestFirst,
      );
      rows = w.items.map((a) => fromAction(a, true));
      total = w.total;
      head = `Event ${eventRef} acted on ${plural(total, "entity", "entities")} you may see`;
    } else if (args.ref) {
      const e = await loadEntity(ctx, args.ref);
      const what = `${spoken(e.type)} "${clip(e.title, 80)}"`;
      const fetchPage = (start: number, max: number) =>
        ctx.entity.eventActions(e.ref, e.type, { start, max, signal: ctx.signal });
      if (!filtered) {
        const w = await windowOf(fetchPage, offset, args.limit, args.newestFirst);
        rows = w.items.map((a) => fromAction(a, false));
        total = w.total;
      } else {
        // The service cannot filter one entity's history: read it (bounded) and filter here.
        const first = await fetchPage(0, 1);
        const all = await collect(
          paginate((req) => ctx.entity.eventActions(e.ref, e.type, { ...req, signal: ctx.signal }), {
            pageSize: 200,
            limit: MAX_LOCAL_FILTER,
            signal: ctx.signal,
          }),
        );
        if (first.total > all.length)
          partial = ` (filtered the oldest ${all.length} of its ${first.total} events only)`;
        const user = args.user?.toLowerCase();
        const mapped = all.map((a) => fromAction(a, false));
        const kept = mapped.filter(
          (r) =>
            (!types?.length || types.includes(r.type.toLowerCase())) &&
            (!from || r.date >= from) &&
            (!to || r.date <= to) &&
            (!user || r.user.toLowerCase() === user),
        );
        if (args.newestFirst) kept.reverse();
        total = kept.length;
        rows = kept.slice(offset, offset + args.limit);
        if (total === 0) missHint = spellingHint(mapped, "its events");
        const dates = mapped.map((r) => r.date).sort();
        if (total === 0 && (from || to) && dates.length)
          spanHint = spanSentence(
            { oldest: dates[0] ?? "", newest: dates.at(-1) ?? "", total: dates.length },
            "Its events",
          );
      }
      if (e.type === "IO" && offset === 0) filesHint = await fileHistories(ctx, e.ref);
      head = `${plural(total, "event")}${filtered ? " matching" : ""} on ${what} ${e.ref}${partial}`;
    } else {
      const filter = {
        ...(args.types?.length ? { types: args.types } : {}),
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        ...(args.user ? { username: args.user } : {}),
      };
      const list = (f: typeof filter) =>
        windowOf(
          (start, max) => ctx.entity.events({ ...f, start, max, signal: ctx.signal }),
          offset,
          args.limit,
          args.newestFirst,
        );
      let w = await list(filter);
      if (w.total === 0 && (filter.types || filter.username)) {
        // The service matches types and usernames exactly: "modified" or "Curator" finds nothing. Recent
        // events say how they are spelt; a difference of case only is corrected and the list fetched again.
        const sample = await windowOf(
          (start, max) => ctx.entity.events({ start, max, signal: ctx.signal }),
          0,
          SPELLING_SAMPLE,
          true,
        );
        const recent = sample.items.map(fromEvent);
        const fixed = respell(filter, recent);
        if (fixed) {
          w = await list(fixed.filter);
          spelling = ` (${fixed.note})`;
        }
        if (w.total === 0) missHint = spellingHint(recent, "recent events");
      }
      if (w.total === 0 && (from || to)) {
        const span = await eventSpan(ctx);
        if (span) spanHint = spanSentence(span);
      }
      rows = w.items.map(fromEvent);
      total = w.total;
      head = `${plural(total, "event")}${filtered ? " matching" : ""} in the repository${spelling}`;
    }

    // Name what the events touched: bare refs would cost the model one call per entity.
    if (!args.ref) rows = await explain(ctx, rows, !args.event);
    const { kept, cut } = withinBudget(rows);
    rows = kept;
    const paging = pageFacts(offset, rows.length, total, hash);
    // One event's entities share its type, date, user and workflow: said once unless full detail is asked for.
    const compactEvent = Boolean(args.event) && args.detail === "compact" && rows.length > 0;
    const first = rows[0];
    if (compactEvent && first) {
      head = `${head}: ${first.type} by ${first.user} on ${first.date}${first.workflow ? `, ${first.workflow}` : ""}`;
    }
    const eventLines = rows.map((r) =>
      compactEvent
        ? `- ${r.touched?.[0]?.title ? `${spoken(TYPE_OF[r.touched[0].type])} "${clip(r.touched[0].title, 80)}" ` : ""}${r.entityRef ?? ""}${r.action ? ` (${r.action})` : ""}`
        : fullLine(r),
    );
    function fullLine(r: Row): string {
      return `- ${r.date} ${r.type}${r.action ? ` (${r.action})` : ""} by ${r.user}${r.workflow ? `, ${r.workflow}` : ""}${
        r.entityRef
          ? ` on ${r.touched?.[0]?.title ? `${spoken(TYPE_OF[r.touched[0].type])} "${clip(r.touched[0].title, 80)}" ` : ""}${r.entityRef}`
          : ` event ${r.eventRef}${touchedText(r)}`
      }`;
    }
    const text = lines(
      `${head}${rows.length ? (args.newestFirst ? ", newest first:" : ", oldest first:") : "."}`,
      ...eventLines,
      budgetNote(cut),
      pageNote(offset, rows.length, total, paging.nextCursor),
      missHint,
      spanHint,
      filesHint,
    );
    const structured =
      compactEvent && first
        ? {
            events: [],
            event: {
              eventRef: first.eventRef,
              type: first.type,
              date: first.date,
              user: first.user,
              ...(first.workflow ? { workflow: first.workflow } : {}),
            },
            entities: rows.map((r) => ({
              ...(r.touched?.[0] ?? { ref: r.entityRef ?? "", type: "asset" as const, title: "" }),
              ...(r.action ? { action: r.action } : {}),
            })),
            ...paging,
          }
        : { events: rows, ...paging };
    return { structured, text };
  },
});
