import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { isUuid, jsonObjectOf } from "../http/params.js";
import { requestText } from "../http/request-text.js";
import { checkRole, MANAGERS } from "../http/roles.js";
import { recordConfigEvent } from "../store/config-events/write.js";
import {
  type DeliveryRow,
  listSubscriptions,
  recentDeliveries,
  type SubscriptionSummary,
  sameSubscription,
  subscriptionSummary,
} from "../store/webhooks/read.js";
import { isTriggerType, TRIGGER_TYPES } from "../store/webhooks/triggers.js";
import { deleteSubscription, insertSubscription } from "../store/webhooks/write.js";
import { challengeReceiver } from "../webhooks/http.js";
import { receiverProblem } from "../webhooks/receivers.js";
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from "../webhooks/settings.js";

/**
 * Webhooks (`/api/webhook`, JSON; managers and administrators), as pyPreservica's WebHooksAPI calls them
 * (wire-writes-admin.md §6): `GET /subscriptions` answers a top-level JSON array, `POST /subscriptions`
 * answers 200 once the receiver has answered the challenge, `DELETE /subscriptions/{id}` answers 204.
 * `GET /subscriptions/{id}` and `GET /subscriptions/{id}/deliveries` are this service's own. Deliveries
 * are queued with the changes (store/webhooks/write.ts) and sent by webhooks/worker.ts.
 * Documented in docs/repository-api/webhooks.md.
 */

type Ctx = Context<AppEnv>;

const EXAMPLE =
  '{"url": "http://127.0.0.1:8081/hook", "triggerType": "MOVED", "secret": "a-shared-secret", "includeIdentifiers": "true"}';
const MAX_BODY_CHARS = 16 * 1024;
const MAX_URL = 2048;
const MAX_SECRET = 256;
/** A bound on subscriptions, so that one caller cannot make every change fan out without limit. */
const MAX_SUBSCRIPTIONS = 100;
const MAX_DELIVERIES_LISTED = 100;

export function webhookRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.use(async (c, next) => {
    checkRole(c, MANAGERS, "use the webhook API");
    await next();
  });
  app.get("/subscriptions", (c) => c.json(listSubscriptions(c.get("svc").db).map(subscriptionJson)));
  app.post("/subscriptions", subscribe);
  app.get("/subscriptions/:id", (c) => c.json(subscriptionJson(existing(c, c.req.param("id")))));
  app.delete("/subscriptions/:id", unsubscribe);
  app.get("/subscriptions/:id/deliveries", (c) => {
    const sub = existing(c, c.req.param("id"));
    const rows = recentDeliveries(c.get("svc").db, sub.id, MAX_DELIVERIES_LISTED);
    return c.json({
      success: true,
      version: 1,
      value: { subscriptionId: sub.id, deliveries: rows.map(deliveryJson) },
    });
  });
  return app;
}

function settingsOf(c: Ctx): WebhookSettings {
  return c.get("svc").webhooks?.settings ?? DEFAULT_WEBHOOK_SETTINGS;
}

function subscriptionJson(s: SubscriptionSummary) {
  return {
    id: s.id,
    url: s.url,
    triggerType: s.trigger_type,
    includeIdentifiers: s.include_identifiers === 1,
    createdBy: s.created_by,
    created: s.created,
    deliveries: {
      pending: s.pending,
      delivered: s.delivered,
      failed: s.failed,
      lastDelivered: s.last_delivered,
    },
  };
}

function deliveryJson(d: DeliveryRow) {
  const waiting = d.status === "pending" && d.next_attempt_at > 0;
  return {
    id: d.id,
    eventRef: d.event_ref,
    status: d.status.toUpperCase(),
    attempts: d.attempts,
    queued: d.created,
    finished: d.finished,
    nextAttempt: waiting ? new Date(d.next_attempt_at).toISOString() : null,
    lastError: d.last_error,
    events: (JSON.parse(d.body) as { events: unknown[] }).events.length,
  };
}

function existing(c: Ctx, raw: string): SubscriptionSummary {
  if (!isUuid(raw)) {
    throw new HTTPException(400, {
      message: `"${raw.slice(0, 60)}" is not a subscription id; ids are GUIDs, as GET /api/webhook/subscriptions lists them`,
    });
  }
  const sub = subscriptionSummary(c.get("svc").db, raw.toLowerCase());
  if (!sub) {
    throw new HTTPException(404, {
      message: `No webhook subscription ${raw}; GET /api/webhook/subscriptions lists them`,
    });
  }
  return sub;
}

