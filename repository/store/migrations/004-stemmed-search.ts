import type { Migration } from "./index.js";

/**
 * Schema 4: stemmed full-text search. `entity_fts` is recreated with FTS5's porter tokenizer (over
 * unicode61, as before), so "map" finds "maps" and "minutes" finds "minute", as the real service's
 * search does; and it gains a `file_text` column for the words inside an asset's small text files
 * (filled by repository/search/file-text.ts; empty until an asset's files are indexed).
 *
 * A tokenizer cannot be changed in place: the old table is renamed, the new one filled from its stored
 * columns (exactly the rows reindexEntity and the seeds built, so the refill needs no XML parsing and
 * no per-entity queries: about a second for 100,000 entities) and the old one dropped.
 */
export const STEMMED_FTS_SCHEMA = `CREATE VIRTUAL TABLE entity_fts USING fts5 (
  title, description, metadata, file_text, tokenize = 'porter unicode61 remove_diacritics 2'
)`;

export const stemmedSearch: Migration = {
  version: 4,
  name: "stemmed full-text search",
  up: (db) => {
    db.exec("ALTER TABLE entity_fts RENAME TO entity_fts_unstemmed");
    db.exec(STEMMED_FTS_SCHEMA);
    db.exec(`INSERT INTO entity_fts (rowid, title, description, metadata)
             SELECT rowid, title, description, metadata FROM entity_fts_unstemmed`);
    db.exec("DROP TABLE entity_fts_unstemmed");
  },
};
