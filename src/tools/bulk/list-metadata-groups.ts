import { z } from "zod";
import { groupElement, type MetadataGroup } from "../../api/metadata-csv.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { mapLimit } from "../support/entities.js";
import { clip, lines, plural } from "../support/text.js";

/**
 * The metadata groups the repository defines, with each field's CSV column, so a CSV edit (or a field map in
 * `update_metadata`) can be written without guessing schema URIs.
 */

/** Groups read in full (one request each) per call; a repository rarely has more. */
const MAX_GROUPS = 20;

const fieldShape = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  values: z.array(z.string()).optional(),
  /** The header of this field's column in a metadata CSV edit. */
  column: z.string(),
});

export const groupShape = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  schemaUri: z.string(),
  fields: z.array(fieldShape),
});

/** The CSV header of one field of a group: `<schema URI>;/ns:<element>/ns:<field>`. */
export function csvColumn(schemaUri: string, field: string): string {
  return `${schemaUri};/ns:${groupElement(schemaUri)}/ns:${field}`;
}

export function groupView(g: MetadataGroup): z.infer<typeof groupShape> {
  return {
    id: g.id,
    name: g.name,
    ...(g.description ? { description: g.description } : {}),
    schemaUri: g.schemaUri,
    fields: g.fields.map((f) => ({
      id: f.id,
      name: f.name,
      type: f.type,
      ...(f.values ? { values: f.values } : {}),
      column: csvColumn(g.schemaUri, f.id),
    })),
  };
}

/** A group as text: a line for the group, one per field with its type, values and CSV column. */
export function groupLines(g: z.infer<typeof groupShape>): string[] {
  return [
    `- "${clip(g.name, 100)}" (id ${g.id}, schema ${g.schemaUri})${g.description ? `: ${clip(g.description, 200)}` : ""}`,
    ...g.fields.map(
      (f) =>
        `  ${f.id} "${clip(f.name, 80)}" ${f.type}${f.values ? ` one of ${f.values.map((v) => `"${clip(v, 40)}"`).join(", ")}` : ""}; CSV column "${f.column}"`,
    ),
  ];
}

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
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
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
