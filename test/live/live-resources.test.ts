import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertSubscription } from "../../repository/store/webhooks/write.js";
import { createServiceClient } from "../../src/api/index.js";
import { loadConfig } from "../../src/config.js";
import { audienceFrom } from "../../src/guards/visibility.js";
import { type HttpServing, serveOverHttp } from "../../src/http/serve.js";
import { LiveResources } from "../../src/live/live-resources.js";
import { createLogger } from "../../src/log.js";
import { buildServer, type ServerDeps } from "../../src/server/server.js";
import { Session } from "../../src/session/session.js";
import { INITIALIZE, rawPost } from "../helpers/raw-post.js";
import { DEMO_USERS, type DemoUser, startTestRepository } from "../helpers/repository.js";

/**
 * Live resources in process, over real loopback HTTP, against the real repository service: subscribing at
 * start (and what an earlier run left), an account that may not use webhooks, and the 2025 session rules.
 */

const log = createLogger({ level: "silent" });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Running {
  http: HttpServing;
  live: LiveResources;
  webhookUrl: string;
  close(): Promise<void>;
}

async function serveLive(
  repo: RunningRepository,
  user: DemoUser,
  beforeStart?: (url: string) => void,
): Promise<Running> {
  const who = DEMO_USERS[user];
  const session = new Session({ url: repo.url, username: who.username, password: who.password, logger: log });
  await session.login();
  const config = loadConfig([], {
    PRESERVATION_URL: repo.url,
    PRESERVATION_USERNAME: who.username,
    PRESERVATION_PASSWORD: who.password,
  });
  const deps: ServerDeps = {
    config,
    session,
    log,
    audience: audienceFrom(config, (await session.whoAmI()).roles),
  };
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/webhook`;
  beforeStart?.(webhookUrl);
  const live = new LiveResources({ webhookUrl, api: createServiceClient(session.http), log });
  const http = await serveOverHttp(
    (ctx) => buildServer(deps, ctx.watching),
    { host: "127.0.0.1", port, live },
    log,
  );
  await live.whenStarted();
  return {
    http,
    live,
    webhookUrl,
    async close() {
      await http.close();
      await session.close();
    },
  };
}

async function subscriptionsOf(repo: RunningRepository, url: string) {
  const api = createServiceClient(
    (() => {
      const s = new Session({ url: repo.url, ...DEMO_USERS.manager, logger: log });
      return s.http;
    })(),
  );
  return (await api.webhooks.list()).filter((s) => s.url === url);
}

describe("subscribing at start", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
  });
  afterAll(() => repo?.close());

  it("removes what an earlier run left for the same URL (its secret is gone), then subscribes every trigger", async () => {
    const staleId = randomUUID();
    const running = await serveLive(repo, "manager", (url) =>
      insertSubscription(repo.svc.db, {
        id: staleId,
        url,
        trigger_type: "MOVED",
        secret: "the-secret-of-a-killed-run",
        include_identifiers: 1,
        created_by: "manager",
        created: new Date().toISOString(),
      }),
    );
    try {
      expect(running.live.state).toMatchObject({ kind: "active" });
      const subs = await subscriptionsOf(repo, running.webhookUrl);
      expect(subs).toHaveLength(6);
      expect(subs.map((s) => s.id)).not.toContain(staleId);
    } finally {
      await running.close();
    }
    expect(await subscriptionsOf(repo, running.webhookUrl)).toEqual([]);
  });

  it("an account that may not use the webhook API: live resources stay off, the server serves, no subscribe offered", async () => {
    const running = await serveLive(repo, "curator");
    try {
      expect(running.live.state.kind).toBe("failed");
      expect(running.live.state).toMatchObject({ reason: expect.stringMatching(/403/) });
      const client = new V1Client({ name: "t", version: "1" });
      await client.connect(new V1HttpTransport(new URL(running.http.url)));
      expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await running.close();
    }
  });
});

describe("2025 sessions", () => {
  let repo: RunningRepository;
  let running: Running;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    running = await serveLive(repo, "manager");
  });
  afterAll(async () => {
    await running?.close();
    await repo?.close();
  });

  it("an initialize opens a session; a request naming an unknown session is 404 (the client starts again)", async () => {
    const opened = await rawPost(running.http.url, {}, INITIALIZE);
    expect(opened.status).toBe(200);
    const res = await rawPost(
      running.http.url,
      { "mcp-session-id": randomUUID(), "mcp-protocol-version": "2025-11-25" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
      },
    );
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body).error.message).toMatch(/send initialize again/);
  });

  it("refuses to watch what is not a repository resource, saying which URIs can be watched", async () => {
    const client = new V1Client({ name: "t", version: "1" });
    const transport = new V1HttpTransport(new URL(running.http.url));
    await client.connect(transport);
    try {
      await expect(client.subscribeResource({ uri: "file:///etc/passwd" })).rejects.toThrow(
        /not a resource this server can watch: subscribe to preservation:\/\/root or a preservation:\/\/folder/,
      );
      await expect(client.subscribeResource({ uri: "preservation://root" })).resolves.toEqual({});
      expect(running.live.interest.has("preservation://root")).toBe(true);
      await transport.terminateSession();
    } finally {
      await client.close();
    }
    // Ending the session (DELETE) forgets what it watched.
    for (let i = 0; i < 50 && running.live.interest.has("preservation://root"); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(running.live.interest.has("preservation://root")).toBe(false);
  });
});

describe("shutdown with subscriptions open", () => {
  it("ends 2025 session streams and 2026 listen streams at once instead of waiting out the drain", async () => {
    const repo = await startTestRepository({ seed: "none" });
    const running = await serveLive(repo, "manager");
    try {
      const legacy = new V1Client({ name: "t", version: "1" });
      await legacy.connect(new V1HttpTransport(new URL(running.http.url)));
      await legacy.subscribeResource({ uri: "preservation://root" });
      const modern = new Client(
        { name: "t2", version: "1" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await modern.connect(new StreamableHTTPClientTransport(new URL(running.http.url)));
      const sub = await modern.listen({ resourceSubscriptions: ["preservation://root"] });
      expect(running.live.interest.has("preservation://root")).toBe(true);
      const started = Date.now();
      await running.close(); // the default drain is 10 s
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await sub.closed).not.toBe("local");
      expect(running.live.interest.size).toBe(0);
      await legacy.close().catch(() => {});
      await modern.close().catch(() => {});
    } finally {
      await repo.close();
    }
  }, 30_000);

  it("a 2025 session's call in flight still gets its answer", async () => {
    const repo = await startTestRepository({ seed: "demo", faults: true });
    const running = await serveLive(repo, "manager");
    try {
      const legacy = new V1Client({ name: "t", version: "1" });
      await legacy.connect(new V1HttpTransport(new URL(running.http.url)));
      await legacy.subscribeResource({ uri: "preservation://root" });
      repo.faults?.inject({ path: "/api/content/search", delayMs: 1500 });
      const call = legacy.callTool({ name: "search", arguments: { query: "minutes" } });
      await new Promise((r) => setTimeout(r, 400));
      const closing = running.close();
      const result = await call;
      expect(result.isError).toBeFalsy();
      await closing;
      await legacy.close().catch(() => {});
    } finally {
      await repo.close();
    }
  }, 30_000);
});
