import type { Db } from "../store/db.js";
import { findPreview } from "../store/previews/read.js";
import { prepared } from "../store/statements.js";

/**
 * Which stored file stands for an entity in the Content API (download, thumbnail, object-details'
 * content-stream properties). As the real service documents it: the access representation if there
 * is one, else the preservation one; within it the first content object, its first active generation
 * (the first generation when none is active), and that generation's first bitstream.
 */

export interface EntityFile {
  sha256: string;
  size: number;
  mimeType: string;
  filename: string;
}

const ASSET_FILE = `SELECT b.content_sha256 AS sha256, b.size AS size, b.mime_type AS mimeType,
    coalesce(b.original_name, b.filename) AS filename
  FROM representations r
  JOIN representation_objects ro ON ro.representation_id = r.id
  JOIN generations g ON g.co_ref = ro.co_ref
  JOIN bitstreams b ON b.generation_id = g.id
  WHERE r.io_ref = ?
  ORDER BY (r.type = 'Access') DESC, r.idx, ro.position, g.active DESC, g.idx, b.idx
  LIMIT 1`;

const CONTENT_OBJECT_FILE = `SELECT b.content_sha256 AS sha256, b.size AS size, b.mime_type AS mimeType,
    coalesce(b.original_name, b.filename) AS filename
  FROM generations g JOIN bitstreams b ON b.generation_id = g.id
  WHERE g.co_ref = ?
  ORDER BY g.active DESC, g.idx, b.idx
  LIMIT 1`;

/** The file of an asset or content object; folders have none. */
export function fileOf(db: Db, entity: { ref: string; type: string }): EntityFile | undefined {
  if (entity.type === "IO") return prepared(db, ASSET_FILE).get(entity.ref) as EntityFile | undefined;
  if (entity.type === "CO")
    return prepared(db, CONTENT_OBJECT_FILE).get(entity.ref) as EntityFile | undefined;
  return undefined;
}

/** Image types served as their own thumbnail (browsers and clients display them directly). */
const THUMBNAIL_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function isThumbnailImage(file: EntityFile): boolean {
  return THUMBNAIL_TYPES.has(file.mimeType.toLowerCase());
}

const PREVIEW_EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/tiff": "tif",
  "image/bmp": "bmp",
};

/**
 * The image the Content API's thumbnail serves for an entity: its custom preview (PUT …/preview) when
 * one was uploaded, else its own file when that is an image. Folders have only custom previews.
 */
export function thumbnailOf(db: Db, entity: { ref: string; type: string }): EntityFile | undefined {
  const preview = findPreview(db, entity.ref);
  if (preview) {
    const ext = PREVIEW_EXTENSIONS[preview.mime_type] ?? "img";
    return {
      sha256: preview.content_sha256,
      size: preview.size,
      mimeType: preview.mime_type,
      filename: `preview.${ext}`,
    };
  }
  const file = fileOf(db, entity);
  return file && isThumbnailImage(file) ? file : undefined;
}
