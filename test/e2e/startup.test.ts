import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { ALL_TOOLS } from "../../src/tools/index.js";
import { startTestRepository } from "../helpers/repository.js";
import {
  childEnv,
  connectStdio,
  demoDataDir,
  killStragglers,
  remoteEnv,
  spawnCli,
  tempDataDir,
} from "./helpers.js";

afterAll(killStragglers);

/** Start-up as a person meets it: bad configuration stops it at once, read-only mode shapes the tool list. */

describe("a bad configuration value", () => {
  // Should start-up get as far as the embedded service, it must not touch the real home directory.
  const data = tempDataDir();
  afterAll(() => data.cleanup());

  it.each([
    { env: { PRESERVATION_URL: "nope" }, names: "PRESERVATION_URL" },
    { env: { PRESERVATION_LOG_LEVEL: "loud" }, names: "PRESERVATION_LOG_LEVEL" },
    { env: { PRESERVATION_TOOLSETS: "bogus" }, names: "PRESERVATION_TOOLSETS" },
    { env: { PRESERVATION_READ_ONLY: "perhaps" }, names: "PRESERVATION_READ_ONLY" },
    {
      env: { PRESERVATION_URL: "http://127.0.0.1:9", PRESERVATION_USERNAME: "someone" },
      names: "PRESERVATION_PASSWORD",
    },
    { env: { PRESERVATION_TOOL_TIMEOUT_SECS: "soon" }, names: "PRESERVATION_TOOL_TIMEOUT_SECS" },
    {
      env: {
        PRESERVATION_URL: "http://someone:hunter2@127.0.0.1:9",
        PRESERVATION_USERNAME: "someone",
        PRESERVATION_PASSWORD: "hunter2",
      },
      names: "PRESERVATION_URL",
    },
  ])("$names: one stderr line naming it, exit code 2, nothing on stdout", async ({ env, names }) => {
    const cli = spawnCli([], childEnv({ PRESERVATION_DATA_DIR: data.dir, ...env }));
    cli.child.stdin?.end();
    expect(await cli.exitedWithin(10_000)).toBe(2);
    const lines = cli.stderr().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^preservation-mcp: ${names} `));
    expect(cli.stdout()).toBe("");
  });

  it.each([
    { args: ["--toolsets", "foo"], env: {}, names: "--toolsets", says: /unknown toolset "foo"/ },
    {
      args: [],
      env: { PRESERVATION_USERNAME: "nobody" },
      names: "PRESERVATION_USERNAME",
      says: /not a demo user/,
    },
    { args: ["--username", "nobody"], env: {}, names: "--username", says: /not a demo user/ },
    { args: ["--ingest-roots", "/nonexistent"], env: {}, names: "--ingest-roots", says: /does not exist/ },
    {
      args: ["--ingest-roots", `/${"very-long-folder-name/".repeat(30)}`],
      env: {},
      names: "--ingest-roots",
      says: /…", which does not exist/,
    },
  ])(
    "$names ($args): one stderr line naming it as given, exit code 2",
    async ({ args, env, names, says }) => {
      const cli = spawnCli(args, childEnv({ PRESERVATION_DATA_DIR: data.dir, ...env }));
      cli.child.stdin?.end();
      expect(await cli.exitedWithin(15_000)).toBe(2);
      const lines = cli.stderr().trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^preservation-mcp: ${names} `));
      expect(lines[0]).toMatch(says);
      // A path is echoed at most ~200 characters long.
      expect(lines[0]?.length).toBeLessThan(420);
    },
  );

  it("an unknown flag is a usage error too", async () => {
    const cli = spawnCli(["--no-such-flag"], childEnv({ PRESERVATION_DATA_DIR: data.dir }));
    expect(await cli.exitedWithin(10_000)).toBe(2);
    expect(cli.stderr().trim().split("\n")).toHaveLength(1);
    expect(cli.stderr()).toMatch(/no-such-flag/);
  });
});

/** Tools that write only to the person's side (the session, their disk): read-only mode keeps them. */
const LOCAL_ONLY = ALL_TOOLS.filter((t) => t.localOnly).map((t) => t.name);

describe("read-only mode", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
  });
  afterAll(() => repo?.close());

  it("--read-only lists only tools that change nothing in the repository (complete_sign_in stays)", async () => {
    const full = await connectStdio("v2", { env: childEnv(remoteEnv(repo.url)) });
    const readOnly = await connectStdio("v1", { env: childEnv(remoteEnv(repo.url)), args: ["--read-only"] });
    try {
      const all = await full.listTools();
      const some = await readOnly.listTools();
      // Signing in changes nothing in the repository: two-factor and temporary users must still finish it.
      expect(some.map((t) => t.name)).toContain("complete_sign_in");
      const stays = (t: { name: string; annotations?: Record<string, unknown> }) =>
        t.annotations?.readOnlyHint === true || LOCAL_ONLY.includes(t.name);
      for (const t of some) expect(stays(t), t.name).toBe(true);
      expect(all.some((t) => !stays(t))).toBe(true);
      // Nothing that changes nothing was lost on the way.
      expect(some.map((t) => t.name)).toEqual(all.filter(stays).map((t) => t.name));
    } finally {
      await full.close();
      await readOnly.close();
    }
  });

  it("PRESERVATION_READ_ONLY=true does the same", async () => {
    const client = await connectStdio("v2", {
      env: childEnv({ ...remoteEnv(repo.url), PRESERVATION_READ_ONLY: "true", PRESERVATION_TOOLSETS: "all" }),
    });
    try {
      const tools = await client.listTools();
      expect(tools.length).toBeGreaterThan(5);
      for (const t of tools) {
        expect(t.annotations?.readOnlyHint === true || LOCAL_ONLY.includes(t.name), t.name).toBe(true);
      }
    } finally {
      await client.close();
    }
  });
});

describe("an embedded demo user who must answer an e-mail challenge", () => {
  it("still starts, and says on stderr where the embedded service's mail is", async () => {
    const data = demoDataDir();
    const cli = spawnCli([], childEnv({ PRESERVATION_DATA_DIR: data.dir, PRESERVATION_USERNAME: "guest" }));
    try {
      const deadline = Date.now() + 15_000;
      while (!cli.stderr().includes("sign-in needs a person") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(cli.stderr()).toContain(`The embedded service's mail is in ${data.dir}/outbox.`);
      expect(cli.stdout()).toBe("");
    } finally {
      await cli.stop();
      data.cleanup();
    }
  });
});

describe("a wrong password against a running service", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository();
  });
  afterAll(() => repo?.close());

  it("serves on, and says so on stderr once, in one line without a stack trace", async () => {
    const env = childEnv({ ...remoteEnv(repo.url), PRESERVATION_PASSWORD: "not-the-password" });
    const cli = spawnCli([], env);
    try {
      const deadline = Date.now() + 15_000;
      while (!cli.stderr().includes("MCP over stdio") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const lines = cli.stderr().trim().split("\n");
      expect(lines.filter((l) => l.includes("Cannot sign in"))).toHaveLength(1);
      expect(cli.stderr()).toMatch(/refused the username \\?"curator\\?" and its password/);
      expect(cli.stderr()).not.toMatch(/"stack"|\n\s+at /);
      expect(cli.stderr()).not.toContain("not-the-password");
      expect(cli.stdout()).toBe("");
    } finally {
      await cli.stop();
    }
  });
});
