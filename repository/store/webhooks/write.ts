import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import type { DeliveryRow, SubscriptionRow } from "./read.js";
import { type TriggerType, triggerOf } from "./triggers.js";

/** Writes of webhook subscriptions and of their durable delivery queue (migrations/011-webhooks.ts). */

export function insertSubscription(db: Db, s: SubscriptionRow): void {
  prepared(
    db,
    `INSERT INTO webhook_subscriptions (id, url, trigger_type, secret, include_identifiers, created_by, created)
     VALUES (@id, @url, @trigger_type, @secret, @include_identifiers, @created_by, @created)`,
  ).run(s);
}

/** Removes a subscription and every delivery queued for it; false when there was none. */
export function deleteSubscription(db: Db, id: string): boolean {
  prepared(db, "DELETE FROM webhook_deliveries WHERE subscription_id = ?").run(id);
  return prepared(db, "DELETE FROM webhook_subscriptions WHERE id = ?").run(id).changes > 0;
}

// ---------------------------------------------------------------------------------------------------
// Enqueueing, in the transaction of the change

/** Who to tell when deliveries are queued (the delivery worker of the service that owns the database). */
const wakers = new WeakMap<Db, () => void>();

/** Sets (or, with undefined, clears) the function called after a change has queued deliveries. */
export function onDeliveriesQueued(db: Db, wake: (() => void) | undefined): void {
  if (wake) wakers.set(db, wake);
  else wakers.delete(db);
}

/** Webhook events per delivery: a change to thousands of entities arrives as several POSTs. */
export const EVENTS_PER_DELIVERY = 100;

/**
 * Queues a delivery to every subscription whose trigger type the event fires, naming `entityRefs` (the
 * event's actions just recorded). Called by recordChange and appendEventActions, inside the transaction
 * of the change: the notification is committed with the change or not at all. Costs one indexed query
 * when nobody subscribed.
 */
export function enqueueWebhookEvents(
  db: Db,
  eventRef: string,
  entityRefs: readonly string[],
  commandType: string,
): void {
  if (entityRefs.length === 0) return;
  if (!prepared(db, "SELECT 1 FROM webhook_subscriptions LIMIT 1").get()) return;
  const event = prepared(db, "SELECT type, date, username FROM events WHERE ref = ?").get(eventRef) as
    | { type: string; date: string; username: string }
    | undefined;
  if (!event) return;
  const trigger = triggerOf(event.type, commandType);
  if (!trigger) return;
  const subs = prepared(
    db,
    "SELECT id, include_identifiers FROM webhook_subscriptions WHERE trigger_type = ? ORDER BY id",
  ).all(trigger) as { id: string; include_identifiers: number }[];
  if (subs.length === 0) return;
  const insert = prepared(
    db,
    `INSERT INTO webhook_deliveries (subscription_id, event_ref, body, created)
     VALUES (?, ?, ?, ?)`,
  );
  for (let i = 0; i < entityRefs.length; i += EVENTS_PER_DELIVERY) {
    const refs = entityRefs.slice(i, i + EVENTS_PER_DELIVERY);
    const described = refs.map((ref) => describeEntity(db, ref));
    for (const sub of subs) {
      const events = described.map((d) => ({
        event: trigger,
        entityType: d.entityType,
        entityRef: d.entityRef,
        ...(sub.include_identifiers ? { identifiers: d.identifiers } : {}),
        eventRef,
        eventType: event.type,
        commandType,
        date: event.date,
        user: event.username,
      }));
      const body = { subscriptionId: sub.id, triggerType: trigger, timestamp: event.date, events };
      insert.run(sub.id, eventRef, asciiJson(body), event.date);
    }
  }
  // Called from inside the change's transaction, which is synchronous: by the time this runs, the change
  // and its deliveries are committed (or rolled back, and the worker finds nothing).
  const wake = wakers.get(db);
  if (wake) setImmediate(wake);
}

