import type { Db } from "../db.js";

/**
 * Custom previews (thumbnails) uploaded for folders and assets. The row names the image's blob in the
 * content store; the Content API's thumbnail serves it before any image the entity's content offers.
 */

export interface PreviewRow {
  entity_ref: string;
  content_sha256: string;
  size: number;
  mime_type: string;
  modified: string;
}

export function findPreview(db: Db, entityRef: string): PreviewRow | undefined {
  return db
    .prepare(
      "SELECT entity_ref, content_sha256, size, mime_type, modified FROM previews WHERE entity_ref = ?",
    )
    .get(entityRef) as PreviewRow | undefined;
}
