import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";
import { accepted, E, type Fetcher, putText, refused, settled } from "../writes/structure-helpers.js";
import { type Receiver, startReceiver } from "./receiver.js";

/**
 * Webhooks over HTTP against a real service: subscribe (with the challenge), list, unsubscribe, roles;
 * deliveries of a move and a security tag change to a receiver that checks the signature; retries with
 * back-off; redirects not followed; receivers limited to loopback and the allowed hosts.
 */

const SECRET = "test-shared-secret";
const W = "/api/webhook/subscriptions";
/** Short timings so that retries happen in milliseconds. */
const FAST = { retryBaseMs: 50, retryMaxMs: 400, timeoutMs: 2_000, pollMs: 20, maxAttempts: 4 };

let repo: RunningRepository;
let manager: Fetcher;
let curator: Fetcher;
let reader: Fetcher;
let receivers: Receiver[] = [];
let folders: { a: string; b: string; item: string };

beforeAll(async () => {
  repo = await startTestRepository({ webhookDelivery: FAST });
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
  const { db } = repo.svc;
  folders = db.transaction(() => {
    const created = "2020-01-01T00:00:00.000Z";
    const a = insertEntity(db, { type: "SO", title: "A", securityTag: "open", created }).ref;
    const b = insertEntity(db, { type: "SO", title: "B", securityTag: "open", created }).ref;
    const item = insertEntity(db, {
      type: "IO",
      title: "Item",
      securityTag: "open",
      parentRef: a,
      created,
    }).ref;
    db.prepare(
      "INSERT INTO identifiers (api_id, entity_ref, type, value) VALUES (?, ?, 'code', 'ITEM-1')",
    ).run("11111111-1111-4111-8111-111111111111", item);
    return { a, b, item };
  })();
});

afterEach(async () => {
  // Each test starts with no subscriptions and no receivers.
  for (const s of (await (await manager(W)).json()) as { id: string }[]) {
    await manager(`${W}/${s.id}`, { method: "DELETE" });
  }
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

afterAll(async () => {
  await repo?.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver(SECRET);
  receivers.push(r);
  return r;
}

function subscribe(get: Fetcher, url: string, triggerType: string, secret = SECRET): Promise<Response> {
  return get(W, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ url, triggerType, secret, includeIdentifiers: "true" }),
  });
}

async function subscribed(url: string, triggerType: string): Promise<{ id: string }> {
  const res = await subscribe(manager, url, triggerType);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return JSON.parse(body) as { id: string };
}

async function move(ref: string, to: string): Promise<void> {
  const id = await accepted(await putText(manager, `${E}/information-objects/${ref}/parent-ref`, to));
  expect((await settled(manager, id)).status).toBe("COMPLETED");
}

async function retag(ref: string, tag: string): Promise<void> {
  const id = await accepted(
    await putText(manager, `${E}/information-objects/${ref}/security-descriptor`, tag),
  );
  expect((await settled(manager, id)).status).toBe("COMPLETED");
}

interface DeliveryInfo {
  status: string;
  attempts: number;
  lastError: string | null;
}

async function deliveriesOf(id: string): Promise<DeliveryInfo[]> {
  const res = await manager(`${W}/${id}/deliveries`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: { deliveries: DeliveryInfo[] } }).value.deliveries;
}

