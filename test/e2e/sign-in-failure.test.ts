import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";
import { childEnv, connectStdio, killStragglers, remoteEnv } from "./helpers.js";

afterAll(killStragglers);

/**
 * A server that cannot sign in at start-up still serves (issue 9 §1): an MCP client that only shows
 * "connection closed" for a server that exits would hide the reason. Every tool call and `whoami` answer
 * with it instead, naming the URL and the variable to fix, and sign-in is tried again on each call.
 */

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a service that is not there yet", () => {
  let repo: RunningRepository | undefined;
  afterAll(() => repo?.close());

  it("serves anyway, says why on every call, and works once the service starts: no restart", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const client = await connectStdio("v2", {
      env: childEnv({ ...remoteEnv(`${url}/?apikey=do-not-show`), PRESERVATION_TOOL_TIMEOUT_SECS: "20" }),
    });
    try {
      expect(await client.listToolNames()).toContain("whoami");
      for (const tool of ["whoami", "search"]) {
        const res = await client.call(tool, tool === "search" ? { query: "map" } : {});
        expect(res.isError, tool).toBe(true);
        expect(res.text).toContain(`the repository service at ${url} cannot be reached (connection refused`);
        expect(res.text).toContain("Check PRESERVATION_URL");
        expect(res.text).not.toContain("do-not-show");
      }
      expect(client.stderr()).toContain("cannot be reached");
      expect(client.stderr()).not.toContain("do-not-show");

      repo = await startTestRepository({ seed: "demo", port });
      const me = await client.call("whoami");
      expect(me.isError, me.text).toBe(false);
      expect(me.structured).toMatchObject({ user: "curator", service: url });
      const found = await client.call("search", { query: "map" });
      expect(found.isError, found.text).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("a wrong password", () => {
  let repo: RunningRepository;
  afterAll(() => repo?.close());

  it("serves anyway; whoami and every tool say which variables to fix", async () => {
    repo = await startTestRepository({ seed: "demo" });
    const env = { ...remoteEnv(repo.url), PRESERVATION_PASSWORD: "not-it-at-all" };
    const client = await connectStdio("v1", { env: childEnv(env) });
    try {
      for (const tool of ["whoami", "search"]) {
        const res = await client.call(tool, tool === "search" ? { query: "map" } : {});
        expect(res.isError, tool).toBe(true);
        expect(res.text).toContain(
          `the repository service at ${repo.url} refused the username "${DEMO_USERS.curator.username}"`,
        );
        expect(res.text).toContain("Fix PRESERVATION_USERNAME or PRESERVATION_PASSWORD");
        expect(res.text).not.toContain("not-it-at-all");
      }
      expect(client.stderr()).not.toContain("not-it-at-all");
    } finally {
      await client.close();
    }
  });
});
