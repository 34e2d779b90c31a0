import type { Db } from "../db.js";
import type { EntityType } from "../entities/types.js";

/**
 * Reads of the folder tree that structure changes and deletions need: a subtree (the entity and
 * everything whose parent chain leads to it, content objects included, since a content object's
 * parent is its asset), the security tags found in one, and ancestry.
 */

export interface TreeEntity {
  ref: string;
  type: EntityType;
  security_tag: string;
}

/**
 * Live descendants of `rootRef` (not the root itself), in insertion order. Descent stops at deleted
 * entities: whatever lies below one was deleted with it or before it.
 */
const LIVE_DESCENDANTS = `WITH RECURSIVE sub(ref) AS (
    SELECT ref FROM entities WHERE parent_ref = @root AND deleted = 0
    UNION
    SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.deleted = 0
  )`;

/** `rootRef` itself (when live) and its live descendants, as `sub(ref)`. */
export const LIVE_SUBTREE = `WITH RECURSIVE sub(ref) AS (
    SELECT ref FROM entities WHERE ref = @root AND deleted = 0
    UNION
    SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.deleted = 0
  )`;

export function liveDescendants(db: Db, rootRef: string): TreeEntity[] {
  return db
    .prepare(
      `${LIVE_DESCENDANTS} SELECT e.ref, e.type, e.security_tag FROM sub CROSS JOIN entities e ON e.ref = sub.ref ORDER BY e.id`,
    )
    .all({ root: rootRef }) as TreeEntity[];
}

export function liveDescendantCount(db: Db, rootRef: string): number {
  return (
    db.prepare(`${LIVE_DESCENDANTS} SELECT count(*) AS n FROM sub`).get({ root: rootRef }) as { n: number }
  ).n;
}

/** The live content objects of an asset (they carry the asset's security tag along with it). */
export function contentObjectsOf(db: Db, ioRef: string): TreeEntity[] {
  return db
    .prepare(
      "SELECT ref, type, security_tag FROM entities WHERE parent_ref = ? AND type = 'CO' AND deleted = 0 ORDER BY id",
    )
    .all(ioRef) as TreeEntity[];
}

/**
 * One entity per security tag found on `rootRef` and its live descendants: permission checks over a
 * subtree ask once per tag, and a refusal can name an entity that carries the tag.
 */
export function subtreeTags(db: Db, rootRef: string): { tag: string; ref: string }[] {
  return db
    .prepare(
      `${LIVE_SUBTREE} SELECT e.security_tag AS tag, min(e.ref) AS ref FROM sub CROSS JOIN entities e ON e.ref = sub.ref
          GROUP BY e.security_tag ORDER BY e.security_tag`,
    )
    .all({ root: rootRef }) as { tag: string; ref: string }[];
}

/** Whether `ancestorRef` is `ref` itself or above it in the folder tree. */
export function isSelfOrAncestor(db: Db, ancestorRef: string, ref: string): boolean {
  const row = db
    .prepare(
      `WITH RECURSIVE up(ref, parent) AS (
         SELECT ref, parent_ref FROM entities WHERE ref = @ref
         UNION
         SELECT e.ref, e.parent_ref FROM entities e JOIN up ON e.ref = up.parent
       ) SELECT 1 AS hit FROM up WHERE ref = @ancestor LIMIT 1`,
    )
    .get({ ref, ancestor: ancestorRef });
  return row !== undefined;
}

/** The names of the security tags that exist. */
export function securityTagNames(db: Db): string[] {
  return (db.prepare("SELECT name FROM security_tags ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );
}
