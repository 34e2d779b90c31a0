import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { ancestors, loadEntity } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { toItem } from "../support/kinds.js";
import { budgetNote, withinBudget } from "../support/paging.js";
import { clip, itemLine, lines, pageNote, plural } from "../support/text.js";
import { crumb, cursor, item, limit, page, refParam } from "./params.js";

const input = z.object({
  ref: refParam("Folder to list; omit for the top level. Find folders with `search` or `browse`").optional(),
  limit: limit(50, 200),
  cursor,
});

const output = z.object({
  folder: crumb.optional(),
  breadcrumbs: z.array(crumb),
  breadcrumbsComplete: z.boolean(),
  children: z.array(item),
  ...page,
});

export default defineTool({
  name: "browse",
  title: "Browse folders",
  description:
    "List what a folder holds (folders and assets), or the top-level folders when no ref is given, with the path from the top (breadcrumbs). Paged.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const hash = queryHash("browse", args);
    const offset = decodeCursor(args.cursor, hash);
    const folder = args.ref
      ? await loadEntity(ctx, args.ref, {
          expect: ["SO"],
          wrongKind: (e) =>
            e.type === "IO"
              ? "Assets hold files, not children: use `get_entity` with include files, or `get_file`."
              : "Use `get_file` for its file, or `browse` the folder above its asset.",
        })
      : undefined;
    const [trail, children] = await Promise.all([
      folder ? ancestors(ctx, folder) : Promise.resolve({ crumbs: [], complete: true }),
      ctx.entity.children(folder ? folder.ref : null, { start: offset, max: args.limit, signal: ctx.signal }),
    ]);
    const { kept: items, cut } = withinBudget(children.items.map(toItem));
    const paging = pageFacts(offset, items.length, children.total, hash);
    const structured = {
      ...(folder ? { folder: { ref: folder.ref, title: folder.title } } : {}),
      breadcrumbs: trail.crumbs,
      breadcrumbsComplete: trail.complete,
      children: items,
      ...paging,
    };
    const path = folder
      ? `/${[...trail.crumbs, folder].map((c) => clip(c.title, 60)).join("/")}${trail.complete ? "" : " (the path above is cut short)"}`
      : "Top level";
    const head =
      children.total === 0
        ? `${path}: empty (or nothing you may see).`
        : `${path}: ${plural(children.total, "item")}${folder ? ` in folder ${folder.ref}` : ""}`;
    const crumbLine =
      trail.crumbs.length > 0
        ? `Above: ${trail.crumbs.map((c) => `"${clip(c.title, 40)}" ${c.ref}`).join(" > ")}`
        : "";
    const text = lines(
      head,
      crumbLine,
      ...items.map(itemLine),
      budgetNote(cut),
      pageNote(offset, items.length, children.total, paging.nextCursor),
    );
    return { structured, text };
  },
});
