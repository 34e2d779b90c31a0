import type { Db } from "../db.js";
import { enqueueWebhookEvents } from "../webhooks/write.js";

/**
 * Writes of the folder tree: a new parent, a new security tag, and further actions on an event that
 * an earlier transaction recorded (a long action records one event for its whole subtree, batch by
 * batch). Callers run these inside the transaction that also records the action's items.
 */

/**
 * Gives `ref` a new parent (null = the top level). Its descendants reference it, not the path above
 * it, so the whole subtree moves with this one row.
 */
export function setParent(db: Db, ref: string, parentRef: string | null): void {
  db.prepare("UPDATE entities SET parent_ref = ? WHERE ref = ? AND deleted = 0").run(parentRef, ref);
}

/** Sets the security tag of live entities; returns how many rows changed. */
export function setSecurityTag(db: Db, refs: readonly string[], tag: string): number {
  const upd = db.prepare("UPDATE entities SET security_tag = ? WHERE ref = ? AND deleted = 0");
  let n = 0;
  for (const ref of refs) n += upd.run(tag, ref).changes;
  return n;
}

/** Adds one action per entity to the event `eventRef` (recorded earlier by `recordChange`). */
export function appendEventActions(
  db: Db,
  eventRef: string,
  refs: readonly string[],
  commandType: string,
  date: string,
  detail: string | null,
): void {
  const event = db.prepare("SELECT id FROM events WHERE ref = ?").get(eventRef) as { id: number } | undefined;
  if (!event) throw new Error(`event ${eventRef} not found`);
  const ins = db.prepare(
    "INSERT INTO event_actions (event_id, entity_ref, command_type, date, serialised_command) VALUES (?, ?, ?, ?, ?)",
  );
  for (const ref of refs) ins.run(event.id, ref, commandType, date, detail);
  enqueueWebhookEvents(db, eventRef, refs, commandType); // subscribers hear of it (same transaction)
}
