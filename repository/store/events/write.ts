import type { Db } from "../db.js";
import { addEvent } from "../entities/write.js";
import { prepared } from "../statements.js";
import { enqueueWebhookEvents } from "../webhooks/write.js";

/**
 * Every change to an entity leaves a trace readers rely on: an event with one action per entity
 * (shown by /events, /events/{ref}/event-actions and the entity's own event-actions), and a new
 * `modified` date (shown by /entities/updated-since and harvesters). Call inside the transaction that
 * makes the change, so the trace and the change are one.
 */

/** Event types this service records for changes made through the API. */
export const EventType = {
  CREATED: "Create",
  MODIFIED: "Modified",
  MOVED: "Moved",
  SECURITY_CHANGED: "SecurityTagChanged",
  DELETED: "Delete",
  RECOVERED: "Recover",
  FINAL_DELETED: "FinalDelete",
  CONTENT_REPLACED: "ReplaceContent",
  RETENTION: "Retention",
} as const;

export interface Change {
  username: string;
  /** ISO 8601 instant of the change. */
  date: string;
  type: string;
  /** The command each action records, e.g. "UpdateMetadata" or "AddIdentifier". */
  commandType: string;
  /** Entities the change acted on. */
  entityRefs: readonly string[];
  /** A short description of what was done (kept as the actions' SerialisedCommand). */
  detail?: string | null;
  workflowName?: string | null;
  /** The workflow instance (for ingests: the action's id) the change was made by. */
  workflowInstanceId?: string | null;
  /** Whether to move the entities' `modified` date (default true). */
  touch?: boolean;
}

/** Records the event of a change and marks the entities modified. Returns the event ref. */
export function recordChange(db: Db, change: Change): string {
  const ref = addEvent(db, {
    type: change.type,
    date: change.date,
    username: change.username,
    workflowName: change.workflowName ?? null,
    workflowInstanceId: change.workflowInstanceId ?? null,
    actions: change.entityRefs.map((entityRef) => ({
      entityRef,
      commandType: change.commandType,
      serialisedCommand: change.detail ?? null,
    })),
  });
  if (change.touch !== false) touchEntities(db, change.entityRefs, change.date);
  enqueueWebhookEvents(db, ref, change.entityRefs, change.commandType); // subscribers hear of it (same transaction)
  return ref;
}

/** Sets `modified` of the entities to `date` (never backwards). */
export function touchEntities(db: Db, refs: readonly string[], date: string): void {
  const upd = prepared(db, "UPDATE entities SET modified = ? WHERE ref = ? AND modified < ?");
  for (const ref of refs) upd.run(date, ref, date);
}
