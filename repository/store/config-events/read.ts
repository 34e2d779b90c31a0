import type { Db } from "../db.js";
import { pageOf, prepared } from "../statements.js";

/** Reads of the config events: newest first, filtered, paged; and the values that occur for filtering. */

export interface ConfigEventRow {
  ref: string;
  at: string;
  username: string;
  category: string;
  command_type: string;
  subject: string;
  summary: string;
  details: string | null;
}

export interface ConfigEventFilter {
  category?: string;
  commandType?: string;
  username?: string;
  /** ISO 8601, inclusive. */
  from?: string;
  to?: string;
}

export function configEventsPage(
  db: Db,
  filter: ConfigEventFilter,
  start: number,
  max: number,
): { events: ConfigEventRow[]; total: number } {
  const params = {
    category: filter.category ?? null,
    commandType: filter.commandType ?? null,
    username: filter.username ?? null,
    from: filter.from ?? null,
    to: filter.to ?? null,
  };
  const where = `(@category IS NULL OR category = @category) AND (@commandType IS NULL OR command_type = @commandType)
    AND (@username IS NULL OR username = @username) AND (@from IS NULL OR at >= @from) AND (@to IS NULL OR at <= @to)`;
  const { items: events, total } = pageOf<ConfigEventRow>(
    db,
    `SELECT ref, at, username, category, command_type, subject, summary, details FROM config_events
     WHERE ${where} ORDER BY at DESC, id DESC LIMIT @max OFFSET @start`,
    `SELECT count(*) AS n FROM config_events WHERE ${where}`,
    params,
    start,
    max,
  );
  return { events, total };
}

/** The categories and command types that occur, for filtering. */
export function configEventFilterInfo(db: Db): { categories: string[]; commandTypes: string[] } {
  const col = (c: string) =>
    (prepared(db, `SELECT DISTINCT ${c} AS v FROM config_events ORDER BY v`).all() as { v: string }[]).map(
      (r) => r.v,
    );
  return { categories: col("category"), commandTypes: col("command_type") };
}
