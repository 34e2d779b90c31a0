import { z } from "zod";
import { groupElement, type MetadataGroup } from "../../api/metadata-csv.js";
import { clip } from "../support/text.js";

/** What the metadata group tools share: how a group reads, structured and as text. */

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