async function subscribe(c: Ctx): Promise<Response> {
  const body = await jsonObject(c);
  const url = textField(body, "url", MAX_URL);
  const problem = receiverProblem(url, settingsOf(c).allowedHosts);
  if (problem) throw new HTTPException(400, { message: problem });
  const triggerType = textField(body, "triggerType", 64).toUpperCase();
  if (!isTriggerType(triggerType)) {
    throw new HTTPException(400, {
      message: `"${triggerType.slice(0, 64)}" is not a trigger type; use one of ${TRIGGER_TYPES.join(", ")}`,
    });
  }
  const secret = textField(body, "secret", MAX_SECRET);
  if (!/^[\x20-\x7e]+$/.test(secret)) {
    throw new HTTPException(400, {
      message:
        "The secret must be printable ASCII characters (receivers such as pyPreservica's read it as Latin-1)",
    });
  }
  const includeIdentifiers = booleanField(body, "includeIdentifiers");
  const { db } = c.get("svc");
  checkRoom(db, url, triggerType);

  // The handshake: the receiver proves it holds the secret before it is ever sent a change.
  const refused = await challengeReceiver(url, secret, settingsOf(c).timeoutMs);
  if (refused) {
    throw new HTTPException(400, {
      message: `The receiver did not pass the challenge: ${refused}. It must answer POST ${url}?challengeCode=X with {"challengeCode": X, "challengeResponse": hex HMAC-SHA256 of X keyed with the secret}`,
    });
  }

  const id = randomUUID();
  const username = c.get("caller").user.username;
  const created = nowIso(c);
  db.transaction(() => {
    // Checked again: another subscription may have been made while the receiver answered.
    checkRoom(db, url, triggerType);
    insertSubscription(db, {
      id,
      url,
      trigger_type: triggerType,
      secret,
      include_identifiers: includeIdentifiers ? 1 : 0,
      created_by: username,
      created,
    });
    recordConfigEvent(db, {
      username,
      category: "SETTINGS",
      commandType: "CREATE",
      subject: `webhook ${id}`,
      summary: `Subscribed ${url} to ${triggerType} webhooks`,
      details: { url, triggerType, includeIdentifiers },
      at: created,
    });
  })();
  return c.json(subscriptionJson(subscriptionSummary(db, id) as SubscriptionSummary), 200);
}

function checkRoom(db: Parameters<typeof sameSubscription>[0], url: string, triggerType: string): void {
  const same = sameSubscription(db, url, triggerType);
  if (same) {
    throw new HTTPException(409, {
      message: `${url} is already subscribed to ${triggerType} (subscription ${same.id}); unsubscribe it first to change its secret`,
    });
  }
  if (listSubscriptions(db).length >= MAX_SUBSCRIPTIONS) {
    throw new HTTPException(409, {
      message: `There are already ${MAX_SUBSCRIPTIONS} webhook subscriptions, the most this service keeps; unsubscribe one first`,
    });
  }
}

async function unsubscribe(c: Ctx): Promise<Response> {
  const sub = existing(c, c.req.param("id") ?? "");
  const { db } = c.get("svc");
  const username = c.get("caller").user.username;
  db.transaction(() => {
    deleteSubscription(db, sub.id);
    recordConfigEvent(db, {
      username,
      category: "SETTINGS",
      commandType: "DELETE",
      subject: `webhook ${sub.id}`,
      summary: `Unsubscribed ${sub.url} from ${sub.trigger_type} webhooks`,
      details: { url: sub.url, triggerType: sub.trigger_type, pendingDropped: sub.pending },
      at: nowIso(c),
    });
  })();
  return c.body(null, 204);
}

async function jsonObject(c: Ctx): Promise<Record<string, unknown>> {
  const text = await requestText(c.req);
  if (text.length > MAX_BODY_CHARS) {
    throw new HTTPException(400, {
      message: `The request body is longer than ${MAX_BODY_CHARS} characters; send ${EXAMPLE}`,
    });
  }
  return jsonObjectOf(text, {
    tooDeep: `The JSON body nests too deep; send ${EXAMPLE}`,
    notJson: `The request body is not valid JSON; send ${EXAMPLE}`,
    notObject: `The request body must be a JSON object such as ${EXAMPLE}`,
  });
}

function textField(body: Record<string, unknown>, field: string, max: number): string {
  const v = body[field];
  if (typeof v !== "string" || v.trim() === "") {
    throw new HTTPException(400, { message: `"${field}" is required (text); send ${EXAMPLE}` });
  }
  if (v.length > max) {
    throw new HTTPException(400, { message: `"${field}" is longer than ${max} characters` });
  }
  return v.trim();
}

/** "true"/"false" as pyPreservica sends it, or a JSON boolean; absent = true. */
function booleanField(body: Record<string, unknown>, field: string): boolean {
  const v = body[field];
  if (v === undefined || v === null) return true;
  if (v === true || v === "true") return true;
  if (v === false || v === "false") return false;
  throw new HTTPException(400, { message: `"${field}" must be "true" or "false"; send ${EXAMPLE}` });
}
