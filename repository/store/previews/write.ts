import type { StoredBlob } from "../content-store.js";
import type { Db } from "../db.js";

/**
 * Sets or removes the custom preview of an entity. The image's bytes are put in the content store
 * first (content-addressed, so an image stored for a refused or rolled-back request is harmless and
 * reused by the next upload of the same bytes); these rows decide which entity shows it.
 */

/** Sets (or replaces) the preview of `entityRef` to the stored image. */
export function setPreview(
  db: Db,
  entityRef: string,
  blob: StoredBlob,
  mimeType: string,
  date: string,
): void {
  db.prepare(
    `INSERT INTO previews (entity_ref, content_sha256, size, mime_type, modified) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (entity_ref) DO UPDATE SET content_sha256 = excluded.content_sha256, size = excluded.size,
       mime_type = excluded.mime_type, modified = excluded.modified`,
  ).run(entityRef, blob.sha256, blob.size, mimeType, date);
}

/** Removes the preview of `entityRef`; false when it had none. */
export function deletePreview(db: Db, entityRef: string): boolean {
  return db.prepare("DELETE FROM previews WHERE entity_ref = ?").run(entityRef).changes > 0;
}
