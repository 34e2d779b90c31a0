import { randomUUID } from "node:crypto";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import type { ActionItemRow, ActionRow, ActionStatus } from "./read.js";
import { getAction } from "./read.js";

/**
 * Writes of long-running actions. An action's items are recorded in the same transaction as the
 * change they describe (callers run `recordItems` inside their own transaction), so counts and items
 * never disagree with the store.
 */

export interface NewAction {
  /** The progress token; a fresh UUID unless given (the demo seed gives fixed ones). */
  id?: string;
  kind: string;
  username: string;
  entityRef?: string | null;
  entityType?: string | null;
  /** What the action was asked to do; stored as JSON and read back by its handler. */
  params?: unknown;
  status?: ActionStatus;
  total?: number;
  message?: string | null;
}

export function createAction(db: Db, a: NewAction, now: string): ActionRow {
  const id = a.id ?? randomUUID();
  prepared(
    db,
    `INSERT INTO actions (id, seq, kind, status, username, entity_ref, entity_type, params, total, message, created, updated)
     VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM actions), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    a.kind,
    a.status ?? "ACTIVE",
    a.username,
    a.entityRef ?? null,
    a.entityType ?? null,
    JSON.stringify(a.params ?? {}),
    a.total ?? 0,
    a.message ?? null,
    now,
    now,
  );
  return getAction(db, id) as ActionRow;
}

/** Sets the status (and message); a final status also stamps `completed`. */
export function setActionStatus(
  db: Db,
  id: string,
  status: ActionStatus,
  now: string,
  message?: string | null,
): void {
  const final = !["ACTIVE", "PENDING", "SUSPENDED"].includes(status);
  prepared(
    db,
    `UPDATE actions SET status = ?, updated = ?, completed = CASE WHEN ? THEN ? ELSE completed END,
       message = coalesce(?, message) WHERE id = ?`,
  ).run(status, now, final ? 1 : 0, now, message ?? null, id);
}

export function setActionTotal(db: Db, id: string, total: number, now: string): void {
  prepared(db, "UPDATE actions SET total = ?, updated = ? WHERE id = ?").run(total, now, id);
}

/** Replaces the stored parameters (a handler that resolves its work once keeps the result here). */
export function setActionParams(db: Db, id: string, params: unknown, now: string): void {
  prepared(db, "UPDATE actions SET params = ?, updated = ? WHERE id = ?").run(
    JSON.stringify(params),
    now,
    id,
  );
}

/** Records items and bumps the done/failed counts. Call inside the transaction that made the change. */
export function recordItems(db: Db, id: string, items: readonly ActionItemRow[], now: string): void {
  if (items.length === 0) return;
  const ins = prepared(
    db,
    "INSERT INTO action_items (action_id, seq, entity_ref, outcome, message) VALUES (?, ?, ?, ?, ?)",
  );
  let done = 0;
  let failed = 0;
  for (const it of items) {
    ins.run(id, it.seq, it.entity_ref, it.outcome, it.message);
    if (it.outcome === "failed") failed++;
    else done++;
  }
  prepared(db, "UPDATE actions SET done = done + ?, failed = failed + ?, updated = ? WHERE id = ?").run(
    done,
    failed,
    now,
    id,
  );
}

/** The next free item number of an action. */
export function nextItemSeq(db: Db, id: string): number {
  const { n } = prepared(db, "SELECT coalesce(max(seq), 0) AS n FROM action_items WHERE action_id = ?").get(
    id,
  ) as { n: number };
  return n + 1;
}

/** Records one item, numbered after the last. Call inside the transaction that made the change. */
export function recordItem(db: Db, id: string, item: Omit<ActionItemRow, "seq">, now: string): void {
  recordItems(db, id, [{ ...item, seq: nextItemSeq(db, id) }], now);
}
