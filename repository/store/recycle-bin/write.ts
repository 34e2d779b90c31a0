import type { Db } from "../db.js";

/**
 * Writes of the recycle bin: putting a subtree in it, taking a deletion out again, and removing
 * entities for good with everything that hangs off them. Callers run each inside the transaction that
 * records the action's items and event.
 */

/**
 * Puts `rootRef` and its live subtree in the recycle bin under `deletionId`; returns the refs marked,
 * the root first. Entities already in the bin below it keep their own (earlier) deletion.
 */
export function markDeleted(db: Db, rootRef: string, deletionId: string, at: string): string[] {
  const refs = (
    db
      .prepare(
        `WITH RECURSIVE sub(ref) AS (
           SELECT ref FROM entities WHERE ref = @root AND deleted = 0
           UNION
           SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.deleted = 0
         ) SELECT e.ref FROM sub CROSS JOIN entities e ON e.ref = sub.ref ORDER BY e.ref = @root DESC, e.id`,
      )
      .all({ root: rootRef }) as { ref: string }[]
  ).map((r) => r.ref);
  db.prepare(
    `UPDATE entities SET deleted = 1, deletion_id = ?, deleted_at = ?
      WHERE deleted = 0 AND ref IN (SELECT value FROM json_each(?))`,
  ).run(deletionId, at, JSON.stringify(refs));
  return refs;
}

/** Takes every entity of these deletions out of the bin; returns their refs (top entities first). */
export function restoreDeletions(db: Db, deletionIds: readonly string[]): string[] {
  const ids = JSON.stringify(deletionIds);
  const refs = (
    db
      .prepare(
        `SELECT e.ref FROM entities e WHERE e.deleted = 1 AND e.deletion_id IN (SELECT value FROM json_each(@ids))
          ORDER BY EXISTS (SELECT 1 FROM entities p WHERE p.ref = e.parent_ref AND p.deletion_id = e.deletion_id), e.id`,
      )
      .all({ ids }) as { ref: string }[]
  ).map((r) => r.ref);
  db.prepare(
    `UPDATE entities SET deleted = 0, deletion_id = NULL, deleted_at = NULL
      WHERE deleted = 1 AND deletion_id IN (SELECT value FROM json_each(?))`,
  ).run(ids);
  return refs;
}

/**
 * Removes entities for good: their rows and everything hanging off them (metadata, identifiers,
 * links either way, representations, generations, bitstreams, fixities, previews, retention
 * assignments, search index rows). Events stay: they are the history. Returns the content hashes the
 * removed bitstreams and previews referenced; the caller removes those blobs that nothing else uses.
 */
export function removeEntities(db: Db, refs: readonly string[]): string[] {
  if (refs.length === 0) return [];
  const list = JSON.stringify(refs);
  const IN = "IN (SELECT value FROM json_each(@list))";
  const blobs = db
    .prepare(
      `SELECT b.content_sha256 AS sha FROM bitstreams b JOIN generations g ON g.id = b.generation_id
        WHERE g.co_ref ${IN}
       UNION SELECT content_sha256 FROM previews WHERE entity_ref ${IN}`,
    )
    .all({ list }) as { sha: string }[];
  const run = (sql: string) => db.prepare(sql).run({ list });
  // Fixities and bitstreams cascade from generations, representation objects from representations
  // (foreign keys are on); they are deleted explicitly anyway so the outcome never depends on a pragma.
  run(
    `DELETE FROM fixities WHERE bitstream_id IN (SELECT b.id FROM bitstreams b JOIN generations g ON g.id = b.generation_id WHERE g.co_ref ${IN})`,
  );
  run(`DELETE FROM bitstreams WHERE generation_id IN (SELECT id FROM generations WHERE co_ref ${IN})`);
  run(`DELETE FROM generations WHERE co_ref ${IN}`);
  run(`DELETE FROM representation_objects WHERE co_ref ${IN}`);
  run(
    `DELETE FROM representation_objects WHERE representation_id IN (SELECT id FROM representations WHERE io_ref ${IN})`,
  );
  run(`DELETE FROM representations WHERE io_ref ${IN}`);
  run(`DELETE FROM metadata_fragments WHERE entity_ref ${IN}`);
  run(`DELETE FROM identifiers WHERE entity_ref ${IN}`);
  run(`DELETE FROM links WHERE from_ref ${IN} OR to_ref ${IN}`);
  run(`DELETE FROM previews WHERE entity_ref ${IN}`);
  run(`DELETE FROM retention_assignments WHERE entity_ref ${IN}`);
  run(`DELETE FROM entity_dc_values WHERE entity_ref ${IN}`);
  run(`DELETE FROM entity_fts WHERE rowid IN (SELECT id FROM entities WHERE ref ${IN})`);
  run(`DELETE FROM entities WHERE ref ${IN}`);
  return blobs.map((b) => b.sha);
}

/**
 * The hashes among `shas` that no bitstream and no preview references any more: those `blob_usage` no
 * longer lists (triggers keep it as bitstreams and previews come and go; migration 13). One lookup each.
 */
export function unreferencedBlobs(db: Db, shas: readonly string[]): string[] {
  if (shas.length === 0) return [];
  return (
    db
      .prepare(
        `SELECT DISTINCT value AS sha FROM json_each(?)
          WHERE value NOT IN (SELECT content_sha256 FROM blob_usage)`,
      )
      .all(JSON.stringify(shas)) as { sha: string }[]
  ).map((r) => r.sha);
}

/** Adds a note to an action's message (what later became of a deletion), keeping its status and dates. */
export function noteOnAction(db: Db, id: string, note: string, now: string): void {
  db.prepare(
    "UPDATE actions SET message = CASE WHEN message IS NULL OR message = '' THEN @note ELSE message || ' ' || @note END, updated = @now WHERE id = @id",
  ).run({ id, note, now });
}
