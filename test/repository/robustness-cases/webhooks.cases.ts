import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { login } from "../../helpers/repository.js";
import type { Case, FixtureContext } from "./case.js";

/**
 * Junk for the webhook API (`/api/webhook/subscriptions`). The fixture is one real subscription (to
 * CHANGE_ASSET_VISIBILITY, which no change fires, so nothing is ever queued for it) whose receiver
 * answered the challenge and then went away; junk aims at it and at unknown and malformed ids. No junk
 * may subscribe: every POST here is refused for its body, its receiver (off this machine, not running,
 * already subscribed) or its caller (the reader's token: 403).
 */

const W = "/api/webhook/subscriptions";
const UNKNOWN = "00000000-0000-4000-8000-0000000bee75";
const JSON_TYPE = { "Content-Type": "application/json" };
const READER = { "Preservica-Access-Token": "{webhookReaderToken}" };
const SECRET = "robustness-secret";
/** A loopback port nothing listens on (discard): the challenge finds no receiver. */
const DEAD = "http://127.0.0.1:9/hook";

function body(fields: Record<string, unknown>): string {
  return JSON.stringify({
    url: DEAD,
    triggerType: "MOVED",
    secret: SECRET,
    includeIdentifiers: "true",
    ...fields,
  });
}

const subscribeBodies: [string, string | { latin1: string }, number[]][] = [
  ["not JSON", "{url: x", [400]],
  ["a JSON array", "[]", [400]],
  ["JSON null", "null", [400]],
  ["a bare string", '"http://127.0.0.1/"', [400]],
  ["an empty object", "{}", [400]],
  ["an empty body", "", [400]],
  ["deeply nested", `${"[".repeat(500)}${"]".repeat(500)}`, [400]],
  ["a huge body", body({ padding: "p".repeat(300_000) }), [400]],
  ["no url", JSON.stringify({ triggerType: "MOVED", secret: SECRET }), [400]],
  ["a numeric url", body({ url: 42 }), [400]],
  ["a relative url", body({ url: "/hook" }), [400]],
  ["a huge url", body({ url: `http://127.0.0.1/${"u".repeat(5000)}` }), [400]],
  ["a file url", body({ url: "file:///etc/passwd" }), [400]],
  ["a javascript url", body({ url: "javascript:alert(1)" }), [400]],
  ["credentials in the url", body({ url: "http://user:pw@127.0.0.1:9/hook" }), [400]],
  ["a url with a fragment", body({ url: "http://127.0.0.1:9/hook#x" }), [400]],
  ["a public address", body({ url: "http://198.51.100.4/hook" }), [400]],
  ["a private address", body({ url: "http://192.168.1.1/hook" }), [400]],
  ["the metadata address", body({ url: "http://169.254.169.254/latest/meta-data" }), [400]],
  ["a host name", body({ url: "http://example.com/hook" }), [400]],
  ["0.0.0.0", body({ url: "http://0.0.0.0:9/hook" }), [400]],
  ["a decimal IP", body({ url: "http://2130706433:9/hook" }), [400]],
  ["no receiver running", body({}), [400]],
  ["no trigger type", JSON.stringify({ url: DEAD, secret: SECRET }), [400]],
  ["an unknown trigger type", body({ triggerType: "EVERYTHING" }), [400]],
  ["a numeric trigger type", body({ triggerType: 1 }), [400]],
  ["no secret", JSON.stringify({ url: DEAD, triggerType: "MOVED" }), [400]],
  ["an empty secret", body({ secret: "   " }), [400]],
  ["a huge secret", body({ secret: "s".repeat(10_000) }), [400]],
  ["a non-ASCII secret", body({ secret: "sécret" }), [400]],
  ["a secret with a newline", body({ secret: "a\nb" }), [400]],
  ["includeIdentifiers maybe", body({ includeIdentifiers: "maybe" }), [400]],
  ["includeIdentifiers a number", body({ includeIdentifiers: 1 }), [400]],
  ["not UTF-8", { latin1: body({ secret: "s\u00e9cret" }) }, [400]],
  [
    "the fixture's receiver again",
    '{"url":"{webhookUrl}","triggerType":"CHANGE_ASSET_VISIBILITY","secret":"x"}',
    [409],
  ],
];

