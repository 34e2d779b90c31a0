import { tmpdir } from "node:os";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOTP_SECRET } from "../../repository/seed.js";
import { totp } from "../../repository/totp.js";
import { loadConfig } from "../../src/config.js";
import { audienceFrom } from "../../src/guards/visibility.js";
import { createLogger } from "../../src/log.js";
import { buildServer } from "../../src/server/server.js";
import { ChallengeRequired, Session } from "../../src/session/session.js";
import { ALL_TOOLS } from "../../src/tools/index.js";
import { startMcp } from "../helpers/mcp.js";
import { DEMO_USERS } from "../helpers/repository.js";
import { useRepository } from "../helpers/use-mcp.js";

/**
 * The signed-in user's roles decide which tools are listed, and the list follows them: while a sign-in
 * challenge is pending the roles are unknown and role-gated tools are hidden; once the person completes it,
 * the server adds the tools the roles allow and tells the client (notifications/tools/list_changed).
 */

const curatorTools = ALL_TOOLS.filter((t) => t.requiredRoles && !t.requires).map((t) => t.name);

describe("role-aware tool lists", () => {
  const repo = useRepository({ seed: "none" });
  beforeAll(() => {
    // A curator who signs in with two-factor codes: the demo's two-factor user, given the curator's role.
    repo.svc.db
      .prepare("UPDATE users SET roles = ? WHERE username = 'twofactor'")
      .run(JSON.stringify(["ROLE_SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"]));
  });

  it("has curation tools that need a role", () => {
    expect(curatorTools.length).toBeGreaterThanOrEqual(3);
  });

  it("shows a reader no tool their roles cannot use, and a curator the curation tools", async () => {
    const reader = await startMcp({ user: "reader", repo, flags: ["--toolsets", "all"] });
    const curator = await startMcp({ user: "curator", repo, flags: ["--toolsets", "all"] });
    try {
      const readerTools = (await reader.client.listTools()).tools.map((t) => t.name);
      expect(readerTools.filter((n) => curatorTools.includes(n))).toEqual([]);
      expect(readerTools).toContain("search");
      const curatorList = (await curator.client.listTools()).tools.map((t) => t.name);
      const managerOnly = ALL_TOOLS.filter(
        (t) => t.requiredRoles && !t.requiredRoles.includes("ROLE_SDB_DATA_MANAGEMENT_USER"),
      );
      for (const t of managerOnly) expect(curatorList).not.toContain(t.name);
      expect(curatorList).toContain("create_folder");
    } finally {
      await reader.close();
      await curator.close();
    }
  });

  it("lists no tool that changes the repository in read-only mode, even to a manager with everything on", async () => {
    const ro = await startMcp({
      user: "manager",
      repo,
      flags: ["--read-only", "--toolsets", "all", "--download-dir", tmpdir(), "--ingest-roots", tmpdir()],
    });
    try {
      const listed = (await ro.client.listTools()).tools;
      const writers = listed.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
      // What stays changes nothing in the repository: signing in, saving files to the person's disk.
      const localOnly = ALL_TOOLS.filter((t) => t.localOnly).map((t) => t.name);
      expect(writers.filter((n) => !localOnly.includes(n))).toEqual([]);
      expect(writers).toContain("complete_sign_in");
      expect(listed.map((t) => t.name)).toContain("search");
    } finally {
      await ro.close();
    }
  });

  it("adds the role's tools after a sign-in challenge, telling the client the list changed", async () => {
    const { username, password } = DEMO_USERS.twofactor;
    const log = createLogger({ level: "silent" });
    const config = loadConfig(["--toolsets", "all"], {
      PRESERVATION_URL: repo.url,
      PRESERVATION_USERNAME: username,
      PRESERVATION_PASSWORD: password,
    });
    const session = new Session({ url: repo.url, username, password, logger: log });
    await expect(session.login()).rejects.toBeInstanceOf(ChallengeRequired);
    const server = buildServer({ config, session, log, audience: audienceFrom(config, undefined) });
    let changed = 0;
    const client = new Client(
      { name: "role-aware-test", version: "1.0.0" },
      { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void changed++ } } },
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    try {
      const before = (await client.listTools()).tools.map((t) => t.name);
      expect(before).toContain("complete_sign_in");
      expect(before).not.toContain("create_folder");
      const done = await client.callTool({
        name: "complete_sign_in",
        arguments: { code: totp(DEMO_TOTP_SECRET, Date.now()) },
      });
      expect(done.isError).toBeFalsy();
      await expect.poll(() => changed).toBeGreaterThan(0);
      const after = (await client.listTools()).tools.map((t) => t.name);
      expect(after).toContain("create_folder");
      expect(after.filter((n) => !before.includes(n)).sort()).toEqual(
        ALL_TOOLS.filter(
          (t) =>
            t.requiredRoles?.includes("ROLE_SDB_DATA_MANAGEMENT_USER") &&
            !t.requires &&
            before.indexOf(t.name) < 0,
        )
          .map((t) => t.name)
          .sort(),
      );
    } finally {
      await client.close();
      await server.close();
      await session.close();
    }
  });
});
