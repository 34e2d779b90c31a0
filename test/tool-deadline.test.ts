import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../repository/server.js";
import { HttpClient } from "../src/api/http.js";
import { ConfigError, loadConfig } from "../src/config.js";
import { audienceFrom } from "../src/guards/visibility.js";
import { createLogger } from "../src/log.js";
import { startDeadline } from "../src/server/deadline.js";
import { buildServer } from "../src/server/server.js";
import { Session } from "../src/session/session.js";
import { type McpHarness, startMcp, textOf } from "./helpers/mcp.js";
import { DEMO_USERS, startTestRepository } from "./helpers/repository.js";

/**
 * One overall deadline per tool call (PRESERVATION_TOOL_TIMEOUT_SECS): a stalled service (the repository
 * service's latency fault) gets an answer that says so within the deadline, not one after the client gave up.
 */

const SAID =
  "The repository service did not answer within 1 s (PRESERVATION_TOOL_TIMEOUT_SECS); try again or narrow the request.";

describe("a tool call against a stalled service", () => {
  let repo: RunningRepository;
  let mcp: McpHarness;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo", faults: true });
    mcp = await startMcp({ repo, flags: ["--tool-timeout-secs", "1"] });
  });
  afterAll(async () => {
    await mcp?.close();
    await repo?.close();
  });

  it("answers at the deadline, says so, and the next call works once the service is back", async () => {
    repo.faults?.setLatency(2500);
    const started = Date.now();
    const res = await mcp.raw("search", { query: "map" });
    const took = Date.now() - started;
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe(SAID);
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(2500);

    repo.faults?.setLatency(0);
    // The service still finishes the stalled request on its own (it does not notice the cancel); let it.
    await new Promise((r) => setTimeout(r, 2600 - took));
    const again = await mcp.raw("search", { query: "map" });
    expect(again.isError, textOf(again)).toBeFalsy();
  });
});

