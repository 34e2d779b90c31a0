import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOTP_SECRET } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import { totp } from "../../../repository/totp.js";
import { loadConfig } from "../../../src/config.js";
import { audienceFrom } from "../../../src/guards/visibility.js";
import { createLogger } from "../../../src/log.js";
import { buildServer } from "../../../src/server/server.js";
import { ChallengeRequired, Session } from "../../../src/session/session.js";
import { textOf } from "../../helpers/mcp.js";
import { DEMO_USERS, startTestRepository } from "../../helpers/repository.js";

/**
 * `complete_sign_in` as a model uses it when the client cannot show a form: a wrong code must say that the
 * code was wrong and what to ask the person for, not blame the configured credentials, and must leave the
 * sign-in pending so the right code still works.
 */

async function connect(repo: RunningRepository, who: "twofactor" | "guest") {
  const { username, password } = DEMO_USERS[who];
  const log = createLogger({ level: "silent" });
  const config = loadConfig([], {
    PRESERVATION_URL: repo.url,
    PRESERVATION_USERNAME: username,
    PRESERVATION_PASSWORD: password,
  });
  const session = new Session({ url: repo.url, username, password, logger: log });
  await expect(session.login()).rejects.toBeInstanceOf(ChallengeRequired);
  const server = buildServer({ config, session, log, audience: audienceFrom(config, undefined) });
  const client = new Client({ name: "complete-sign-in-test", version: "1.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  return {
    call: (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }),
    async close() {
      await client.close();
      await server.close();
      await session.close();
    },
  };
}

/** A six-digit code that is not the current TOTP code (nor the ones either side of it). */
function wrongCode(): string {
  const now = Date.now();
  const valid = new Set([-30_000, 0, 30_000].map((d) => totp(DEMO_TOTP_SECRET, now + d)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, "0");
    if (!valid.has(code)) return code;
  }
}

describe("complete_sign_in", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository();
  });
  afterAll(() => repo.close());

  it("says a wrong two-factor code was not accepted and what to ask for; the right code then works", async () => {
    const c = await connect(repo, "twofactor");
    try {
      const wrong = await c.call("complete_sign_in", { code: wrongCode() });
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toMatch(
        /^The code was not accepted.*; sign-in is still pending\. Ask the person for the code the authenticator app shows now and call `complete_sign_in` again\.$/,
      );
      expect(textOf(wrong)).not.toMatch(/credentials/);
      const right = await c.call("complete_sign_in", { code: totp(DEMO_TOTP_SECRET, Date.now()) });
      expect(right.isError, textOf(right)).toBeFalsy();
      expect((right.structuredContent as { user: string }).user).toBe("twofactor");
    } finally {
      await c.close();
    }
  });

  it("says a wrong e-mail challenge code was not accepted and points to the newest e-mail", async () => {
    const c = await connect(repo, "guest");
    try {
      const wrong = await c.call("complete_sign_in", { code: "not-the-code" });
      expect(wrong.isError).toBe(true);
      expect(textOf(wrong)).toMatch(/^The code was not accepted.*the code from the newest challenge e-mail/);
    } finally {
      await c.close();
    }
  });
});
