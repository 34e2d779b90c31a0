import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { isServiceError } from "../../api/errors.js";
import type { ToolContext } from "../context.js";
import { CURATOR_ROLES, defineTool } from "../define.js";
import { cursor, limit } from "../discovery/params.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { mapLimit } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { KIND_OF, KINDS } from "../support/kinds.js";
import { clip, lines, pageNote } from "../support/text.js";
import { binLine } from "./params.js";

const input = z.object({
  pending: z
    .boolean()
    .default(false)
    .describe("true: list deletions awaiting a manager's approval instead of what is in the bin"),
  cursor,
  limit: limit(20, 100),
});

const entry = z.object({
  ref: z.string(),
  type: z.enum(KINDS).optional(),
  title: z.string().optional(),
  /** The deletion's job handle (for `review_deletion`, `job_status`). */
  job: z.string(),
  /** Entities the deletion holds (this one and everything below it). */
  entities: z.number().int().optional(),
  deletedAt: z.string().optional(),
  deletedBy: z.string().optional(),
  submittedBy: z.string().optional(),
  submittedAt: z.string().optional(),
  comment: z.string().optional(),
});

const output = z.object({
  pending: z.boolean(),
  items: z.array(entry),
  total: z.number().int(),
  hasMore: z.boolean(),
  nextCursor: z.string().optional(),
});

/** Titles of the entities pending deletions name (a few requests at a time; unreadable ones stay untitled). */
async function titles(ctx: ToolContext, refs: { ref: string; type?: Entity["type"] }[]) {
  return mapLimit(refs, 4, async (r) => {
    try {
      return await ctx.entity.get(r.ref, r.type, ctx.signal);
    } catch (err) {
      if (isServiceError(err) && (err.status === 403 || err.status === 404)) return undefined;
      throw err;
    }
  });
}

export default defineTool({
  name: "recycle_bin",
  title: "List the recycle bin",
  description:
    "What is in the recycle bin (newest first: title, what was deleted with it, when, by whom, its deletion job), or with pending: true the deletions awaiting a manager's approval. Recover with `recover_entity`.",
  toolset: "lifecycle",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const hash = queryHash("recycle_bin", args);
    const offset = decodeCursor(args.cursor, hash);
    if (!args.pending) {
      const page = await ctx.api.lifecycle.recycleBin({ start: offset, max: args.limit, signal: ctx.signal });
      const items = page.items.map((b) => ({
        ref: b.ref,
        type: KIND_OF[b.type],
        title: b.title,
        job: b.deletion,
        ...(b.entities !== undefined ? { entities: b.entities } : {}),
        ...(b.deletedAt ? { deletedAt: b.deletedAt } : {}),
        ...(b.deletedBy ? { deletedBy: b.deletedBy } : {}),
      }));
      const paging = pageFacts(offset, items.length, page.total, hash);
      const text = lines(
        page.total === 0
          ? "The recycle bin is empty."
          : `Recycle bin (${page.total.toLocaleString("en")} deletions):`,
        ...page.items.map(
          (b) =>
            `- ${binLine(b)}; deleted${b.deletedAt ? ` ${b.deletedAt}` : ""}${b.deletedBy ? ` by ${b.deletedBy}` : ""}; job ${b.deletion}`,
        ),
        pageNote(offset, items.length, page.total, paging.nextCursor),
      );
      return { structured: { pending: false, items, ...paging }, text };
    }
    const page = await ctx.api.lifecycle.deletions({
      status: "PENDING",
      start: offset,
      max: args.limit,
      signal: ctx.signal,
    });
    const named = await titles(
      ctx,
      page.items.flatMap((d) => (d.entityRef ? [{ ref: d.entityRef, type: d.entityType }] : [])),
    );
    const byRef = new Map(named.flatMap((e) => (e ? [[e.ref, e] as const] : [])));
    const items: z.infer<typeof entry>[] = page.items.map((d) => {
      const e = d.entityRef ? byRef.get(d.entityRef) : undefined;
      return {
        ref: d.entityRef ?? "",
        ...(e
          ? { type: KIND_OF[e.type], title: e.title }
          : d.entityType
            ? { type: KIND_OF[d.entityType] }
            : {}),
        job: d.id,
        ...(d.total !== undefined ? { entities: d.total } : {}),
        ...(d.user ? { submittedBy: d.user } : {}),
        ...(d.created ? { submittedAt: d.created } : {}),
        ...(d.comment ? { comment: d.comment } : {}),
      };
    });
    const paging = pageFacts(offset, items.length, page.total, hash);
    const text = lines(
      page.total === 0
        ? "No deletion awaits approval."
        : `Deletions awaiting a manager's approval (${page.total.toLocaleString("en")}); decide with \`review_deletion\`:`,
      ...items.map(
        (i) =>
          `- ${i.type ? i.type.replace("_", " ") : "entity"} ${i.title ? `“${clip(i.title, 120)}” ` : ""}${i.ref}${i.entities && i.entities > 1 ? ` (${i.entities} entities)` : ""}; job ${i.job}; by ${i.submittedBy ?? "?"}${i.submittedAt ? ` ${i.submittedAt}` : ""}${i.comment ? `: “${clip(i.comment, 160)}”` : ""}`,
      ),
      pageNote(offset, items.length, page.total, paging.nextCursor),
    );
    return { structured: { pending: true, items, ...paging }, text };
  },
});
