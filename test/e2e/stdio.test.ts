import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { startTestRepository } from "../helpers/repository.js";
import {
  type AnyClient,
  childEnv,
  connectStdio,
  demoDataDir,
  killStragglers,
  LEGACY,
  MODERN,
  remoteEnv,
  spawnCli,
} from "./helpers.js";

afterAll(killStragglers);

/**
 * The shipped entry point over stdio, as an MCP host runs it: `node dist/bundle/preservation-mcp.cjs` as a child process,
 * with both client generations, against a repository service given by URL and against the embedded default.
 */

let repo: RunningRepository;
const data = demoDataDir();

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
});
afterAll(async () => {
  await repo?.close();
  data.cleanup();
});

async function conversation(client: AnyClient, expectedVersion: string, user: string) {
  expect(client.protocolVersion()).toBe(expectedVersion);
  const names = await client.listToolNames();
  expect(names).toContain("whoami");
  const me = await client.call("whoami");
  expect(me.isError).toBe(false);
  expect(me.structured).toMatchObject({ user });
  expect(me.text).toContain(`(${user})`);
  expect(names).toContain("search");
  const found = await client.call("search", { query: "harbour" });
  expect(found.isError).toBe(false);
  expect((found.structured as { total: number }).total).toBeGreaterThan(0);
  const [root] = await client.readText("preservation://root");
  expect(JSON.parse(root ?? "{}").folders.length).toBeGreaterThan(0);
}

describe.each([
  { era: "v2" as const, version: MODERN },
  { era: "v1" as const, version: LEGACY },
])("stdio, $era client ($version)", ({ era, version }) => {
  it("against a repository service given by PRESERVATION_URL", async () => {
    const client = await connectStdio(era, { env: childEnv(remoteEnv(repo.url, "manager")) });
    try {
      await conversation(client, version, "manager");
    } finally {
      await client.close();
    }
  });

  it("against the embedded default (no account; demo data in PRESERVATION_DATA_DIR)", async () => {
    const client = await connectStdio(era, { env: childEnv({ PRESERVATION_DATA_DIR: data.dir }) });
    try {
      await conversation(client, version, "curator");
    } finally {
      await client.close();
    }
  });
});

describe("stdio, v2 client negotiating by probe", () => {
  it("settles on 2026-07-28 with server/discover", async () => {
    const client = await connectStdio("v2", { env: childEnv(remoteEnv(repo.url)), negotiation: "auto" });
    try {
      await conversation(client, MODERN, "curator");
    } finally {
      await client.close();
    }
  });
});

describe("stdout in stdio mode", () => {
  it("carries nothing but JSON-RPC, even with trace logging", async () => {
    const cli = spawnCli([], childEnv({ ...remoteEnv(repo.url), PRESERVATION_LOG_LEVEL: "trace" }));
    const send = (msg: object) => cli.child.stdin?.write(`${JSON.stringify(msg)}\n`);
    const replies = async (n: number) => {
      const deadline = Date.now() + 15_000;
      while (cli.stdout().split("\n").filter(Boolean).length < n) {
        if (Date.now() > deadline)
          throw new Error(`waited for ${n} replies; stdout:\n${cli.stdout()}\nstderr:\n${cli.stderr()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      await replies(1);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "whoami", arguments: {} } });
      send({ jsonrpc: "2.0", id: 4, method: "resources/read", params: { uri: "preservation://root" } });
      send({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: "preservation://asset/nope" } });
      send({ jsonrpc: "2.0", id: 6, method: "no/such/method" });
      await replies(6);
      cli.child.stdin?.end();
      expect(await cli.exitedWithin(10_000)).toBe(0);

      const lines = cli
        .stdout()
        .split("\n")
        .filter((l) => l.length > 0);
      const messages = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id?: number });
      for (const m of messages) expect(m.jsonrpc).toBe("2.0");
      expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      // The logs did go somewhere: stderr, as pino JSON lines.
      expect(cli.stderr()).toMatch(/"msg":"MCP over stdio"/);
    } finally {
      await cli.stop();
    }
  });
});
