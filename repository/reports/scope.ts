import type { Db } from "../store/db.js";

/**
 * What a report may count. A report sees the store as the user it runs for may read it: an entity
 * counts when its own security tag gives that user Read Metadata (the rule the Content API's search
 * uses), so a reader's figures leave closed and staff material out entirely. Inventory reports count
 * live entities (not in the recycle bin); history reports count what the events recorded about entities
 * still in the store (live or in the recycle bin), as only those still carry a tag to check.
 *
 * Statements take the readable tags as one JSON array parameter `@tags`.
 */

/** SQL condition: entity `alias` carries a readable tag (bind `tags: tagsParam(...)`). */
export function readable(alias: string): string {
  return `${alias}.security_tag IN (SELECT value FROM json_each(@tags))`;
}

export function tagsParam(tags: readonly string[]): string {
  return JSON.stringify(tags);
}

/** A folder segment of a path: its title when readable, else its reference (titles of closed folders stay hidden). */
export function segment(title: string, ref: string, tag: string, tags: readonly string[]): string {
  return tags.includes(tag) ? title : ref;
}

/** The path of folder `ref` from the top of the hierarchy, as the walk of a report writes it. */
export function folderPath(db: Db, ref: string, tags: readonly string[]): string {
  const rows = db
    .prepare(
      `WITH RECURSIVE up(ref, title, security_tag, parent_ref, depth) AS (
         SELECT ref, title, security_tag, parent_ref, 0 FROM entities WHERE ref = ?
         UNION ALL
         SELECT e.ref, e.title, e.security_tag, e.parent_ref, up.depth + 1
           FROM up JOIN entities e ON e.ref = up.parent_ref WHERE up.depth < 1000
       ) SELECT ref, title, security_tag FROM up ORDER BY depth DESC`,
    )
    .all(ref) as { ref: string; title: string; security_tag: string }[];
  return rows.map((r) => segment(r.title, r.ref, r.security_tag, tags)).join("/");
}

/** The live folder `ref`, if it is one. */
export function liveFolder(
  db: Db,
  ref: string,
): { ref: string; title: string; security_tag: string } | undefined {
  return db
    .prepare("SELECT ref, title, security_tag FROM entities WHERE ref = ? AND type = 'SO' AND deleted = 0")
    .get(ref) as { ref: string; title: string; security_tag: string } | undefined;
}
