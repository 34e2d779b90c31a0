import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxDir } from "../repository/outbox.js";
import { DEMO_TOTP_SECRET } from "../repository/seed.js";
import type { RunningRepository } from "../repository/server.js";
import { totp } from "../repository/totp.js";
import { loadConfig } from "../src/config.js";
import { audienceFrom } from "../src/guards/visibility.js";
import { createLogger } from "../src/log.js";
import { buildServer, type ServerDeps } from "../src/server/server.js";
import { ChallengeRequired, Session } from "../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "./helpers/repository.js";

/** The newest challenge code the service "mailed" to a user (its outbox in the data directory). */
function latestCode(repo: RunningRepository, username: string): string {
  const dir = outboxDir(repo.svc.dataDir);
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(`-${username}.eml`))
    .sort()
    .at(-1);
  const code = file && readFileSync(join(dir, file), "utf8").match(/Challenge token: (\S+)/)?.[1];
  if (!code) throw new Error("no challenge mail");
  return code;
}

type Who = "guest" | "twofactor";

/** Our server with a session whose sign-in is waiting for a person, and a client with or without forms. */
async function connect(repo: RunningRepository, who: Who, answer?: () => string) {
  const { username, password } = DEMO_USERS[who];
  const log = createLogger({ level: "silent" });
  const config = loadConfig([], {
    PRESERVATION_URL: repo.url,
    PRESERVATION_USERNAME: username,
    PRESERVATION_PASSWORD: password,
  });
  const session = new Session({ url: repo.url, username, password, logger: log });
  await expect(session.login()).rejects.toBeInstanceOf(ChallengeRequired);
  const deps: ServerDeps = { config, session, log, audience: audienceFrom(config, undefined) };
  const server = buildServer(deps);
  const client = new Client(
    { name: "sign-in-test", version: "1.0.0" },
    answer ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler("elicitation/create", async (req) => {
      asked.push(String(req.params.message));
      return { action: "accept", content: { code: answer() } };
    });
  }
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  return {
    client,
    deps,
    asked,
    text: (res: Awaited<ReturnType<Client["callTool"]>>) =>
      (res.content as { text?: string }[]).map((c) => c.text ?? "").join(" "),
    async close() {
      await client.close();
      await server.close();
      await session.close();
    },
  };
}

describe("sign-in that needs a person", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository();
  });
  afterAll(() => repo.close());

  it("asks for the e-mail challenge code by elicitation, then runs the tool", async () => {
    const c = await connect(repo, "guest", () => latestCode(repo, "guest"));
    try {
      const res = await c.client.callTool({ name: "whoami", arguments: {} });
      expect(res.isError).toBeFalsy();
      expect((res.structuredContent as { user: string }).user).toBe("guest");
      expect(c.asked).toHaveLength(1);
      expect(c.asked[0]).toMatch(/guest/);
      expect(c.deps.audience.roles).toContain("ROLE_SDB_ACCESS_USER");
    } finally {
      await c.close();
    }
  });

  it("asks for the two-factor code by elicitation", async () => {
    const c = await connect(repo, "twofactor", () => totp(DEMO_TOTP_SECRET, Date.now()));
    try {
      const res = await c.client.callTool({ name: "whoami", arguments: {} });
      expect(res.isError).toBeFalsy();
      expect((res.structuredContent as { user: string }).user).toBe("twofactor");
    } finally {
      await c.close();
    }
  });

  it("says nothing was done when the code is wrong", async () => {
    const c = await connect(repo, "twofactor", () => "000000");
    try {
      const res = await c.client.callTool({ name: "whoami", arguments: {} });
      // One code in a million is the real one; a wrong code must not sign in.
      if (totp(DEMO_TOTP_SECRET, Date.now()) !== "000000") {
        expect(res.isError).toBe(true);
        expect(c.text(res)).toMatch(/not accepted.*nothing was done/);
      }
    } finally {
      await c.close();
    }
  });

  it("without elicitation, points to complete_sign_in, which finishes the sign-in", async () => {
    const c = await connect(repo, "guest");
    try {
      const first = await c.client.callTool({ name: "whoami", arguments: {} });
      expect(first.isError).toBe(true);
      expect(c.text(first)).toMatch(/complete_sign_in/);
      const done = await c.client.callTool({
        name: "complete_sign_in",
        arguments: { code: latestCode(repo, "guest") },
      });
      expect(done.isError).toBeFalsy();
      expect((done.structuredContent as { user: string }).user).toBe("guest");
      const again = await c.client.callTool({ name: "whoami", arguments: {} });
      expect(again.isError).toBeFalsy();
    } finally {
      await c.close();
    }
  });
});
