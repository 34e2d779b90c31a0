import { createHash } from "node:crypto";
import type { Db } from "../../../repository/store/db.js";

/**
 * A hash of every row of every table (and the FTS index's text), to prove that a refused request
 * changed nothing. Tokens and users are left out: logging in (to make the request) changes them.
 */
export function storeHash(db: Db): string {
  const h = createHash("sha256");
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT LIKE 'entity_fts_%' AND name NOT IN ('tokens', 'users', 'challenges') ORDER BY name`,
    )
    .all() as { name: string }[];
  for (const { name } of tables) {
    h.update(`\n#${name}\n`);
    const order = name === "entity_fts" ? "rowid" : "1";
    const cols = name === "entity_fts" ? "rowid, *" : "*";
    for (const row of db.prepare(`SELECT ${cols} FROM "${name}" ORDER BY ${order}`).iterate()) {
      h.update(JSON.stringify(row));
    }
  }
  return h.digest("hex");
}
