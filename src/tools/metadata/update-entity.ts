import { z } from "zod";
import type { ToolContext } from "../context.js";
import { CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { entityRef } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { ARRANGE } from "../support/hints.js";
import { KIND_OF, KINDS } from "../support/kinds.js";
import { clip, lines } from "../support/text.js";
import { buildOrExplain, named } from "./params.js";

const input = z.object({
  ref: entityRef,
  title: z.string().trim().min(1).max(1000).optional().describe("New title"),
  description: z.string().trim().max(10_000).optional().describe('New description; "" removes it'),
});

const state = z.object({ title: z.string(), description: z.string().optional() });
const output = z.object({
  ref: z.string(),
  type: z.enum(KINDS),
  before: state,
  after: state,
  changed: z.array(z.enum(["title", "description"])),
});

const quoted = (s: string | undefined) => (s ? `“${clip(s, 300)}”` : "(none)");

export default defineTool({
  name: "update_entity",
  title: "Change title or description",
  description:
    "Set the title and/or description of a folder, asset or content object. Answers before → after; the old values stay in the audit log.",
  toolset: "metadata",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  // No confirmation (a title is one value, shown before → after), so not marked destructive: the old values
  // are kept in the audit log, from which `undo_metadata_change` puts them back.
  annotations: ARRANGE,
  async handler(args, ctx: ToolContext) {
    if (args.title === undefined && args.description === undefined)
      throw new UserInputError("Pass `title`, `description` or both. Nothing was changed.");
    const e = await loadEntity(ctx, args.ref);
    const title = args.title ?? e.title;
    const description = args.description === undefined ? e.description : args.description || undefined;
    const changed = [
      ...(title !== e.title ? (["title"] as const) : []),
      ...((description ?? "") !== (e.description ?? "") ? (["description"] as const) : []),
    ];
    const before = { title: e.title, ...(e.description ? { description: e.description } : {}) };
    if (changed.length === 0) {
      return {
        structured: { ref: e.ref, type: KIND_OF[e.type], before, after: before, changed },
        text: `The ${named(e)} already has this ${args.title !== undefined ? "title" : "description"}; nothing was changed.`,
      };
    }
    const { description: _old, ...rest } = e;
    const saved = await buildOrExplain(() =>
      ctx.api.entityWrite.save({ ...rest, title, ...(description ? { description } : {}) }, ctx.signal),
    );
    const after = { title: saved.title, ...(saved.description ? { description: saved.description } : {}) };
    return {
      structured: { ref: e.ref, type: KIND_OF[e.type], before, after, changed },
      text: lines(
        `Changed the ${named({ ...e, title: saved.title })}:`,
        changed.includes("title") && `  title: ${quoted(before.title)} → ${quoted(after.title)}`,
        changed.includes("description") &&
          `  description: ${quoted(before.description)} → ${quoted(after.description)}`,
      ),
      audit: {
        targets: [{ ref: e.ref, title: saved.title }],
        previous: { ref: e.ref, entityType: e.type, title: e.title, description: e.description ?? "" },
      },
    };
  },
});
