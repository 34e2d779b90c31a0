import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eventsOf, MAX_DELIVERY_BYTES, receiveWebhook, type WebhookEvent } from "../../src/live/receiver.js";
import { createLogger } from "../../src/log.js";

/**
 * The webhook receiver on its own, fed the requests the repository service sends (wire-formats.md §4.5):
 * what it answers, and which deliveries it lets through.
 */

const SECRET = "a-receiver-secret-0123456789abcdef";
const URL_ = "http://127.0.0.1:3000/webhook";
const log = createLogger({ level: "silent" });

function sign(body: string, secret = SECRET): string {
  return createHmac("sha256", secret).update(`preservica-webhook-auth${body}`).digest("hex");
}

async function receive(request: Request, subscribing = false) {
  const got: WebhookEvent[][] = [];
  const res = await receiveWebhook(request, {
    secret: SECRET,
    expectingChallenge: () => subscribing,
    onEvents: (e) => got.push(e),
    log,
  });
  await new Promise((r) => setTimeout(r, 0)); // events are handed on after the answer
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, got };
}

const delivery = (body: string, headers: Record<string, string> = {}) =>
  new Request(URL_, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

describe("the challenge", () => {
  it("is answered with the HMAC of the code while this server subscribes", async () => {
    const r = await receive(new Request(`${URL_}?challengeCode=abc123`, { method: "POST" }), true);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      challengeCode: "abc123",
      challengeResponse: createHmac("sha256", SECRET).update("abc123").digest("hex"),
    });
  });

  it("is refused at any other time, so the receiver is no HMAC oracle", async () => {
    const r = await receive(new Request(`${URL_}?challengeCode=abc123`, { method: "POST" }), false);
    expect(r.status).toBe(403);
    expect(r.body).not.toHaveProperty("challengeResponse");
  });

  it("is refused for a code that would sign a delivery, even while subscribing", async () => {
    const forged = encodeURIComponent('preservica-webhook-auth{"events":[]}');
    const r = await receive(new Request(`${URL_}?challengeCode=${forged}`, { method: "POST" }), true);
    expect(r.status).toBe(400);
    expect(r.body).not.toHaveProperty("challengeResponse");
  });
});

describe("deliveries", () => {
  const body = JSON.stringify({
    subscriptionId: "s1",
    triggerType: "MOVED",
    events: [
      { event: "MOVED", entityType: "IO", entityRef: "0b9a3c1e-7c57-4e0c-9a52-1f7d3c1a2b3c" },
      { entityType: "SO", entityRef: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a" },
    ],
  });

  it("a correctly signed one is answered 200 and its events handed on", async () => {
    const r = await receive(delivery(body, { "Preservica-Signature": sign(body) }));
    expect(r.status).toBe(200);
    expect(r.got).toEqual([
      [
        { trigger: "MOVED", entityRef: "0b9a3c1e-7c57-4e0c-9a52-1f7d3c1a2b3c", entityType: "IO" },
        { trigger: "MOVED", entityRef: "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", entityType: "SO" },
      ],
    ]);
  });

  it("accepts the signature in upper case (hex is hex)", async () => {
    const r = await receive(delivery(body, { "Preservica-Signature": sign(body).toUpperCase() }));
    expect(r.status).toBe(200);
  });

  it("refuses a missing signature, another secret's, and a body changed after signing (401, nothing handed on)", async () => {
    for (const [b, sig] of [
      [body, undefined],
      [body, sign(body, "another-secret")],
      [body.replace("MOVED", "DELETED"), sign(body)],
    ] as const) {
      const r = await receive(delivery(b, sig ? { "Preservica-Signature": sig } : {}));
      expect(r.status).toBe(401);
      expect(r.got).toEqual([]);
    }
  });

  it("refuses a body larger than a delivery can be (413) before checking anything", async () => {
    const big = "x".repeat(MAX_DELIVERY_BYTES + 1);
    const r = await receive(delivery(big, { "Preservica-Signature": sign(big) }));
    expect(r.status).toBe(413);
  });

  it("a signed body that is not JSON is refused (400)", async () => {
    const r = await receive(delivery("events!", { "Preservica-Signature": sign("events!") }));
    expect(r.status).toBe(400);
    expect(r.got).toEqual([]);
  });
});

describe("eventsOf", () => {
  it("keeps only events that name an entity", () => {
    expect(
      eventsOf({
        triggerType: "DELETED",
        events: [{ entityRef: "r1" }, { entityRef: 7 }, null, {}, { entityRef: "" }],
      }),
    ).toEqual([{ trigger: "DELETED", entityRef: "r1" }]);
    expect(eventsOf({ events: "no" })).toEqual([]);
    expect(eventsOf(null)).toEqual([]);
  });
});
