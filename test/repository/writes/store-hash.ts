import { createHash } from "node:crypto";
import type { Db } from "../../../repository/store/db.js";
import { untilWritten } from "../../helpers/store-writes.js";

/**
 * What a read may set, so it is no change: technical properties, which a file stored without them (the
 * seeds store files synchronously) gets when it is first read, and the generation's mark saying so.
 */
export const READ_SET_TABLES = ["generation_properties"];
const READ_SET_COLUMNS: Record<string, string> = { generations: "characterised" };

/** The columns of `table` to compare: all, but a column a read may set. */
export function comparedColumns(db: Db, table: string): string {
  if (table === "entity_fts") return "rowid, *";
  const skip = READ_SET_COLUMNS[table];
  if (!skip) return "*";
  const cols = db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[];
  return cols
    .filter((c) => c.name !== skip)
    .map((c) => `"${c.name}"`)
    .join(", ");
}

/**
 * A hash of every row of every table (and the FTS index's text), to prove that a refused request
 * changed nothing. Tokens and users are left out: logging in (to make the request) changes them; so is
 * what a read may set (READ_SET_TABLES, READ_SET_COLUMNS). Hashed again only once the store was written
 * (test/helpers/store-writes.ts).
 */
export const storeHash: (db: Db) => string = untilWritten(hashEveryRow);

function hashEveryRow(db: Db): string {
  const h = createHash("sha256");
  const tables = (
    db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT LIKE 'entity_fts_%' AND name NOT IN ('tokens', 'users', 'challenges') ORDER BY name`,
      )
      .all() as { name: string }[]
  ).filter(({ name }) => !READ_SET_TABLES.includes(name));
  for (const { name } of tables) {
    h.update(`\n#${name}\n`);
    const order = name === "entity_fts" ? "rowid" : "1";
    const cols = comparedColumns(db, name);
    for (const row of db.prepare(`SELECT ${cols} FROM "${name}" ORDER BY ${order}`).iterate()) {
      h.update(JSON.stringify(row));
    }
  }
  return h.digest("hex");
}
