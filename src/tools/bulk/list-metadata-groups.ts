import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { mapLimit } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { lines, plural } from "../support/text.js";
import { groupLines, groupShape, groupView } from "./params.js";

/**
 * The metadata groups the repository defines, with each field's CSV column, so a CSV edit (or a field map in
 * `update_metadata`) can be written without guessing schema URIs.
 */

/** Groups read in full (one request each) per call; a repository rarely has more. */
const MAX_GROUPS = 20;

export default defineTool({
  name: "list_metadata_groups",
  title: "List metadata groups",
  description:
    "The repository's metadata groups with their fields (type, allowed values) and each field's CSV column header for `csv_metadata_edit`.",
  toolset: "bulk",
  inputSchema: z.object({}),
  outputSchema: z.object({
    groups: z.array(groupShape),
    total: z.number().int(),
    omitted: z.number().int().optional(),
  }),
  annotations: READ_ONLY,
  async handler(_args, ctx: ToolContext) {
    const all = await ctx.api.metadataCsv.groups(ctx.signal);
    const read = await mapLimit(all.slice(0, MAX_GROUPS), 4, (g) =>
      ctx.api.metadataCsv.group(g.id, ctx.signal),
    );
    const groups = read.map(groupView);
    const omitted = all.length - groups.length;
    return {
      structured: { groups, total: all.length, ...(omitted > 0 ? { omitted } : {}) },
      text: lines(
        all.length === 0
          ? "No metadata groups (a manager creates them with `manage_metadata_group`)."
          : `${plural(all.length, "metadata group")}:`,
        ...groups.flatMap(groupLines),
        omitted > 0 && `… and ${omitted} more (not shown)`,
        all.length > 0 &&
          'A CSV edit\'s header: "PRESERVICA_ENTITY_REF" then the columns of the fields to set, one row per entity.',
      ),
    };
  },
});
