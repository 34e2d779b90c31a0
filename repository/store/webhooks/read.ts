import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Reads of webhook subscriptions and their delivery queue (schema: migrations/011-webhooks.ts). */

export interface SubscriptionRow {
  id: string;
  url: string;
  trigger_type: string;
  secret: string;
  include_identifiers: number;
  created_by: string;
  created: string;
}

export interface SubscriptionSummary extends SubscriptionRow {
  pending: number;
  delivered: number;
  failed: number;
  last_delivered: string | null;
}

export interface DeliveryRow {
  id: number;
  subscription_id: string;
  event_ref: string;
  body: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  created: string;
  finished: string | null;
  last_error: string | null;
}

const SUMMARY = `SELECT s.*,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending') AS pending,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'delivered') AS delivered,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'failed') AS failed,
    (SELECT max(finished) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'delivered') AS last_delivered
  FROM webhook_subscriptions s`;

export function listSubscriptions(db: Db): SubscriptionSummary[] {
  return prepared(db, `${SUMMARY} ORDER BY s.created, s.id`).all() as SubscriptionSummary[];
}

export function subscriptionSummary(db: Db, id: string): SubscriptionSummary | undefined {
  return prepared(db, `${SUMMARY} WHERE s.id = ?`).get(id) as SubscriptionSummary | undefined;
}

export function subscriptionById(db: Db, id: string): SubscriptionRow | undefined {
  return prepared(db, "SELECT * FROM webhook_subscriptions WHERE id = ?").get(id) as
    | SubscriptionRow
    | undefined;
}

/** The subscription of this receiver URL to this trigger type, if there is one. */
export function sameSubscription(db: Db, url: string, triggerType: string): SubscriptionRow | undefined {
  return prepared(db, "SELECT * FROM webhook_subscriptions WHERE url = ? AND trigger_type = ?").get(
    url,
    triggerType,
  ) as SubscriptionRow | undefined;
}

/** The newest deliveries of a subscription first, at most `limit`. */
export function recentDeliveries(db: Db, subscriptionId: string, limit: number): DeliveryRow[] {
  return prepared(
    db,
    "SELECT * FROM webhook_deliveries WHERE subscription_id = ? ORDER BY id DESC LIMIT ?",
  ).all(subscriptionId, limit) as DeliveryRow[];
}

/** When the next pending delivery falls due (epoch ms), or undefined when the queue is empty. */
export function nextDueAt(db: Db): number | undefined {
  const row = prepared(
    db,
    "SELECT min(max(next_attempt_at, coalesce(lease_until, 0))) AS at FROM webhook_deliveries WHERE status = 'pending'",
  ).get() as { at: number | null };
  return row.at ?? undefined;
}
