import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { startTestRepository } from "../helpers/repository.js";
import { childEnv, connectHttp, killStragglers, remoteEnv, startHttp } from "./helpers.js";

afterAll(killStragglers);

/**
 * Operating the shipped CLI as a team server: the probes a load balancer or orchestrator uses, readiness that
 * follows the upstream session (and recovers by itself), and SIGTERM that lets the calls in flight finish.
 */

const TOKEN = "ops-test-token-0123456789abcdef";

function probe(url: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return fetch(new URL(path, url)).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));
}

/** A loopback port with nothing listening on it (for now). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe("probes of a server signed in to its repository", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo", faults: true });
  });
  afterAll(() => repo?.close());

  it("/healthz and /readyz answer 200 without the bearer token /mcp requires", async () => {
    const server = await startHttp([], childEnv({ ...remoteEnv(repo.url), PRESERVATION_HTTP_TOKEN: TOKEN }));
    try {
      expect(await probe(server.url, "/healthz")).toEqual({ status: 200, body: { status: "ok" } });
      expect(await probe(server.url, "/readyz")).toEqual({ status: 200, body: { status: "ready" } });
      expect((await fetch(server.url, { method: "POST" })).status).toBe(403);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("SIGTERM: the call in flight gets its answer, then the process exits 0", async () => {
    const server = await startHttp([], childEnv(remoteEnv(repo.url)));
    const client = await connectHttp("v1", server.url);
    try {
      repo.faults?.inject({ path: "/api/content/search", delayMs: 1500 });
      const call = client.call("search", { query: "minutes" });
      await new Promise((r) => setTimeout(r, 500));
      server.child.kill("SIGTERM");
      const result = await call;
      expect(result.isError).toBe(false);
      expect(repo.faults?.hits.some((h) => h.action === "delay")).toBe(true);
      expect(await server.exitedWithin(10_000)).toBe(0);
      await expect(fetch(new URL("/healthz", server.url))).rejects.toThrow();
    } finally {
      await client.close().catch(() => {});
      await server.stop();
    }
  });
});

describe("readiness while the repository cannot be reached", () => {
  it("503 with a reason that names no configuration, then 200 once the service is up (no restart)", async () => {
    const port = await freePort();
    const upstream = `http://127.0.0.1:${port}`;
    const env = remoteEnv(upstream);
    const server = await startHttp([], childEnv(env));
    let repo: RunningRepository | undefined;
    try {
      expect((await probe(server.url, "/healthz")).status).toBe(200);
      const down = await probe(server.url, "/readyz");
      expect(down.status).toBe(503);
      expect(down.body).toEqual({
        status: "not ready",
        reason: "the repository service cannot be reached; trying again",
      });
      const text = JSON.stringify(down.body);
      for (const secret of [String(port), env.PRESERVATION_USERNAME, env.PRESERVATION_PASSWORD]) {
        expect(text).not.toContain(secret);
      }
      // The probe itself asks the session to sign in again: no tool call is needed to become ready.
      repo = await startTestRepository({ seed: "demo", port });
      const deadline = Date.now() + 15_000;
      let ready = await probe(server.url, "/readyz");
      while (ready.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        ready = await probe(server.url, "/readyz");
      }
      expect(ready).toEqual({ status: 200, body: { status: "ready" } });
    } finally {
      expect(await server.stop()).toBe(0);
      await repo?.close();
    }
  }, 60_000);
});
