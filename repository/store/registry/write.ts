import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Writes of the preservation registry. Callers record the config event in the same transaction. */

export interface RegistryItemInput {
  kind: string;
  guid: string;
  name: string;
  namespace: string;
  /** The whole PAR document, `id` and `localLastModifiedDate` included. */
  document: Record<string, unknown>;
  modified: string;
}

export function insertRegistryItem(db: Db, item: RegistryItemInput): void {
  prepared(
    db,
    `INSERT INTO registry_items (kind, guid, name, namespace, document, built_in, modified)
     VALUES (@kind, @guid, @name, @namespace, @document, 0, @modified)`,
  ).run({ ...item, document: JSON.stringify(item.document) });
}

/** Replaces an item's document; a built-in item stays marked built-in. */
export function replaceRegistryItem(db: Db, item: RegistryItemInput): void {
  prepared(
    db,
    `UPDATE registry_items SET name = @name, namespace = @namespace, document = @document, modified = @modified
     WHERE kind = @kind AND guid = @guid`,
  ).run({ ...item, document: JSON.stringify(item.document) });
}

export function deleteRegistryItem(db: Db, kind: string, guid: string): void {
  prepared(db, "DELETE FROM registry_items WHERE kind = ? AND guid = ?").run(kind, guid);
}