describe("subscriptions", () => {
  it("subscribes after the challenge, lists as a top-level array, unsubscribes with 204", async () => {
    const r = await receiver();
    const sub = await subscribed(r.url, "MOVED");
    expect(r.log).toEqual(["challenge"]);
    expect(sub).toMatchObject({
      url: r.url,
      triggerType: "MOVED",
      includeIdentifiers: true,
      createdBy: "manager",
    });
    expect(JSON.stringify(sub)).not.toContain(SECRET);

    const list = (await (await manager(W)).json()) as { id: string }[];
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((s) => s.id)).toEqual([sub.id]);
    expect(await (await manager(`${W}/${sub.id}`)).json()).toMatchObject({ id: sub.id, url: r.url });

    // The change is a config event, without the secret.
    const event = repo.svc.db
      .prepare("SELECT summary, details FROM config_events WHERE subject = ? AND command_type = 'CREATE'")
      .get(`webhook ${sub.id}`) as { summary: string; details: string };
    expect(event.summary).toContain(r.url);
    expect(event.details).not.toContain(SECRET);

    const del = await manager(`${W}/${sub.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(await (await manager(W)).json()).toEqual([]);
    await refused(await manager(`${W}/${sub.id}`, { method: "DELETE" }), 404);
    await refused(await manager(`${W}/not-an-id`, { method: "DELETE" }), 400);
  });

  it("refuses a receiver that answers the challenge wrongly, and stores nothing", async () => {
    const r = await receiver();
    r.wrongChallenge = true;
    const before = storeHash(repo.svc.db);
    const message = await refused(await subscribe(manager, r.url, "MOVED"), 400);
    expect(message).toMatch(/challenge/);
    expect(r.log).toEqual(["challenge"]);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("refuses a receiver that is not running", async () => {
    const r = await receiver();
    await r.close();
    const message = await refused(await subscribe(manager, r.url, "MOVED"), 400);
    expect(message).toMatch(/could not be reached/);
  });

  it("refuses receivers off this machine without calling them, and bad fields", async () => {
    const before = storeHash(repo.svc.db);
    for (const url of ["http://203.0.113.7:8080/hook", "http://example.org/hook", "http://10.0.0.1/hook"]) {
      expect(await refused(await subscribe(manager, url, "MOVED"), 400)).toMatch(
        /not allowed.*--webhook-hosts/,
      );
    }
    expect(await refused(await subscribe(manager, "ftp://127.0.0.1/x", "MOVED"), 400)).toMatch(
      /http or https/,
    );
    expect(await refused(await subscribe(manager, "http://u:p@127.0.0.1/x", "MOVED"), 400)).toMatch(
      /password/,
    );
    expect(await refused(await subscribe(manager, "http://127.0.0.1:9/x", "SOMETIMES"), 400)).toMatch(
      /MOVED, FULL_TEXT_INDEXED/,
    );
    expect(await refused(await subscribe(manager, "http://127.0.0.1:9/x", "MOVED", ""), 400)).toMatch(
      /secret/,
    );
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("refuses a second subscription of one receiver to one trigger type (409)", async () => {
    const r = await receiver();
    const sub = await subscribed(r.url, "MOVED");
    expect(await refused(await subscribe(manager, r.url, "MOVED"), 409)).toContain(sub.id);
  });

  it("is for managers: others get 403, no token 401", async () => {
    const r = await receiver();
    for (const who of [curator, reader]) {
      await refused(await who(W), 403);
      await refused(await subscribe(who, r.url, "MOVED"), 403);
      await refused(await who(`${W}/00000000-0000-4000-8000-000000000000`, { method: "DELETE" }), 403);
    }
    expect(r.log).toEqual([]);
    expect((await fetch(`${repo.url}${W}`)).status).toBe(401);
  });
});

describe("allowed hosts", () => {
  it("lets a configured host through the host check (it is then challenged)", async () => {
    const other = await startTestRepository({ webhookHosts: ["receiver.invalid"], webhookDelivery: FAST });
    try {
      const m = authed(other.url, (await login(other.url, "manager")).token);
      const message = await refused(await subscribe(m, "http://receiver.invalid:8081/hook", "MOVED"), 400);
      expect(message).toMatch(/could not be reached/);
      expect(await refused(await subscribe(m, "http://elsewhere.invalid/hook", "MOVED"), 400)).toMatch(
        /receiver\.invalid.*not allowed|not allowed/,
      );
    } finally {
      await other.close();
    }
  });
});

describe("deliveries", () => {
  it("delivers a move and a security tag change, chunked and signed", async () => {
    const r = await receiver();
    await subscribed(r.url, "MOVED");
    await subscribed(r.url, "CHANGED_SECURITY_DESCRIPTOR");
    await move(folders.item, folders.b);
    await retag(folders.item, "closed");
    const got = await r.waitFor(2);
    for (const d of got) {
      expect(d.verified).toBe(true);
      expect(d.headers["transfer-encoding"]).toBe("chunked");
      expect(d.headers["content-length"]).toBeUndefined();
    }
    const moved = got.find((d) => d.json.triggerType === "MOVED");
    const retagged = got.find((d) => d.json.triggerType === "CHANGED_SECURITY_DESCRIPTOR");
    expect(moved?.json.events).toEqual([
      expect.objectContaining({
        event: "MOVED",
        entityRef: folders.item,
        entityType: "IO",
        eventType: "Moved",
        identifiers: [{ type: "code", value: "ITEM-1" }],
      }),
    ]);
    expect(retagged?.json.events[0]).toMatchObject({
      entityRef: folders.item,
      eventType: "SecurityTagChanged",
    });
    // Nothing else was sent: a metadata change fires neither subscription.
    expect(r.log).toEqual(["challenge", "challenge", "delivery", "delivery"]);
    await retag(folders.item, "open");
    await move(folders.item, folders.a);
    await r.waitFor(4);
  });

  it("delivers a metadata change (an identifier added) to CHANGED_METADATA, with the new identifier", async () => {
    const r = await receiver();
    await subscribed(r.url, "CHANGED_METADATA");
    const res = await manager(`${E}/information-objects/${folders.item}/identifiers`, {
      method: "POST",
      headers: { "Content-Type": "application/xml" },
      body: '<Identifier xmlns="http://preservica.com/XIP/v7.7"><Type>isbn</Type><Value>978-0</Value></Identifier>',
    });
    expect(res.status, await res.text()).toBe(200);
    const [d] = await r.waitFor(1);
    expect(d?.verified).toBe(true);
    expect(d?.json.events[0]).toMatchObject({
      event: "CHANGED_METADATA",
      eventType: "Modified",
      entityRef: folders.item,
    });
    expect(d?.json.events[0]?.identifiers).toContainEqual({ type: "isbn", value: "978-0" });
  });

  it("retries a receiver that fails twice, with back-off, and delivers the event", async () => {
    const r = await receiver();
    const sub = await subscribed(r.url, "MOVED");
    r.failNext = 2;
    const started = Date.now();
    await move(folders.item, folders.b);
    const [d] = await r.waitFor(1);
    expect(d?.json.events[0]?.entityRef).toBe(folders.item);
    expect(r.log).toEqual(["challenge", "refused", "refused", "delivery"]);
    // Two waits: 50 ms then 100 ms at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(d?.headers["preservica-webhook-attempt"]).toBe("3");
    const [info] = await deliveriesOf(sub.id);
    expect(info).toMatchObject({ status: "DELIVERED", attempts: 3 });
    await move(folders.item, folders.a);
  });

  it("does not follow a redirect, and gives up after the last attempt", async () => {
    const r = await receiver();
    const sub = await subscribed(r.url, "MOVED");
    r.failNext = FAST.maxAttempts;
    r.failStatus = 302;
    await move(folders.item, folders.b);
    const until = Date.now() + 10_000;
    let info: DeliveryInfo | undefined;
    while (Date.now() < until) {
      [info] = await deliveriesOf(sub.id);
      if (info?.status === "FAILED") break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(info).toMatchObject({ status: "FAILED", attempts: FAST.maxAttempts });
    expect(info?.lastError).toMatch(/302.*redirects are not followed/);
    expect(r.log.filter((l) => l === "refused")).toHaveLength(FAST.maxAttempts);
    expect(r.delivered).toEqual([]);
    r.failStatus = 503;
    await move(folders.item, folders.a);
    await r.waitFor(1);
  });

  it("sends nothing to a receiver that unsubscribed", async () => {
    const r = await receiver();
    const sub = await subscribed(r.url, "MOVED");
    r.failNext = 100; // keeps the delivery queued
    await move(folders.item, folders.b);
    while (!r.log.includes("refused")) await new Promise((res) => setTimeout(res, 10));
    expect((await manager(`${W}/${sub.id}`, { method: "DELETE" })).status).toBe(204);
    const left = repo.svc.db.prepare("SELECT count(*) AS n FROM webhook_deliveries").get() as { n: number };
    expect(left.n).toBe(0);
    await move(folders.item, folders.a);
  });
});
