import { type GroupField, type GroupInput, schemaUriFor } from "../metadata-groups/definition.js";
import type { Db } from "../store/db.js";
import { insertGroup } from "../store/metadata-groups/write.js";
import { apiIdFrom } from "./ids.js";

/**
 * The demo's metadata group: where each item sits on the shelves and what state it is in, the kind of
 * fields a bulk CSV edit fills in after a stocktake, so `csv_metadata_edit` and group field maps can be tried
 * out of the box. One field has a controlled list of values. Fixed id, so tests and people can name it.
 */

const field = (id: string, name: string, extra: Partial<GroupField> = {}): GroupField => ({
  id,
  name,
  type: "STRING",
  minOccurs: 0,
  maxOccurs: 1,
  visible: true,
  editable: true,
  defaultValue: "",
  indexed: true,
  ...extra,
});

const GROUP: GroupInput = {
  name: "Location and condition",
  description: "Where an item is kept (box, shelf) and its condition at the last survey",
  fields: [
    field("box", "Box number"),
    field("shelf", "Shelf mark"),
    field("condition", "Condition", { values: ["Good", "Fair", "Poor", "Fragile"] }),
    field("surveyed", "Condition surveyed on", { type: "DATE" }),
  ],
};

export const DEMO_METADATA_GROUP = {
  id: apiIdFrom("demo:metadata-group:location"),
  name: GROUP.name,
  schemaUri: schemaUriFor(GROUP.name),
  fields: GROUP.fields.map((f) => f.id),
} as const;

export function seedMetadataGroups(db: Db): void {
  insertGroup(db, GROUP, DEMO_METADATA_GROUP.schemaUri, "2025-03-03T10:05:00.000Z", DEMO_METADATA_GROUP.id);
}
