import type { Db } from "../store/db.js";
import { prepared } from "../store/statements.js";

/**
 * Results that depend only on the database's content (search totals, facet counts), remembered until
 * the content changes. `total_changes()` moves with every row this connection writes and
 * `data_version` with every commit by another connection, so together they say exactly when a
 * remembered answer may have gone stale. Paging through a large result set then counts it once.
 */
const MAX_ENTRIES = 512;
const memos = new WeakMap<Db, { stamp: string; entries: Map<string, unknown> }>();

function stampOf(db: Db): string {
  const row = prepared(
    db,
    "SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version",
  ).get() as { changes: number; version: number };
  return `${row.changes}:${row.version}`;
}

export function memo<T>(db: Db, key: string, compute: () => T): T {
  const stamp = stampOf(db);
  let m = memos.get(db);
  if (!m || m.stamp !== stamp || m.entries.size >= MAX_ENTRIES) {
    m = { stamp, entries: new Map() };
    memos.set(db, m);
  }
  if (m.entries.has(key)) return m.entries.get(key) as T;
  const value = compute();
  m.entries.set(key, value);
  return value;
}
