import { request } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, loadConfig, parseRate } from "../src/config.js";
import { topLevelId } from "../src/http/body.js";
import { RateLimiter } from "../src/http/rate-limit.js";
import {
  type HttpOptions,
  type HttpServing,
  RATE_LIMITED_CODE,
  type Readiness,
  serveOverHttp,
  TOO_LARGE_CODE,
} from "../src/http/serve.js";
import { createLogger } from "../src/log.js";

/**
 * What a team server needs around /mcp, in process over real loopback HTTP: health and readiness probes,
 * the body size limit, the per-client rate limit, and a close that finishes the calls in flight. The MCP
 * server behind them has one tool, `wait`, that answers after the milliseconds it is given.
 */

const log = createLogger({ level: "silent" });
const factory = () => {
  const server = new McpServer({ name: "limits-test", version: "1.0.0" });
  server.registerTool("wait", { inputSchema: z.object({ ms: z.number() }) }, async ({ ms }) => {
    await new Promise((r) => setTimeout(r, ms));
    return { content: [{ type: "text", text: `waited ${ms} ms` }] };
  });
  return server;
};

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request over node:http (so a body can be any size, and headers any value). */
function send(
  url: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: opts.path ?? u.pathname,
        method: opts.method ?? "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...opts.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(opts.body ?? (opts.method === "GET" ? undefined : JSON.stringify(INITIALIZE)));
  });
}

async function start(opts: Partial<HttpOptions> = {}): Promise<HttpServing> {
  return serveOverHttp(factory, { host: "127.0.0.1", port: 0, ...opts }, log);
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "limits-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe("/healthz and /readyz", () => {
  const token = "probe-test-token-0123456789";
  let readiness: Readiness = { ready: true };
  let http: HttpServing;
  beforeAll(async () => {
    http = await start({ token, readiness: () => readiness });
  });
  afterAll(() => http?.close());

  it("answer without the bearer token that /mcp needs, and say nothing of the configuration", async () => {
    expect((await send(http.url)).status).toBe(403);
    const health = await send(http.url, { method: "GET", path: "/healthz" });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });
    const ready = await send(http.url, { method: "GET", path: "/readyz" });
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: "ready" });
    expect(`${health.body}${ready.body}`).not.toContain(token);
  });

  it("/readyz answers 503 with the reason while the upstream session is not valid, and 200 again once it is", async () => {
    readiness = { ready: false, reason: "the repository service cannot be reached; trying again" };
    const down = await send(http.url, { method: "GET", path: "/readyz" });
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toEqual({
      status: "not ready",
      reason: "the repository service cannot be reached; trying again",
    });
    // Liveness is the process, not the session: a restart would not help.
    expect((await send(http.url, { method: "GET", path: "/healthz" })).status).toBe(200);
    readiness = { ready: true };
    expect((await send(http.url, { method: "GET", path: "/readyz" })).status).toBe(200);
  });

  it("keep the loopback Host check (a rebinding page learns nothing either)", async () => {
    const res = await send(http.url, { method: "GET", path: "/readyz", headers: { host: "evil.example" } });
    expect(res.status).toBe(403);
  });
});

describe("the request size limit", () => {
  let http: HttpServing;
  beforeAll(async () => {
    http = await start({ maxBodyBytes: 64 * 1024 });
  });
  afterAll(() => http?.close());

  const big = (before: object, after: object = {}) =>
    JSON.stringify({ ...before, params: { arguments: { text: "x".repeat(200 * 1024) } }, ...after });

  it("answers 413 with the request's id when the id comes before the bulk", async () => {
    for (const id of [42, "call-7"]) {
      const res = await send(http.url, { body: big({ jsonrpc: "2.0", id, method: "tools/call" }) });
      expect(res.status).toBe(413);
      const body = JSON.parse(res.body);
      expect(body).toMatchObject({ jsonrpc: "2.0", id, error: { code: TOO_LARGE_CODE } });
      expect(body.error.message).toMatch(/up to 65536 bytes/);
    }
  });

  it("answers id null when the id lies beyond the limit (it was never read)", async () => {
    const res = await send(http.url, { body: big({ jsonrpc: "2.0", method: "tools/call" }, { id: 9 }) });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).id).toBeNull();
  });

  it("refuses a body sent in chunks (no Content-Length) once it passes the limit", async () => {
    const res = await send(http.url, {
      headers: { "transfer-encoding": "chunked" },
      body: big({ jsonrpc: "2.0", id: 3, method: "tools/call" }),
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).id).toBe(3);
  });

  it("serves bodies under the limit", async () => {
    expect((await send(http.url)).status).toBe(200);
  });

  it("defaults to 4 MiB", async () => {
    const dflt = await start();
    try {
      const padded = (n: number) =>
        JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, _meta: { pad: "x".repeat(n) } } });
      const under = padded(4 * 1024 * 1024 - 1000);
      expect((await send(dflt.url, { body: under })).status).toBe(200);
      const over = padded(4 * 1024 * 1024);
      const res = await send(dflt.url, { body: over });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).id).toBe(1);
    } finally {
      await dflt.close();
    }
  });
});

