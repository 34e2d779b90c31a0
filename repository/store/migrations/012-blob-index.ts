import type { Migration } from "./index.js";

/**
 * Schema 12: indexes on the blob each bitstream and preview names, with its size, so finding who names a
 * blob is a lookup, not a scan of every bitstream. (The quota's totals, first counted over these indexes,
 * are kept by triggers since schema 13.)
 */
export const blobIndex: Migration = {
  version: 12,
  name: "blob-index",
  up(db) {
    db.exec(`
      CREATE INDEX bitstreams_blob ON bitstreams (content_sha256, size);
      CREATE INDEX previews_blob ON previews (content_sha256, size);
    `);
  },
};
