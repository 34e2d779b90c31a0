import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { startIssuer, type TestIssuer } from "../helpers/oauth-issuer.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { DEMO_USERS, type DemoUser, startTestRepository } from "../helpers/repository.js";
import { childEnv, killStragglers, MODERN, type SpawnedCli, startHttp } from "./helpers.js";

afterAll(killStragglers);

/**
 * Person mode on a team of two instances behind one URL (as a load balancer spreads callers): both share a
 * real redis-server (PRESERVATION_STATE_URL) and the confirmation key, and accept tokens for one audience. A
 * person sent to sign in by one instance, signing in on the other's page, is then served as themselves by
 * both; a sign-out on one ends it on both. (The browser flow itself: person-identity.test.ts; here the page's
 * form is posted as a browser would.)
 */

const KEY = "person-instances-test-key-0123456789abcdef";
/** The URL clients use: a load balancer in front of both instances. */
const AUDIENCE = "http://127.0.0.1:9/mcp";

let redis: TestRedis;
let repo: RunningRepository;
let issuer: TestIssuer;
let a: SpawnedCli & { url: string };
let b: SpawnedCli & { url: string };

beforeAll(async () => {
  [redis, repo, issuer] = await Promise.all([
    startRedis(),
    startTestRepository({ seed: "none" }),
    startIssuer(),
  ]);
  const env = childEnv({
    PRESERVATION_URL: repo.url,
    PRESERVATION_OAUTH_ISSUER: issuer.issuer,
    PRESERVATION_OAUTH_JWKS_URL: issuer.jwksUrl,
    PRESERVATION_OAUTH_AUDIENCE: AUDIENCE,
    PRESERVATION_CONFIRM_KEY: KEY,
    PRESERVATION_STATE_URL: redis.url,
  });
  [a, b] = await Promise.all([
    startHttp(["--identity", "person"], env),
    startHttp(["--identity", "person"], env),
  ]);
}, 60_000);

afterAll(async () => {
  for (const s of [a, b]) await s?.stop();
  await repo?.close();
  await issuer?.close();
  await redis?.stop();
});

async function connect(server: { url: string }, sub: string) {
  const client = new Client(
    { name: "person-instances", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  const headers = { authorization: `Bearer ${issuer.token(sub, AUDIENCE)}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
  return {
    close: () => client.close(),
    async call(name: string) {
      const r = await client.callTool({ name, arguments: {} });
      const text = (r.content as { text?: string }[]).map((c) => c.text ?? "").join("\n");
      return { isError: r.isError === true, text, structured: r.structuredContent as { user?: string } };
    },
  };
}

/** The sign-in page's form, filled in and sent as a browser sends it (the page's cookie, its form token). */
async function signInOn(pageUrl: string, who: DemoUser): Promise<string> {
  const page = await fetch(pageUrl);
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const html = await page.text();
  const field = (name: string) => html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? "";
  const form = new URLSearchParams({
    state: field("state").replaceAll("&amp;", "&"),
    form_token: field("form_token"),
    step: "password",
    username: DEMO_USERS[who].username,
    password: DEMO_USERS[who].password,
    tenant: "",
  });
  const res = await fetch(new URL("/sign-in", pageUrl), { method: "POST", body: form, headers: { cookie } });
  return res.text();
}

describe("person mode on two instances sharing the state", { timeout: 60_000 }, () => {
  it("signed in through one instance's page, the person is served as themselves by both; sign_out on one ends both", async () => {
    const onB = await connect(b, "olga");
    const onA = await connect(a, "olga");
    try {
      const asked = await onB.call("whoami");
      expect(asked.isError).toBe(true);
      const link = asked.text.match(/(http:\/\/\S+\/sign-in\?state=\S+?)\s/)?.[1] ?? "";
      expect(link.startsWith("http://127.0.0.1:9/sign-in?state=")).toBe(true);
      // The load balancer sends the browser to instance A.
      const onPageOfA = link.replace("http://127.0.0.1:9", new URL(a.url).origin);
      expect(await signInOn(onPageOfA, "curator")).toMatch(/You can close this tab/);

      expect((await onB.call("whoami")).structured.user).toBe("curator");
      expect((await onA.call("whoami")).structured.user).toBe("curator");
      // Someone else on the same instances is still asked to sign in.
      const other = await connect(b, "pete");
      try {
        expect((await other.call("whoami")).isError).toBe(true);
      } finally {
        await other.close();
      }

      expect((await onA.call("sign_out")).text).toMatch(/Signed out: the repository session of curator/);
      const again = await onB.call("whoami");
      expect(again.isError).toBe(true);
      expect(again.text).toMatch(/sign-in\?state=/);
    } finally {
      await onA.close();
      await onB.close();
    }
  });
});
