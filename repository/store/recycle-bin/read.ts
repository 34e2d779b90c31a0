import type { Db } from "../db.js";
import type { EntityType } from "../entities/types.js";
import { pageOf } from "../statements.js";

/**
 * Reads of the recycle bin. A deleted entity keeps its row with `deleted = 1`, the deletion action
 * that put it there (`deletion_id`) and when (`deleted_at`). Everything below a deleted entity is in
 * the bin too: a deletion marks the whole live subtree, and nothing can be created or moved under a
 * deleted folder. Recovery and final deletion work on whole deletions, never on half of one.
 */

export interface BinEntity {
  id: number;
  ref: string;
  type: EntityType;
  title: string;
  security_tag: string;
  parent_ref: string | null;
  deleted: number;
  deletion_id: string | null;
  deleted_at: string | null;
}

const BIN_COLUMNS = "id, ref, type, title, security_tag, parent_ref, deleted, deletion_id, deleted_at";

/** An entity whether live or in the recycle bin (undefined once finally deleted, or never there). */
export function anyEntity(db: Db, ref: string): BinEntity | undefined {
  return db.prepare(`SELECT ${BIN_COLUMNS} FROM entities WHERE ref = ?`).get(ref) as BinEntity | undefined;
}

/** How many entities a deletion still holds in the bin. */
export function deletionSize(db: Db, deletionId: string): number {
  return (
    db
      .prepare("SELECT count(*) AS n FROM entities WHERE deletion_id = ? AND deleted = 1")
      .get(deletionId) as {
      n: number;
    }
  ).n;
}

/**
 * The top entities of some deletions: those whose parent was not deleted by the same deletion (the
 * entity the deletion was asked for, unless part of it has gone since).
 */
export function deletionRoots(db: Db, deletionIds: readonly string[]): BinEntity[] {
  return db
    .prepare(
      `SELECT ${BIN_COLUMNS.split(", ")
        .map((c) => `e.${c}`)
        .join(", ")} FROM entities e
        WHERE e.deleted = 1 AND e.deletion_id IN (SELECT value FROM json_each(@ids))
          AND NOT EXISTS (SELECT 1 FROM entities p WHERE p.ref = e.parent_ref AND p.deletion_id = e.deletion_id)
        ORDER BY e.id`,
    )
    .all({ ids: JSON.stringify(deletionIds) }) as BinEntity[];
}

/** One entity per security tag among the entities of some deletions (for permission checks). */
export function deletionTags(db: Db, deletionIds: readonly string[]): { tag: string; ref: string }[] {
  return db
    .prepare(
      `SELECT security_tag AS tag, min(ref) AS ref FROM entities
        WHERE deleted = 1 AND deletion_id IN (SELECT value FROM json_each(?))
        GROUP BY security_tag ORDER BY security_tag`,
    )
    .all(JSON.stringify(deletionIds)) as { tag: string; ref: string }[];
}

export interface FinalTarget {
  id: number;
  ref: string;
  type: EntityType;
  security_tag: string;
  deleted: number;
  depth: number;
}

/**
 * What a final deletion of some deletions removes: their entities and everything below them (below a
 * deleted folder there may be entities of an earlier deletion: they go too, or they would be left
 * without a parent). Deepest first, so that an interrupted final deletion never leaves an entity whose
 * parent is gone, and its next run finds the rest from the same top entities.
 */
export function finalDeletionTargets(db: Db, deletionIds: readonly string[]): FinalTarget[] {
  return db
    .prepare(
      `WITH RECURSIVE sub(ref, depth) AS (
         SELECT e.ref, 0 FROM entities e
          WHERE e.deletion_id IN (SELECT value FROM json_each(@ids))
            AND NOT EXISTS (SELECT 1 FROM entities p WHERE p.ref = e.parent_ref
                              AND p.deletion_id IN (SELECT value FROM json_each(@ids)))
         UNION ALL
         SELECT c.ref, sub.depth + 1 FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE sub.depth < 10000
       )
       SELECT e.id, e.ref, e.type, e.security_tag, e.deleted, max(sub.depth) AS depth
         FROM sub CROSS JOIN entities e ON e.ref = sub.ref GROUP BY e.ref ORDER BY depth DESC, e.id DESC`,
    )
    .all({ ids: JSON.stringify(deletionIds) }) as FinalTarget[];
}

/** A deletion of this entity that is awaiting approval or running, if any. */
export function openDeletionOf(db: Db, ref: string): { id: string; status: string } | undefined {
  return db
    .prepare(
      "SELECT id, status FROM actions WHERE kind = 'deletion' AND entity_ref = ? AND status IN ('PENDING','ACTIVE') ORDER BY seq LIMIT 1",
    )
    .get(ref) as { id: string; status: string } | undefined;
}

export interface BinItem {
  ref: string;
  type: EntityType;
  title: string;
  security_tag: string;
  parent_ref: string | null;
  deletion_id: string;
  deleted_at: string;
  deleted_by: string | null;
  /** Entities this deletion holds in the bin (the top one included). */
  entities: number;
}

const BIN_ROOTS = `FROM entities e LEFT JOIN actions a ON a.id = e.deletion_id
  WHERE e.deleted = 1 AND e.security_tag IN (SELECT value FROM json_each(@tags))
    AND NOT EXISTS (SELECT 1 FROM entities p WHERE p.ref = e.parent_ref AND p.deletion_id = e.deletion_id)`;

/**
 * The recycle bin as a person sees it: the top entity of each deletion they may read, newest deletion
 * first, with how many entities went with it.
 */
export function binPage(
  db: Db,
  tags: string,
  start: number,
  max: number,
): { items: BinItem[]; total: number } {
  return pageOf(
    db,
    `SELECT e.ref, e.type, e.title, e.security_tag, e.parent_ref, e.deletion_id, e.deleted_at,
              a.username AS deleted_by,
              (SELECT count(*) FROM entities d WHERE d.deletion_id = e.deletion_id) AS entities
         ${BIN_ROOTS} ORDER BY e.deleted_at DESC, e.id LIMIT @max OFFSET @start`,
    `SELECT count(*) AS n ${BIN_ROOTS}`,
    { tags },
    start,
    max,
  );
}