describe("a tool call still waiting for the sign-in at the deadline", () => {
  it("names the sign-in and the URL to check", async () => {
    const repo = await startTestRepository({ faults: { latencyMs: 2500 } });
    const env = {
      PRESERVATION_URL: repo.url,
      PRESERVATION_USERNAME: DEMO_USERS.curator.username,
      PRESERVATION_PASSWORD: DEMO_USERS.curator.password,
      PRESERVATION_TOOL_TIMEOUT_SECS: "1",
    };
    const config = loadConfig([], env);
    const log = createLogger({ level: "silent" });
    const session = new Session({ url: repo.url, ...DEMO_USERS.curator, logger: log, keepAlive: false });
    const server = buildServer({ config, session, log, audience: audienceFrom(config, undefined) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "deadline-test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const started = Date.now();
      const res = await client.callTool({ name: "whoami", arguments: {} });
      expect(Date.now() - started).toBeLessThan(2500);
      expect(res.isError).toBe(true);
      expect(textOf(res)).toBe(
        `Signing in to the repository service at ${repo.url} did not finish within 1 s (PRESERVATION_TOOL_TIMEOUT_SECS); check PRESERVATION_URL and that the service is reachable, then try again.`,
      );
    } finally {
      await client.close();
      await server.close();
      await session.close();
      await repo.close();
    }
  });
});

describe("startDeadline", () => {
  it("aborts the signal and stops waiting for work that ignores it", async () => {
    const deadline = startDeadline(50);
    const never = new Promise<never>(() => {});
    await expect(deadline.run(never)).rejects.toThrow(/no answer within 50 ms/);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(true);
    deadline.dispose();
  });

  it("passes a client's cancellation through without calling it a deadline", () => {
    const cancel = new AbortController();
    const deadline = startDeadline(10_000, cancel.signal);
    cancel.abort();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
    deadline.dispose();
  });

  it("keeps each call's own deadline when several are in flight, whatever order they started and end in", async () => {
    const never = new Promise<never>(() => {});
    const started = performance.now();
    const long = startDeadline(90);
    const short = startDeadline(30);
    const ended = startDeadline(50);
    const longRun = long.run(never).catch((err: Error) => err);
    ended.dispose();
    await expect(short.run(never)).rejects.toThrow(/no answer within 30 ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
    expect([short.expired, long.expired, long.signal.aborted]).toEqual([true, false, false]);
    expect((await longRun).message).toBe("no answer within 90 ms");
    expect(performance.now() - started).toBeGreaterThanOrEqual(89);
    expect([long.expired, ended.expired, ended.signal.aborted]).toEqual([true, false, false]);
    short.dispose();
    long.dispose();
  });

  it("holds the process open only while a call is in flight", () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    const deadline = startDeadline(10_000);
    expect(timers()).toBeGreaterThanOrEqual(1);
    deadline.dispose();
    expect(timers()).toBe(before);
  });
});

describe("requests in flight when a call's deadline passes or the client cancels", () => {
  // A service that takes each request and never answers: only our side can end them.
  let stalled: Server;
  let http: HttpClient;
  const arrived: IncomingMessage[] = [];
  beforeAll(async () => {
    stalled = createServer((req) => arrived.push(req));
    stalled.listen(0, "127.0.0.1");
    await once(stalled, "listening");
    // One attempt each: a dropped connection is an error at once, not a retry that reaches the service again.
    http = new HttpClient({
      baseUrl: `http://127.0.0.1:${(stalled.address() as AddressInfo).port}`,
      retry: { attempts: 1 },
    });
  });
  afterAll(async () => {
    await http?.close();
    stalled?.closeAllConnections();
    await new Promise((r) => stalled?.close(r));
  });

  /** Resolves when the service sees the request's connection close (the client went away). */
  function closed(req: IncomingMessage): Promise<void> {
    req.on("error", () => {}); // "aborted": expected here
    return new Promise((resolve) => req.once("close", () => resolve()));
  }

  /** A GET under `signal`, settled as the error it ends with, once the service has it. */
  async function inFlight(signal: AbortSignal) {
    const before = arrived.length;
    const settled = http.request({ path: "/api/entity/root/children", operation: "test.stall", signal }).then(
      () => new Error("answered"),
      (err: Error) => err,
    );
    while (arrived.length === before) await new Promise((r) => setTimeout(r, 5));
    return { settled, req: arrived.at(-1) as IncomingMessage };
  }

  it("are cancelled at the deadline, every one of them, and the service sees their connections close", async () => {
    const deadline = startDeadline(300);
    const [a, b] = [await inFlight(deadline.signal), await inFlight(deadline.signal)];
    const gone = Promise.all([closed(a.req), closed(b.req)]);
    const errors = await Promise.all([a.settled, b.settled]);
    expect(deadline.expired).toBe(true);
    for (const err of errors) expect(err.message).toMatch(/request cancelled/);
    await gone;
    deadline.dispose();
  });

  it("are cancelled when the client cancels the call", async () => {
    const cancel = new AbortController();
    const deadline = startDeadline(10_000, cancel.signal);
    const a = await inFlight(deadline.signal);
    const gone = closed(a.req);
    cancel.abort();
    expect((await a.settled).message).toMatch(/request cancelled/);
    expect(deadline.expired).toBe(false);
    await gone;
    deadline.dispose();
  });

  it("one that ends on its own leaves the others listening: a later cancellation still reaches them", async () => {
    const cancel = new AbortController();
    const deadline = startDeadline(10_000, cancel.signal);
    const done = await inFlight(deadline.signal);
    const open = await inFlight(deadline.signal);
    done.req.socket.destroy(); // the first one ends on its own (its connection drops)
    expect((await done.settled).message).toMatch(/could not reach the service/);
    cancel.abort();
    expect((await open.settled).message).toMatch(/request cancelled/);
    deadline.dispose();
  });
});

describe("tools that transfer whole files", () => {
  it("have no deadline (a large download may rightly take longer) but still stop when the client cancels", async () => {
    const { ALL_TOOLS } = await import("../src/tools/index.js");
    // Only tools that move whole files (downloads, uploads, a finished export's package) are exempt.
    const exempt = ALL_TOOLS.filter((t) => t.transfersFiles).map((t) => t.name);
    expect(exempt).toContain("download_file");
    for (const name of exempt) {
      // export saves a package that is ready at once (src/tools/support/job-wait.ts), as job_status does.
      expect([
        "download_file",
        "ingest",
        "job_status",
        "export",
        "replace_content",
        "add_representation",
      ]).toContain(name);
    }
    const client = new AbortController();
    const d = startDeadline(null, client.signal);
    let settled = false;
    void d.run(new Promise((r) => setTimeout(r, 60))).then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 80));
    expect(settled).toBe(true);
    expect(d.expired).toBe(false);
    client.abort(new Error("cancelled by the client"));
    expect(d.signal.aborted).toBe(true);
    expect(d.expired).toBe(false);
    d.dispose();
  });
});

describe("PRESERVATION_TOOL_TIMEOUT_SECS", () => {
  it("defaults to 45 s, takes the flag, and refuses what is not 1-600 seconds", () => {
    expect(loadConfig([], {}).toolTimeoutSecs).toBe(45);
    expect(loadConfig(["--tool-timeout-secs", "5"], {}).toolTimeoutSecs).toBe(5);
    expect(loadConfig([], { PRESERVATION_TOOL_TIMEOUT_SECS: "2.5" }).toolTimeoutSecs).toBe(2.5);
    for (const bad of ["0", "abc", "601"]) {
      expect(() => loadConfig([], { PRESERVATION_TOOL_TIMEOUT_SECS: bad })).toThrow(ConfigError);
      expect(() => loadConfig([], { PRESERVATION_TOOL_TIMEOUT_SECS: bad })).toThrow(
        /^PRESERVATION_TOOL_TIMEOUT_SECS must be a number of seconds between 1 and 600$/,
      );
    }
  });
});
