import type { Db } from "../db.js";
import { type Page, pageOf } from "../statements.js";

/** Reads of long-running actions (progress tokens) and of what each did, entity by entity. */

/** The service's action states, as clients' enums name them. */
export const ACTION_STATUSES = [
  "ACTIVE",
  "PENDING",
  "COMPLETED",
  "FAILED",
  "FINISHED_MIXED_OUTCOME",
  "CANCELLED",
  "ABORTED",
  "SUSPENDED",
] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** States an action never leaves. */
export const FINAL_STATUSES: ReadonlySet<ActionStatus> = new Set([
  "COMPLETED",
  "FAILED",
  "FINISHED_MIXED_OUTCOME",
  "CANCELLED",
  "ABORTED",
]);

export interface ActionRow {
  id: string;
  seq: number;
  kind: string;
  status: ActionStatus;
  username: string;
  entity_ref: string | null;
  entity_type: string | null;
  params: string;
  total: number;
  done: number;
  failed: number;
  message: string | null;
  created: string;
  updated: string;
  completed: string | null;
}

export interface ActionItemRow {
  seq: number;
  entity_ref: string | null;
  outcome: "done" | "failed" | "skipped";
  message: string | null;
}

export interface ActionFilter {
  kind?: string | null;
  status?: string | null;
  username?: string | null;
}

export function getAction(db: Db, id: string): ActionRow | undefined {
  return db.prepare("SELECT * FROM actions WHERE id = ?").get(id) as ActionRow | undefined;
}

const FILTER = `(@kind IS NULL OR kind = @kind) AND (@status IS NULL OR status = @status)
  AND (@username IS NULL OR username = @username)`;

/** Actions newest first, filtered; with the total that matches the filter. */
export function actionsPage(
  db: Db,
  filter: ActionFilter,
  start: number,
  max: number,
): { items: ActionRow[]; total: number } {
  const params = {
    kind: filter.kind ?? null,
    status: filter.status ?? null,
    username: filter.username ?? null,
  };
  return actionsWhere(db, FILTER, params, start, max);
}

/** Actions matching `where` (a condition on named parameters), newest first; with the total that matches. */
export function actionsWhere(
  db: Db,
  where: string,
  params: Record<string, unknown>,
  start: number,
  max: number,
): Page<ActionRow> {
  return pageOf(
    db,
    `SELECT * FROM actions WHERE ${where} ORDER BY seq DESC LIMIT @max OFFSET @start`,
    `SELECT count(*) AS n FROM actions WHERE ${where}`,
    params,
    start,
    max,
  );
}

/** What an action did, in order; failed items first when `failedFirst`. */
export function actionItemsPage(
  db: Db,
  id: string,
  start: number,
  max: number,
): { items: ActionItemRow[]; total: number } {
  const items = db
    .prepare(
      "SELECT seq, entity_ref, outcome, message FROM action_items WHERE action_id = ? ORDER BY seq LIMIT ? OFFSET ?",
    )
    .all(id, max, start) as ActionItemRow[];
  const { n } = db.prepare("SELECT count(*) AS n FROM action_items WHERE action_id = ?").get(id) as {
    n: number;
  };
  return { items, total: n };
}

/** Entities an action has already dealt with (done, failed or skipped): a resumed action skips them. */
export function handledRefs(db: Db, id: string): Set<string> {
  const rows = db
    .prepare("SELECT entity_ref FROM action_items WHERE action_id = ? AND entity_ref IS NOT NULL")
    .all(id) as { entity_ref: string }[];
  return new Set(rows.map((r) => r.entity_ref));
}

/** Actions left ACTIVE, oldest first: at start-up these were interrupted by a stop or a crash. */
export function unfinishedActions(db: Db): ActionRow[] {
  return db.prepare("SELECT * FROM actions WHERE status = 'ACTIVE' ORDER BY seq").all() as ActionRow[];
}
