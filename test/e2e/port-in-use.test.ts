import { readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/process.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("a port already in use", () => {
  let blocker: Server;
  let port: number;
  const dataDir = tempDir("pmcp-port-test-");
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  });

  it("stops the repository service with one line that says what to do, its temporary store removed", async () => {
    const tmp = tempDir("pmcp-port-tmp-");
    const r = await runCli(["repository", "--seed", "none", "--port", String(port)], {
      env: { ...process.env, TMPDIR: tmp } as Record<string, string>,
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `preservation-mcp: port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one)`,
    );
    expect(r.stdout).toBe("");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("stops the MCP server (and its embedded service) instead of hanging", async () => {
    const r = await runCli([
      "--http",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--log-level",
      "silent",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/port \d+ on 127\.0\.0\.1 is already in use; choose another with --port/);
  });
});