export const CASES: Case[] = [
  ...subscribeBodies.map(
    ([name, b, expect]): Case => ({
      name: `webhooks: subscribe with ${name}`,
      method: "POST",
      path: W,
      headers: JSON_TYPE,
      body: b,
      expect,
    }),
  ),
  {
    name: "webhooks: subscribe as XML",
    method: "POST",
    path: W,
    headers: { "Content-Type": "application/xml" },
    body: "<a/>",
    expect: [400],
  },
  {
    name: "webhooks: subscribe as the reader",
    method: "POST",
    path: W,
    headers: { ...JSON_TYPE, ...READER },
    body: body({}),
    auth: false,
    expect: [403],
  },
  { name: "webhooks: list as the reader", path: W, headers: READER, auth: false, expect: [403] },
  { name: "webhooks: list without a token", path: W, auth: false, expect: [401] },
  {
    name: "webhooks: list with a junk token",
    path: W,
    headers: { "Preservica-Access-Token": "junk" },
    auth: false,
    expect: [401],
  },
  { name: "webhooks: list with a query", path: `${W}?start=-1&max=99999999`, expect: [200] },
  { name: "webhooks: the fixture", path: `${W}/{webhook}`, expect: [200] },
  { name: "webhooks: the fixture's deliveries", path: `${W}/{webhook}/deliveries`, expect: [200] },
  { name: "webhooks: an unknown subscription", path: `${W}/${UNKNOWN}`, expect: [404] },
  { name: "webhooks: a malformed id", path: `${W}/not-a-guid`, expect: [400] },
  { name: "webhooks: a huge id", path: `${W}/${"9".repeat(5000)}`, expect: [400, 414] },
  { name: "webhooks: an id with SQL", path: `${W}/1'%20OR%20'1'='1`, expect: [400] },
  {
    name: "webhooks: deliveries of an unknown subscription",
    path: `${W}/${UNKNOWN}/deliveries`,
    expect: [404],
  },
  { name: "webhooks: deliveries of a malformed id", path: `${W}/x/deliveries`, expect: [400] },
  { name: "webhooks: unsubscribe an unknown id", method: "DELETE", path: `${W}/${UNKNOWN}`, expect: [404] },
  { name: "webhooks: unsubscribe a malformed id", method: "DELETE", path: `${W}/%00`, expect: [400, 404] },
  {
    name: "webhooks: unsubscribe as the reader",
    method: "DELETE",
    path: `${W}/{webhook}`,
    headers: READER,
    auth: false,
    expect: [403],
  },
  {
    name: "webhooks: unsubscribe without a token",
    method: "DELETE",
    path: `${W}/{webhook}`,
    auth: false,
    expect: [401],
  },
  { name: "webhooks: unsubscribe all at once", method: "DELETE", path: W, expect: [404, 405] },
  {
    name: "webhooks: PUT the list",
    method: "PUT",
    path: W,
    headers: JSON_TYPE,
    body: body({}),
    expect: [404, 405],
  },
  {
    name: "webhooks: PATCH a subscription",
    method: "PATCH",
    path: `${W}/{webhook}`,
    headers: JSON_TYPE,
    body: "{}",
    expect: [404, 405],
  },
  {
    name: "webhooks: POST to a subscription",
    method: "POST",
    path: `${W}/{webhook}`,
    headers: JSON_TYPE,
    body: body({}),
    expect: [404, 405],
  },
  {
    name: "webhooks: DELETE the deliveries",
    method: "DELETE",
    path: `${W}/{webhook}/deliveries`,
    expect: [404, 405],
  },
  {
    name: "webhooks: POST the deliveries",
    method: "POST",
    path: `${W}/{webhook}/deliveries`,
    body: "{}",
    expect: [404, 405],
  },
  { name: "webhooks: the API root", path: "/api/webhook", expect: [404] },
];

/** One subscription whose receiver answered the challenge, then stopped; and the reader's token. */
export async function fixtures(ctx: FixtureContext): Promise<Record<string, string>> {
  const server = createServer((req, res) => {
    const code = new URL(req.url ?? "/", "http://x").searchParams.get("challengeCode") ?? "";
    const response = createHmac("sha256", SECRET).update(code).digest("hex");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ challengeCode: code, challengeResponse: response }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  try {
    const res = await fetch(`${ctx.url}${W}`, {
      method: "POST",
      headers: { ...JSON_TYPE, "Preservica-Access-Token": ctx.token },
      body: JSON.stringify({ url, triggerType: "CHANGE_ASSET_VISIBILITY", secret: SECRET }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`webhook fixture: ${res.status} ${text}`);
    return {
      webhook: (JSON.parse(text) as { id: string }).id,
      webhookUrl: url,
      webhookReaderToken: (await login(ctx.url, "reader")).token,
    };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
