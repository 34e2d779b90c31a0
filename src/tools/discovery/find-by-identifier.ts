import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { READ_ONLY } from "../support/hints.js";
import { toItem } from "../support/kinds.js";
import { budgetNote, withinBudget } from "../support/paging.js";
import { clip, itemLine, lines, pageNote, plural } from "../support/text.js";
import { cursor, item, limit, page } from "./params.js";

const input = z.object({
  value: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .describe("The identifier's exact value, e.g. a reference code or ISBN"),
  type: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("Identifier type, e.g. code, isbn (default: any)"),
  limit: limit(20, 100),
  cursor,
});

const output = z.object({ entities: z.array(item), ...page });

export default defineTool({
  name: "find_by_identifier",
  title: "Find by identifier",
  description:
    "Entities carrying an external identifier (reference code, ISBN, catalogue number…), exact match. For words or partial values use `search`.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const hash = queryHash("find_by_identifier", args);
    const offset = decodeCursor(args.cursor, hash);
    const p = await ctx.entity.byIdentifier(args.value, args.type, {
      start: offset,
      max: args.limit,
      signal: ctx.signal,
    });
    const { kept: entities, cut } = withinBudget(p.items.map(toItem));
    const paging = pageFacts(offset, entities.length, p.total, hash);
    const what = `${args.type ? `${args.type} ` : ""}"${clip(args.value, 100)}"`;
    // A guessed type ("accession number" for "accession") hides a value that is there: say so.
    const untyped =
      p.total === 0 && args.type
        ? (await ctx.entity.byIdentifier(args.value, undefined, { max: 1, signal: ctx.signal })).total
        : 0;
    const text = lines(
      p.total === 0
        ? untyped > 0
          ? `No identifier of type "${clip(args.type ?? "", 60)}" has the value "${clip(args.value, 100)}", but ${plural(untyped, "entity", "entities")} ${untyped === 1 ? "carries" : "carry"} it under another type: call again without \`type\`.`
          : `No entity you may see has identifier ${what}. Values match exactly; try \`search\` with fields [{field: "xip.identifier", values: ["${clip(args.value, 60)}%"]}].`
        : `${plural(p.total, "entity", "entities")} with identifier ${what}:`,
      ...entities.map(itemLine),
      budgetNote(cut),
      pageNote(offset, entities.length, p.total, paging.nextCursor),
    );
    return { structured: { entities, ...paging }, text };
  },
});
