import type { Db } from "../store/db.js";
import { resolveWebhookSettings, type WebhookDeliveryOptions, type WebhookSettings } from "./settings.js";
import { WebhookDeliveryWorker } from "./worker.js";

/** What the running service holds for webhooks: its settings and its delivery worker. */
export interface Webhooks {
  settings: WebhookSettings;
  worker: WebhookDeliveryWorker;
}

/** Resolves the settings and starts delivering what the queue holds (server.ts, after listening). */
export function startWebhooks(
  db: Db,
  hosts: readonly string[] | undefined,
  delivery: WebhookDeliveryOptions | undefined,
): Webhooks {
  const settings = resolveWebhookSettings(hosts, delivery);
  const worker = new WebhookDeliveryWorker(db, settings);
  worker.start();
  return { settings, worker };
}
