import type { Db } from "../db.js";
import { addFragment, reindexEntity } from "../entities/write.js";
import { prepared } from "../statements.js";

/**
 * Writes of descriptive metadata fragments. Each keeps the search index (full text and Dublin Core
 * values) in step; callers run them inside the transaction that also records the change's event.
 */

export { addFragment };

/** Replaces the document (and schema) of a fragment. Returns false when there is no such fragment. */
export function updateFragment(
  db: Db,
  mref: string,
  schemaUri: string,
  content: string,
  date: string,
): boolean {
  const row = prepared(db, "SELECT entity_ref FROM metadata_fragments WHERE mref = ?").get(mref) as
    | { entity_ref: string }
    | undefined;
  if (!row) return false;
  prepared(db, "UPDATE metadata_fragments SET schema_uri = ?, content = ?, modified = ? WHERE mref = ?").run(
    schemaUri,
    content,
    date,
    mref,
  );
  reindexEntity(db, row.entity_ref);
  return true;
}

/** Removes a fragment. Returns false when there is no such fragment. */
export function deleteFragment(db: Db, mref: string): boolean {
  const row = prepared(db, "SELECT entity_ref FROM metadata_fragments WHERE mref = ?").get(mref) as
    | { entity_ref: string }
    | undefined;
  if (!row) return false;
  prepared(db, "DELETE FROM metadata_fragments WHERE mref = ?").run(mref);
  reindexEntity(db, row.entity_ref);
  return true;
}
