import type { HttpClient } from "./http.js";

/**
 * The Webhook API (`/api/webhook/subscriptions`, JSON; managers and administrators): who hears of changes.
 * Wire facts (wire-writes-admin.md §6, wire-formats.md §4.5): GET answers a top-level JSON array of
 * subscriptions with `id`; POST `{url, triggerType, secret, includeIdentifiers: "true"}` answers 200 only after
 * the service has called `POST <url>?challengeCode=X` and the receiver proved it holds the secret;
 * DELETE `/{id}` answers 204.
 */

export interface WebhookSubscription {
  id: string;
  url: string;
  triggerType: string;
}

const PATH = "/api/webhook/subscriptions";

export class WebhooksApi {
  constructor(private readonly http: HttpClient) {}

  async list(signal?: AbortSignal): Promise<WebhookSubscription[]> {
    const res = await this.http.request<unknown>({
      path: PATH,
      accept: "application/json",
      operation: "webhooks.list",
      signal,
    });
    const rows = Array.isArray(res.data) ? res.data : [];
    return rows.flatMap((row: Record<string, unknown>) =>
      typeof row?.id === "string"
        ? [{ id: row.id, url: String(row.url ?? ""), triggerType: String(row.triggerType ?? "") }]
        : [],
    );
  }

  /** Subscribes `url` to one trigger type; the service challenges the receiver before it answers. */
  async subscribe(url: string, triggerType: string, secret: string, signal?: AbortSignal): Promise<void> {
    await this.http.request<unknown>({
      method: "POST",
      path: PATH,
      body: JSON.stringify({ url, triggerType, secret, includeIdentifiers: "true" }),
      headers: { "content-type": "application/json" },
      accept: "application/json",
      operation: "webhooks.subscribe",
      // Not repeated blindly: a lost answer after the service stored the subscription would make a second
      // one; the caller lists and reconciles instead.
      idempotent: false,
      signal,
    });
  }

  async unsubscribe(id: string, signal?: AbortSignal): Promise<void> {
    await this.http.request<unknown>({
      method: "DELETE",
      path: `${PATH}/${encodeURIComponent(id)}`,
      accept: "application/json",
      operation: "webhooks.unsubscribe",
      signal,
    });
  }
}
