import type { ActionItemRow } from "../actions/read.js";
import type { Db } from "../db.js";
import { INSTANCES } from "../workflows/read.js";

/**
 * Reads behind the Process Monitor API: an action's items as messages (with the entity each names),
 * its progress over time (items are dated by the batch that recorded them), and day-by-day counts of
 * the actions started and finished.
 */

export interface MessageRow {
  seq: number;
  entity_ref: string | null;
  outcome: "done" | "failed" | "skipped";
  message: string | null;
  recorded: string | null;
  title: string | null;
  security_tag: string | null;
  entity_type: string | null;
}

/** Items of an action in order, optionally of one outcome, with the total that matches. */
export function messagesPage(
  db: Db,
  actionId: string,
  outcome: string | null,
  start: number,
  max: number,
): { items: MessageRow[]; total: number } {
  const params = { id: actionId, outcome };
  const items = db
    .prepare(
      `SELECT i.seq, i.entity_ref, i.outcome, i.message, i.recorded, e.title, e.security_tag, e.type AS entity_type
       FROM action_items i LEFT JOIN entities e ON e.ref = i.entity_ref
       WHERE i.action_id = @id AND (@outcome IS NULL OR i.outcome = @outcome)
       ORDER BY i.seq LIMIT @max OFFSET @start`,
    )
    .all({ ...params, start, max }) as MessageRow[];
  const { n } = db
    .prepare(
      "SELECT count(*) AS n FROM action_items WHERE action_id = @id AND (@outcome IS NULL OR outcome = @outcome)",
    )
    .get(params) as { n: number };
  return { items, total: n };
}

/** The first `limit` failed items of an action (the errors an instance or progress document lists). */
export function failedItems(db: Db, actionId: string, limit = 100): ActionItemRow[] {
  return db
    .prepare(
      "SELECT seq, entity_ref, outcome, message FROM action_items WHERE action_id = ? AND outcome = 'failed' ORDER BY seq LIMIT ?",
    )
    .all(actionId, limit) as ActionItemRow[];
}

/** `ref` and its ancestors from the top of the hierarchy down (deleted entities included). */
export function entityAncestry(db: Db, ref: string): { ref: string; title: string; security_tag: string }[] {
  return db
    .prepare(
      `WITH RECURSIVE up(ref, title, security_tag, parent_ref, depth) AS (
         SELECT ref, title, security_tag, parent_ref, 0 FROM entities WHERE ref = ?
         UNION ALL
         SELECT e.ref, e.title, e.security_tag, e.parent_ref, up.depth + 1 FROM up JOIN entities e ON e.ref = up.parent_ref
         WHERE up.depth < 64
       ) SELECT ref, title, security_tag FROM up ORDER BY depth DESC`,
    )
    .all(ref) as { ref: string; title: string; security_tag: string }[];
}

export interface ProgressPoint {
  recorded: string;
  done: number;
  failed: number;
  skipped: number;
}

/** Items recorded per batch (same date), in order: the steps of an action's progress. */
export function progressSteps(db: Db, actionId: string): ProgressPoint[] {
  return db
    .prepare(
      `SELECT recorded, sum(outcome = 'done') AS done, sum(outcome = 'failed') AS failed,
         sum(outcome = 'skipped') AS skipped
       FROM action_items WHERE action_id = ? AND recorded IS NOT NULL GROUP BY recorded ORDER BY recorded`,
    )
    .all(actionId) as ProgressPoint[];
}

export interface DayCount {
  day: string;
  n: number;
}

export interface DayOutcome {
  day: string;
  status: string;
  n: number;
  files: number;
  bytes: number;
}

export interface HistoryFilter {
  /** First day (YYYY-MM-DD) and the day after the last. */
  from: string;
  until: string;
  category: string | null;
  owner: string | null;
}

const HISTORY_WHERE = "(@category IS NULL OR category = @category) AND (@owner IS NULL OR username = @owner)";

/** How many actions started each day of the range. */
export function startedPerDay(db: Db, f: HistoryFilter): DayCount[] {
  return db
    .prepare(
      `${INSTANCES} SELECT substr(created, 1, 10) AS day, count(*) AS n FROM inst
       WHERE created >= @from AND created < @until AND ${HISTORY_WHERE} GROUP BY day`,
    )
    .all(f) as DayCount[];
}

/** How many actions ended each day of the range, by final status, with the files and bytes they handled. */
export function finishedPerDay(db: Db, f: HistoryFilter): DayOutcome[] {
  return db
    .prepare(
      `${INSTANCES} SELECT substr(completed, 1, 10) AS day, status, count(*) AS n,
         sum(done + failed) AS files, sum(bytes) AS bytes FROM inst
       WHERE completed IS NOT NULL AND completed >= @from AND completed < @until AND ${HISTORY_WHERE}
       GROUP BY day, status`,
    )
    .all(f) as DayOutcome[];
}
