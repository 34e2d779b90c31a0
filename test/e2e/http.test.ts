import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { rawPost } from "../helpers/raw-post.js";
import { startTestRepository } from "../helpers/repository.js";
import {
  childEnv,
  connectHttp,
  killStragglers,
  LEGACY,
  MODERN,
  remoteEnv,
  type SpawnedCli,
  spawnCli,
  startHttp,
} from "./helpers.js";

afterAll(killStragglers);

/** Streamable HTTP at /mcp from the shipped CLI, with both client generations and the transport's guards. */

const post = rawPost;

/** Whether this machine can listen on the IPv6 loopback (containers without IPv6 cannot). */
function canListenOn(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(0, host, () => s.close(() => resolve(true)));
  });
}
const ipv6 = await canListenOn("::1");

let repo: RunningRepository;
beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
});
afterAll(() => repo?.close());

describe("Streamable HTTP on loopback", () => {
  let server: SpawnedCli & { url: string };
  beforeAll(async () => {
    server = await startHttp([], childEnv(remoteEnv(repo.url)));
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it("prints its URL on stderr and keeps stdout empty", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.stdout()).toBe("");
  });

  it.each([
    { era: "v2" as const, version: MODERN },
    { era: "v1" as const, version: LEGACY },
  ])("serves the $era client ($version): tools, whoami, search, a resource", async ({ era, version }) => {
    const client = await connectHttp(era, server.url);
    try {
      expect(client.protocolVersion()).toBe(version);
      const names = await client.listToolNames();
      expect(names).toContain("whoami");
      const me = await client.call("whoami");
      expect(me.structured).toMatchObject({ user: "curator" });
      expect(names).toContain("search");
      const found = await client.call("search", { query: "minutes" });
      expect(found.isError).toBe(false);
      const [root] = await client.readText("preservation://root");
      expect(JSON.parse(root ?? "{}").folders.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("refuses a foreign Origin with 403 (DNS rebinding) and accepts its own", async () => {
    const port = new URL(server.url).port;
    const foreign = await post(server.url, { origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const own = await post(server.url, { origin: `http://127.0.0.1:${port}` });
    expect(own.status).toBe(200);
    expect(own.body).toContain('"protocolVersion"');
  });

  it("refuses a foreign Host with 403", async () => {
    const res = await post(server.url, { host: "evil.example" });
    expect(res.status).toBe(403);
  });
});

describe.skipIf(!ipv6)(
  "Streamable HTTP on the IPv6 loopback (skipped: this machine cannot listen on ::1)",
  () => {
    // The URL spelling `[::1]` is what a user copies from a banner; config already calls it loopback.
    it.each(["[::1]", "::1"])(
      "--host %s serves a client at http://[::1]:port/mcp, Host/Origin checked",
      async (h) => {
        const server = await startHttp(["--host", h], childEnv(remoteEnv(repo.url)));
        try {
          const port = new URL(server.url).port;
          expect(server.url).toBe(`http://[::1]:${port}/mcp`);
          const client = await connectHttp("v2", server.url);
          try {
            expect((await client.call("whoami")).structured).toMatchObject({ user: "curator" });
          } finally {
            await client.close();
          }
          for (const name of ["[::1]", "localhost", "127.0.0.1"]) {
            const res = await post(server.url, { host: `${name}:${port}`, origin: `http://${name}:${port}` });
            expect(res.status, name).toBe(200);
          }
          expect((await post(server.url, { host: "evil.example" })).status).toBe(403);
          expect((await post(server.url, { origin: "http://evil.example" })).status).toBe(403);
        } finally {
          expect(await server.stop()).toBe(0);
        }
      },
    );
  },
);

describe("Streamable HTTP on a public interface", () => {
  it("will not start on 0.0.0.0 without PRESERVATION_HTTP_TOKEN: one stderr line naming it, exit 2", async () => {
    const cli = spawnCli(["--http", "--host", "0.0.0.0", "--port", "0"], childEnv(remoteEnv(repo.url)));
    expect(await cli.exitedWithin(10_000)).toBe(2);
    const lines = cli.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PRESERVATION_HTTP_TOKEN/);
    expect(cli.stdout()).toBe("");
  });

  it("with the token, refuses requests without the bearer (403, so clients show why instead of starting OAuth) and serves those with it", async () => {
    const token = "e2e-token-0123456789abcdef";
    const server = await startHttp(
      ["--host", "0.0.0.0"],
      childEnv({ ...remoteEnv(repo.url), PRESERVATION_HTTP_TOKEN: token }),
    );
    try {
      const url = server.url.replace("0.0.0.0", "127.0.0.1");
      const bare = await post(url, {});
      expect(bare.status).toBe(403);
      expect(bare.body).toMatch(/PRESERVATION_HTTP_TOKEN/);
      const wrong = await post(url, { authorization: `Bearer ${token.replace(/.$/, "x")}` });
      expect(wrong.status).toBe(403);
      // The refusal answers the request it refuses (id 1), not id null.
      expect(JSON.parse(wrong.body)).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -403 } });
      for (const era of ["v2", "v1"] as const) {
        const client = await connectHttp(era, url, { authorization: `Bearer ${token}` });
        try {
          expect((await client.call("whoami")).structured).toMatchObject({ user: "curator" });
        } finally {
          await client.close();
        }
      }
    } finally {
      await server.stop();
    }
  });
});
