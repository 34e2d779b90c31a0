import type { Migration } from "./index.js";

/**
 * Schema 14: technical properties of each generation, from characterising its content (widths, heights,
 * colour spaces, cameras, page counts, durations; repository/characterise/), in the order the generation's
 * `xip:Properties` lists them. `generations.characterised` tells a generation never looked at (0: stored by
 * a seed, or before this schema) from one that was and yielded nothing (1); the former are characterised
 * when first read.
 */
export const technicalProperties: Migration = {
  version: 14,
  name: "technical-properties",
  up(db) {
    db.exec(`
      ALTER TABLE generations ADD COLUMN characterised INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE generation_properties (
        generation_id INTEGER NOT NULL REFERENCES generations (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        property_group TEXT,
        puid TEXT NOT NULL,
        name TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (generation_id, position)
      );
    `);
  },
};
