import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { checkRange, toInstant } from "../support/dates.js";
import { eventSpan, spanSentence } from "../support/event-span.js";
import { READ_ONLY } from "../support/hints.js";
import { toItem } from "../support/kinds.js";
import { budgetNote, withinBudget } from "../support/paging.js";
import { itemLine, lines, pageNote, plural } from "../support/text.js";
import { cursor, date, item, limit, page } from "./params.js";

const input = z.object({
  since: z
    .string()
    .trim()
    .min(4)
    .max(40)
    .describe("Changed on or after: 2025, 2025-07, 2025-07-15 or an ISO 8601 date-time"),
  until: date("Changed on or before (inclusive)"),
  limit: limit(50, 200),
  cursor,
});

const output = z.object({
  since: z.string(),
  until: z.string().optional(),
  entities: z.array(item),
  ...page,
});

export default defineTool({
  name: "list_changes",
  title: "List changed entities",
  description:
    "Folders, assets and content objects created or changed in a time window (since, optional until), oldest change first. Use `list_events` for what happened to one of them. Paged.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const hash = queryHash("list_changes", args);
    const offset = decodeCursor(args.cursor, hash);
    const since = toInstant(args.since, "start", "since");
    const until = args.until ? toInstant(args.until, "end", "until") : undefined;
    checkRange(since, until, ["since", "until"]);
    const p = await ctx.entity.updatedSince(since, {
      ...(until ? { endDate: until } : {}),
      start: offset,
      max: args.limit,
      signal: ctx.signal,
    });
    const { kept: entities, cut } = withinBudget(p.items.map(toItem));
    const paging = pageFacts(offset, entities.length, p.total, hash);
    const window = `${since}${until ? ` to ${until}` : " onwards"}`;
    // "What changed last week" on a quiet repository: say when things did happen (its history's dates).
    const span = p.total === 0 && offset === 0 ? await eventSpan(ctx) : undefined;
    const text = lines(
      p.total === 0
        ? `Nothing you may see changed from ${window}.`
        : `${plural(p.total, "entity", "entities")} changed from ${window}:`,
      ...entities.map(itemLine),
      budgetNote(cut),
      pageNote(offset, entities.length, p.total, paging.nextCursor),
      span && spanSentence(span),
    );
    return { structured: { since, ...(until ? { until } : {}), entities, ...paging }, text };
  },
});
