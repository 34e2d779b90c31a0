import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Reads of the preservation registry: items of one kind, one item by GUID, a file format by PUID. */

export interface RegistryItemRow {
  kind: string;
  guid: string;
  name: string;
  namespace: string;
  document: string;
  built_in: number;
  modified: string;
}

export function registryItems(db: Db, kind: string): RegistryItemRow[] {
  return prepared(db, "SELECT * FROM registry_items WHERE kind = ? ORDER BY name, guid").all(
    kind,
  ) as RegistryItemRow[];
}

export function registryItem(db: Db, kind: string, guid: string): RegistryItemRow | undefined {
  return prepared(db, "SELECT * FROM registry_items WHERE kind = ? AND guid = ?").get(kind, guid) as
    | RegistryItemRow
    | undefined;
}

/** An item by its identifier's name (a file format's PUID). */
export function registryItemByName(db: Db, kind: string, name: string): RegistryItemRow | undefined {
  return prepared(db, "SELECT * FROM registry_items WHERE kind = ? AND name = ? ORDER BY guid LIMIT 1").get(
    kind,
    name,
  ) as RegistryItemRow | undefined;
}

/** The rule sets whose rules name `guid` (a business rule or a file format): what a deletion would break. */
export function ruleSetsReferring(db: Db, guid: string): string[] {
  return (
    prepared(
      db,
      `SELECT r.name FROM registry_items r, json_each(r.document, '$.rules') e
       WHERE r.kind = 'rulesets' AND (json_extract(e.value, '$.businessRule.guid') = @guid
         OR json_extract(e.value, '$.format.guid') = @guid)
       GROUP BY r.guid ORDER BY r.name`,
    ).all({ guid }) as { name: string }[]
  ).map((r) => r.name);
}