function describeEntity(db: Db, ref: string) {
  const row = prepared(db, "SELECT type FROM entities WHERE ref = ?").get(ref) as
    | { type: string }
    | undefined;
  const identifiers = prepared(
    db,
    "SELECT type, value FROM identifiers WHERE entity_ref = ? ORDER BY id",
  ).all(ref) as { type: string; value: string }[];
  // An entity removed for good is gone from the store: its type and identifiers are no longer known.
  return { entityRef: ref, entityType: row?.type ?? null, identifiers };
}

/**
 * JSON with every non-ASCII character escaped (\uXXXX). pyPreservica's receivers verify the signature
 * over the body decoded as UTF-8 and re-encoded as Latin-1; an ASCII body is the same bytes either way.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

// ---------------------------------------------------------------------------------------------------
// The worker's side of the queue

export interface ClaimedDelivery extends DeliveryRow {
  url: string;
  secret: string;
  trigger_type: TriggerType;
}

/**
 * Claims up to `limit` due deliveries, each the oldest pending one of its subscription (a receiver gets
 * its events in order; one that is down holds back only its own queue). A claim counts an attempt and
 * holds a lease until `leaseUntil`, so another process on the same store leaves the row alone.
 */
export function claimDueDeliveries(
  db: Db,
  nowMs: number,
  leaseUntil: number,
  limit: number,
): ClaimedDelivery[] {
  return db
    .transaction(() => {
      const due = prepared(
        db,
        `SELECT d.*, s.url, s.secret, s.trigger_type FROM webhook_deliveries d
         JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND d.next_attempt_at <= @now
          AND (d.lease_until IS NULL OR d.lease_until <= @now)
          AND d.id = (SELECT min(h.id) FROM webhook_deliveries h
                       WHERE h.subscription_id = d.subscription_id AND h.status = 'pending')
        ORDER BY d.id LIMIT @limit`,
      ).all({ now: nowMs, limit }) as ClaimedDelivery[];
      const claim = prepared(
        db,
        `UPDATE webhook_deliveries SET lease_until = @lease, attempts = attempts + 1
        WHERE id = @id AND status = 'pending' AND (lease_until IS NULL OR lease_until <= @now)`,
      );
      return due
        .filter((d) => claim.run({ id: d.id, lease: leaseUntil, now: nowMs }).changes === 1)
        .map((d) => ({ ...d, attempts: d.attempts + 1, lease_until: leaseUntil }));
    })
    .immediate();
}

export function markDelivered(db: Db, id: number, at: string): void {
  prepared(
    db,
    "UPDATE webhook_deliveries SET status = 'delivered', finished = ?, lease_until = NULL, last_error = NULL WHERE id = ?",
  ).run(at, id);
}

/** A failed attempt with attempts left: due again at `nextAttemptAt` (epoch ms). */
export function markRetry(db: Db, id: number, nextAttemptAt: number, error: string): void {
  prepared(
    db,
    "UPDATE webhook_deliveries SET next_attempt_at = ?, lease_until = NULL, last_error = ? WHERE id = ? AND status = 'pending'",
  ).run(nextAttemptAt, error, id);
}

/** The last attempt failed: the delivery is given up (kept, with its error, for the deliveries listing). */
export function markFailed(db: Db, id: number, at: string, error: string): void {
  prepared(
    db,
    "UPDATE webhook_deliveries SET status = 'failed', finished = ?, lease_until = NULL, last_error = ? WHERE id = ? AND status = 'pending'",
  ).run(at, error, id);
}

/** An attempt cut short by the service stopping: not counted, due again at once (on the next start). */
export function releaseDelivery(db: Db, id: number): void {
  prepared(
    db,
    "UPDATE webhook_deliveries SET attempts = max(attempts - 1, 0), lease_until = NULL WHERE id = ? AND status = 'pending'",
  ).run(id);
}

/** Forgets delivered and abandoned deliveries finished before `beforeIso`. */
export function pruneFinishedDeliveries(db: Db, beforeIso: string): number {
  return prepared(db, "DELETE FROM webhook_deliveries WHERE status != 'pending' AND finished < ?").run(
    beforeIso,
  ).changes;
}
