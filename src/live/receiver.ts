import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Logger } from "pino";

/**
 * The webhook receiver: where the repository service tells this server what changed (POST /webhook).
 *
 * Two kinds of request arrive (wire-formats.md §4.5, wire-writes-admin.md §6):
 * - the subscription challenge, `POST /webhook?challengeCode=X` with no body, answered
 *   `{challengeCode: X, challengeResponse: hex HMAC-SHA256(secret, X)}`;
 * - deliveries, a JSON body `{events: [{entityRef, entityType, …}], …}` signed in the `Preservica-Signature`
 *   header as hex HMAC-SHA256(secret, "preservica-webhook-auth" + body).
 *
 * The receiver carries no bearer token (the service cannot send one): the signature is the authentication.
 * That makes the challenge an HMAC oracle — anyone could ask for the HMAC of a code of their choosing, and a
 * code of "preservica-webhook-auth" + a forged body would come back as that body's valid signature. So a
 * challenge is answered only while this server is itself subscribing, and never for a code with the
 * delivery prefix.
 */

export interface WebhookEvent {
  /** The trigger type that fired (MOVED, CHANGED_SECURITY_DESCRIPTOR, …), when the delivery says. */
  trigger: string;
  entityRef: string;
  /** IO, SO or CO when the delivery says. */
  entityType?: string;
}

export interface ReceiverOptions {
  secret: string;
  /** True only while this server's own subscription requests are in flight. */
  expectingChallenge(): boolean;
  /** Handed the events of a verified delivery, after its answer is sent (never awaited by the service). */
  onEvents(events: WebhookEvent[]): void;
  log: Pick<Logger, "warn" | "debug">;
}

/** A delivery carries at most 100 events of a few hundred bytes each; anything far larger is not one. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
const MAX_CHALLENGE_CODE = 256;
const SIGNATURE_PREFIX = "preservica-webhook-auth";
const PREFIX_BYTES = Buffer.from(SIGNATURE_PREFIX, "utf8");
/** The most events taken from one delivery (the service sends 100 at most). */
const MAX_EVENTS = 1000;

function hmacHex(secret: string, ...parts: Uint8Array[]): string {
  const mac = createHmac("sha256", Buffer.from(secret, "utf8"));
  for (const p of parts) mac.update(p);
  return mac.digest("hex");
}

/** Constant time whatever the lengths: digests of both sides are compared, never the texts themselves. */
function sameText(a: string, b: string): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function receiveWebhook(request: Request, opts: ReceiverOptions): Promise<Response> {
  const code = new URL(request.url).searchParams.get("challengeCode");
  if (code !== null) return answerChallenge(code, opts);

  const body = await readBounded(request, MAX_DELIVERY_BYTES);
  if (body === undefined) {
    return json(413, { error: `a webhook delivery is at most ${MAX_DELIVERY_BYTES} bytes` });
  }
  const signature = request.headers.get("preservica-signature")?.trim().toLowerCase() ?? "";
  // Over the bytes as they came (the service sends ASCII JSON, so bytes and text agree there).
  if (!signature || !sameText(signature, hmacHex(opts.secret, PREFIX_BYTES, body))) {
    // Logged without the body or the signature: neither is needed to see that something is knocking.
    opts.log.warn("webhook delivery refused: its Preservica-Signature does not match this server's secret");
    return json(401, {
      error: "the Preservica-Signature header does not sign this body with the subscription's secret",
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return json(400, { error: 'a delivery is JSON: {"events": [{"entityRef": "…"}]}' });
  }
  const events = eventsOf(parsed);
  opts.log.debug({ events: events.length }, "webhook delivery received");
  // Answered first: the service waits for this answer, and what the events cause is this server's business.
  queueMicrotask(() => opts.onEvents(events));
  return json(200, { received: events.length });
}

function answerChallenge(code: string, opts: ReceiverOptions): Response {
  if (!opts.expectingChallenge()) {
    opts.log.warn("webhook challenge refused: this server is not subscribing right now");
    return json(403, { error: "this receiver answers a challenge only while it is subscribing" });
  }
  if (code.length === 0 || code.length > MAX_CHALLENGE_CODE || code.startsWith(SIGNATURE_PREFIX)) {
    return json(400, { error: "not a challenge code this receiver answers" });
  }
  return json(200, {
    challengeCode: code,
    challengeResponse: hmacHex(opts.secret, Buffer.from(code, "utf8")),
  });
}

/** The body's bytes, or undefined when it is longer than `max` bytes (reading stops there). */
async function readBounded(request: Request, max: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > max) return undefined;
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/** The events of a delivery that name an entity; anything else in it is ignored. */
export function eventsOf(body: unknown): WebhookEvent[] {
  const b = (body ?? {}) as { events?: unknown; triggerType?: unknown };
  if (!Array.isArray(b.events)) return [];
  const deliveryTrigger = typeof b.triggerType === "string" ? b.triggerType : "";
  return b.events.slice(0, MAX_EVENTS).flatMap((e: Record<string, unknown>) => {
    const ref = e?.entityRef;
    if (typeof ref !== "string" || ref.length === 0 || ref.length > 100) return [];
    const trigger = typeof e.event === "string" ? e.event : deliveryTrigger;
    const type = typeof e.entityType === "string" ? e.entityType : undefined;
    return [{ trigger, entityRef: ref, ...(type ? { entityType: type } : {}) }];
  });
}
