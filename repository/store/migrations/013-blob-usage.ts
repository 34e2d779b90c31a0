import type { Migration } from "./index.js";

/**
 * Schema 13: the bytes the content store holds for the repository, kept as the store changes instead of
 * counted on demand. The storage quota is checked on every write that stores bytes (store/storage/quota.ts);
 * counting meant a grouped scan of every bitstream and preview each time (65 ms at 100,000 bitstreams even
 * with migration 12's indexes, growing with the store). Now:
 * - `blob_usage`: each blob a bitstream or a preview names, its size, and how many name it;
 * - `storage_totals`: one row, the sum of those sizes and their number;
 * both kept by triggers on every insert, update and delete of a bitstream or preview (a cascade from a
 * deleted entity included), in the same transaction as the change. Filled from the store as it is.
 */
export const blobUsage: Migration = {
  version: 13,
  name: "blob-usage",
  up(db) {
    db.exec(`
      CREATE TABLE blob_usage (
        content_sha256 TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        refs INTEGER NOT NULL
      );
      CREATE TABLE storage_totals (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        bytes INTEGER NOT NULL,
        blobs INTEGER NOT NULL
      );

      INSERT INTO blob_usage (content_sha256, size, refs)
        SELECT content_sha256, MAX(size), COUNT(*) FROM (
          SELECT content_sha256, size FROM bitstreams UNION ALL SELECT content_sha256, size FROM previews
        ) GROUP BY content_sha256;
      INSERT INTO storage_totals (id, bytes, blobs)
        SELECT 1, COALESCE(SUM(size), 0), COUNT(*) FROM blob_usage;

      -- A blob counts once, from the first name to the last.
      CREATE TRIGGER blob_usage_added AFTER INSERT ON blob_usage BEGIN
        UPDATE storage_totals SET bytes = bytes + NEW.size, blobs = blobs + 1 WHERE id = 1;
      END;
      CREATE TRIGGER blob_usage_removed AFTER DELETE ON blob_usage BEGIN
        UPDATE storage_totals SET bytes = bytes - OLD.size, blobs = blobs - 1 WHERE id = 1;
      END;
    `);
    for (const table of ["bitstreams", "previews"]) {
      const named = (row: "NEW" | "OLD") => `
        INSERT INTO blob_usage (content_sha256, size, refs) VALUES (${row}.content_sha256, ${row}.size, 1)
          ON CONFLICT (content_sha256) DO UPDATE SET refs = refs + 1;`;
      const unnamed = (row: "NEW" | "OLD") => `
        UPDATE blob_usage SET refs = refs - 1 WHERE content_sha256 = ${row}.content_sha256;
        DELETE FROM blob_usage WHERE content_sha256 = ${row}.content_sha256 AND refs <= 0;`;
      db.exec(`
        CREATE TRIGGER ${table}_blob_named AFTER INSERT ON ${table} BEGIN ${named("NEW")} END;
        CREATE TRIGGER ${table}_blob_unnamed AFTER DELETE ON ${table} BEGIN ${unnamed("OLD")} END;
        CREATE TRIGGER ${table}_blob_renamed AFTER UPDATE OF content_sha256, size ON ${table} BEGIN
          ${unnamed("OLD")} ${named("NEW")}
        END;
      `);
    }
  },
};