describe("the per-client rate limit", () => {
  it("answers 429 with Retry-After and the request's id once a client's budget is spent", async () => {
    const http = await start({ rate: { requests: 3, perMs: 60_000 } });
    try {
      for (let i = 0; i < 3; i++) expect((await send(http.url)).status).toBe(200);
      const res = await send(http.url, { body: JSON.stringify({ ...INITIALIZE, id: "over" }) });
      expect(res.status).toBe(429);
      expect(res.headers["retry-after"]).toBe("20");
      const body = JSON.parse(res.body);
      expect(body).toMatchObject({ jsonrpc: "2.0", id: "over", error: { code: RATE_LIMITED_CODE } });
      expect(body.error.message).toMatch(/3 requests a minute; try again in 20 s/);
      // Probes are not rate limited: a load balancer must always learn the truth.
      expect((await send(http.url, { method: "GET", path: "/readyz" })).status).toBe(200);
    } finally {
      await http.close();
    }
  });

  it("keys clients by their bearer token's digest, else by their address", async () => {
    const http = await start({ rate: { requests: 1, perMs: 60_000 } });
    try {
      const as = (token: string) => send(http.url, { headers: { authorization: `Bearer ${token}` } });
      expect((await as("alice-token-0123456789")).status).toBe(200);
      expect((await as("alice-token-0123456789")).status).toBe(429);
      expect((await as("bob-token-0123456789ab")).status).toBe(200);
      expect((await send(http.url)).status).toBe(200);
      expect((await send(http.url)).status).toBe(429);
    } finally {
      await http.close();
    }
  });

  it("RateLimiter: bursts a full bucket, then refills at the steady rate", () => {
    let now = 0;
    const limiter = new RateLimiter({ requests: 600, perMs: 60_000 }, () => now);
    for (let i = 0; i < 600; i++) expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSecs: 1 });
    now += 100; // one token per 100 ms
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
    expect(limiter.take("b").ok).toBe(true);
    // Clients whose buckets are full again are forgotten: memory follows the active clients only.
    now += 120_000;
    for (let i = 0; i < 1024; i++) limiter.take(`c${i % 2}`);
    expect(limiter.size).toBe(2);
  });
});

describe("PRESERVATION_HTTP_RATE", () => {
  it("reads n/s, n/min, n/h and off; defaults to 600 a minute", () => {
    expect(parseRate("20/s")).toEqual({ requests: 20, perMs: 1000 });
    expect(parseRate(" 600 / MIN ")).toEqual({ requests: 600, perMs: 60_000 });
    expect(parseRate("5000/h")).toEqual({ requests: 5000, perMs: 3_600_000 });
    expect(parseRate("off")).toBeNull();
    expect(loadConfig([], {}).http.rate).toEqual({ requests: 600, perMs: 60_000 });
    expect(loadConfig([], { PRESERVATION_HTTP_RATE: "off" }).http.rate).toBeNull();
  });

  it.each(["600", "0/min", "-5/s", "1.5/s", "ten/min", "600/week"])("refuses %s in plain words", (value) => {
    expect(() => loadConfig([], { PRESERVATION_HTTP_RATE: value })).toThrow(ConfigError);
    expect(() => loadConfig([], { PRESERVATION_HTTP_RATE: value })).toThrow(
      "PRESERVATION_HTTP_RATE must be requests per client as a whole number per second, minute or hour (such as 600/min), or off",
    );
  });
});

describe("closing gracefully", () => {
  it("finishes the calls in flight, refuses new connections, then stops", async () => {
    const http = await start();
    const client = await connect(http.url);
    const calls = [300, 600].map((ms) => client.callTool({ name: "wait", arguments: { ms } }));
    await new Promise((r) => setTimeout(r, 150));
    const closing = http.close();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.isError ?? false)).toEqual([false, false]);
    expect(results.map((r) => (r.content as { text: string }[])[0]?.text)).toEqual([
      "waited 300 ms",
      "waited 600 ms",
    ]);
    await closing;
    await expect(send(http.url)).rejects.toThrow(/ECONNREFUSED/);
    await client.close().catch(() => {});
  });

  it("waits no longer than drainMs for a call that does not finish", async () => {
    const http = await start({ drainMs: 300 });
    const client = await connect(http.url);
    void client.callTool({ name: "wait", arguments: { ms: 5000 } }).catch(() => {});
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await http.close();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(Date.now() - t0).toBeLessThan(1500);
    await client.close().catch(() => {});
  });
});

describe("topLevelId", () => {
  it.each([
    ['{"jsonrpc":"2.0","id":5,"method":"x"', 5],
    ['{"id" : "a\\"b", "params":{', 'a"b'],
    ['{"params":{"id":1,"arguments":{"id":"inner"}},"id":-2.5e3}', -2500],
    ['{"params":{"id":1,"arguments":{"text":"\\"id\\":3"}}', null],
    ['{"method":"x","params":{"id":7}', null],
    ['[{"id":1}]', null],
    ['{"id":{"nested":1}}', null],
    ['{"id":12', null],
    ["", null],
  ])("%s -> %s", (text, id) => {
    expect(topLevelId(text)).toBe(id);
  });
});
