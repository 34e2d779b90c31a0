import type { Migration } from "./index.js";

/**
 * Schema 11: webhooks (`/api/webhook/subscriptions`, routes/webhooks.ts).
 * - `webhook_subscriptions`: receivers that answered the challenge when they subscribed, one trigger type
 *   each. The secret is kept as given: it signs every delivery (HMAC), so it cannot be hashed.
 * - `webhook_deliveries`: the durable queue. A row is written in the transaction of the change it reports
 *   (store/webhooks/enqueue.ts), so a change and its notification are committed together; the delivery
 *   worker (webhooks/worker.ts) sends it, retries with back-off, and resumes after a restart. A row being
 *   sent holds a short lease (`lease_until`) so that two processes on one data directory never send it at
 *   once. Delivered and abandoned rows are kept a while for `GET …/deliveries`, then pruned.
 */
export const webhooks: Migration = {
  version: 11,
  name: "webhooks",
  up(db) {
    db.exec(`
      CREATE TABLE webhook_subscriptions (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        trigger_type TEXT NOT NULL,
        secret TEXT NOT NULL,
        include_identifiers INTEGER NOT NULL DEFAULT 1,
        created_by TEXT NOT NULL,
        created TEXT NOT NULL
      );
      CREATE INDEX webhook_subscriptions_trigger ON webhook_subscriptions (trigger_type);
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY,
        subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
        event_ref TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        lease_until INTEGER,
        created TEXT NOT NULL,
        finished TEXT,
        last_error TEXT
      );
      CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (subscription_id, status, id);
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
    `);
  },
};
