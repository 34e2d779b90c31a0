import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOTP_SECRET } from "../../repository/seed/users.js";
import type { RunningRepository } from "../../repository/server.js";
import { totp } from "../../repository/totp.js";
import { SignInLinks } from "../../src/identity/links.js";
import { startIssuer, type TestIssuer } from "../helpers/oauth-issuer.js";
import { DEMO_USERS, type DemoUser, startTestRepository } from "../helpers/repository.js";
import { tempDir } from "../helpers/temp-dir.js";
import { childEnv, killStragglers, MODERN, type SpawnedCli, spawnCli, startHttp } from "./helpers.js";

afterAll(killStragglers);

/**
 * Person mode (PRESERVATION_IDENTITY=person) end to end: the built server over HTTP with OAuth, a real
 * repository service, both client eras, and a real browser (Debian's chromium, headless, driven by
 * puppeteer-core; nothing downloaded) signing in on the server's own sign-in page.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CONFIRM_KEY = "person-mode-test-key-0123456789abcdef0123";

let repo: RunningRepository;
let issuer: TestIssuer;
let server: SpawnedCli & { url: string };
let browser: Browser;
let dir: string;
const secrets = new Set<string>();

/**
 * Whether a secret appears in a text. A six-digit sign-in code is a secret only as a number of its own: inside a
 * longer run of digits (an epoch time, a digest) it is there by chance (it happened), not a leak.
 */
function appears(secret: string, text: string): boolean {
  if (!/^\d{6}$/.test(secret)) return text.includes(secret);
  return new RegExp(`(?<![0-9])${secret}(?![0-9])`).test(text);
}
const answers: string[] = [];

beforeAll(async () => {
  dir = tempDir("pmcp-person-");
  [repo, issuer, browser] = await Promise.all([
    startTestRepository({ seed: "demo" }),
    startIssuer(),
    puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
    }),
  ]);
  server = await startHttp(
    ["--identity", "person"],
    childEnv({
      PRESERVATION_URL: repo.url,
      PRESERVATION_OAUTH_ISSUER: issuer.issuer,
      PRESERVATION_OAUTH_JWKS_URL: issuer.jwksUrl,
      PRESERVATION_CONFIRM_KEY: CONFIRM_KEY,
      PRESERVATION_AUDIT_LOG: join(dir, "audit.jsonl"),
      PRESERVATION_LOG_LEVEL: "debug",
      PRESERVATION_TOOLSETS: "all",
    }),
  );
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await repo?.close();
  await issuer?.close();
});

const auth = (sub: string, scope?: string) => ({
  authorization: `Bearer ${issuer.token(sub, server.url, scope)}`,
});

/** The browser on the sign-in page: user name and password (and the TOTP code when asked); the page's last text. */
async function signInWithBrowser(url: string, who: DemoUser): Promise<string> {
  const { username, password } = DEMO_USERS[who];
  secrets.add(password);
  const page = await browser.newPage();
  try {
    await page.goto(url);
    await page.type("#username", username);
    await page.type("#password", password);
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    if (await page.$("#code")) {
      const code = totp(DEMO_TOTP_SECRET, Date.now());
      secrets.add(code);
      await page.type("#code", code);
      await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    }
    return await page.$eval("body", (b) => (b as unknown as { innerText: string }).innerText);
  } finally {
    await page.close();
  }
}

function textOf(content: unknown): string {
  return Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? "").join("\n") : "";
}

/** A 2026-07-28 client that can open URLs: it hands each sign-in URL to `open`. */
async function modernClient(sub: string, open?: (url: string) => Promise<void>) {
  const client = new Client(
    { name: "person-e2e", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      ...(open ? { capabilities: { elicitation: { url: {} } } } : {}),
    },
  );
  const asked: { url: string; message: string }[] = [];
  if (open) {
    client.setRequestHandler("elicitation/create", async (req) => {
      const p = req.params as { mode?: string; url?: string; message?: string };
      expect(p.mode).toBe("url");
      asked.push({ url: String(p.url), message: String(p.message) });
      await open(String(p.url));
      return { action: "accept" };
    });
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: auth(sub) } }),
  );
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name, arguments: args });
    const text = textOf(r.content);
    answers.push(text);
    return { isError: r.isError === true, text, structured: r.structuredContent as Record<string, unknown> };
  };
  return { client, asked, call, tools: async () => (await client.listTools()).tools.map((t) => t.name) };
}

/** A 2025-11-25 client (SDK 1.x) over HTTP. */
async function legacyClient(sub: string) {
  const client = new V1Client(
    { name: "person-e2e-v1", version: "1.0.0" },
    { capabilities: { elicitation: { url: {} } } },
  );
  await client.connect(new V1HttpTransport(new URL(server.url), { requestInit: { headers: auth(sub) } }));
  return client;
}

it("identity person over stdio is a configuration error: one line, exit 2", async () => {
  const cli = spawnCli(["--identity", "person"], childEnv({}));
  expect(await cli.exitedWithin(15_000)).toBe(2);
  expect(cli.stderr().trim().split("\n")).toHaveLength(1);
  expect(cli.stderr()).toMatch(/--identity person needs --http with OAuth/);
});

describe("person mode: each caller signs in as themselves", { timeout: 60_000 }, () => {
  it("2026-07-28: a tool call asks by URL elicitation; the browser signs in through two-factor; the call runs as that person", async () => {
    let page = "";
    const c = await modernClient("alice", async (url) => {
      page = await signInWithBrowser(url, "twofactor");
    });
    try {
      const me = await c.call("whoami");
      expect(c.asked).toHaveLength(1);
      expect(c.asked[0]?.url.startsWith(`${new URL(server.url).origin}/sign-in?state=`)).toBe(true);
      expect(page).toMatch(/signed in to the repository .* as Priya Raman \(twofactor\)/);
      expect(page).toMatch(/You can close this tab/);
      expect(me.isError).toBe(false);
      expect(me.structured.user).toBe("twofactor");
      // Signed in now: the next call runs without asking.
      expect((await c.call("whoami")).structured.user).toBe("twofactor");
      expect(c.asked).toHaveLength(1);
    } finally {
      await c.client.close();
    }
  });

  it("2025-11-25: the call fails with -32042 and the URL; after the browser signs in, the retried call runs as that person", async () => {
    const client = await legacyClient("bob");
    try {
      const err = await client.callTool({ name: "whoami", arguments: {} }).then(
        () => undefined,
        (e: { code?: number; data?: { elicitations?: { url: string; mode: string }[] } }) => e,
      );
      expect(err?.code).toBe(-32042);
      const url = err?.data?.elicitations?.[0]?.url ?? "";
      expect(err?.data?.elicitations?.[0]?.mode).toBe("url");
      expect(await signInWithBrowser(url, "reader")).toMatch(/as Ruth Albright \(reader\)/);
      const me = await client.callTool({ name: "whoami", arguments: {} });
      expect((me.structuredContent as { user: string }).user).toBe("reader");
    } finally {
      await client.close();
    }
  });

  it("a reader and a manager see different tool lists; the service's events name each person", async () => {
    const manager = await modernClient(
      "carol",
      async (url) => void (await signInWithBrowser(url, "manager")),
    );
    const reader = await modernClient("dave", async (url) => void (await signInWithBrowser(url, "reader")));
    try {
      // Not signed in yet: no role-gated tool is listed.
      expect(await manager.tools()).not.toContain("create_folder");
      expect((await manager.call("whoami")).structured.user).toBe("manager");
      expect((await reader.call("whoami")).structured.user).toBe("reader");
      const managerTools = await manager.tools();
      const readerTools = await reader.tools();
      for (const t of ["create_folder", "delete_entity", "manage_user"]) {
        expect(managerTools).toContain(t);
        expect(readerTools).not.toContain(t);
      }
      expect(readerTools).toContain("search");

      const made = await manager.call("create_folder", { title: "Made by the manager", securityTag: "open" });
      expect(made.isError).toBe(false);
      const ref = (made.structured.folder as { ref: string }).ref;
      const events = await reader.call("list_events", { ref });
      const users = (events.structured.events as { user: string }[]).map((e) => e.user);
      expect(users.length).toBeGreaterThan(0);
      expect(new Set(users)).toEqual(new Set(["manager"]));
    } finally {
      await manager.client.close();
      await reader.client.close();
    }
  });

  it("a page opened for one caller cannot sign in another; a changed page is refused", async () => {
    // A client without URL elicitation gets the link in the tool's text.
    const erin = await modernClient("erin");
    const frank = await modernClient("frank");
    try {
      const asked = await erin.call("whoami");
      expect(asked.isError).toBe(true);
      const erinUrl = asked.text.match(/(http:\/\/\S+\/sign-in\?state=\S+?)\s/)?.[1] ?? "";
      expect(erinUrl).not.toBe("");
      const frankUrl =
        (await frank.call("whoami")).text.match(/(http:\/\/\S+\/sign-in\?state=\S+?)\s/)?.[1] ?? "";

      // A state changed by one character does not open.
      const tampered = new URL(erinUrl);
      const state = tampered.searchParams.get("state") ?? "";
      tampered.searchParams.set(
        "state",
        `${state.slice(0, -3)}${state.at(-3) === "A" ? "B" : "A"}${state.slice(-2)}`,
      );
      const bad = await fetch(tampered);
      expect(bad.status).toBe(400);
      // Every page: no framing, nothing loaded from anywhere, not cached, no referrer.
      const good = await fetch(frankUrl);
      for (const res of [bad, good]) {
        expect(res.headers.get("x-frame-options")).toBe("DENY");
        expect(res.headers.get("content-security-policy")).toMatch(
          /default-src 'none'.*frame-ancestors 'none'/,
        );
        expect(res.headers.get("cache-control")).toBe("no-store");
        expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      }
      expect(good.headers.get("set-cookie")).toMatch(/HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/i);
      expect(await good.text()).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);

      // Erin's form with Frank's state: the form token belongs to Erin's page, so nothing signs in.
      const page = await browser.newPage();
      try {
        await page.goto(erinUrl);
        await page.type("#username", DEMO_USERS.curator.username);
        await page.type("#password", DEMO_USERS.curator.password);
        const frankState = new URL(frankUrl).searchParams.get("state") ?? "";
        await page.$eval(
          "input[name=state]",
          (el, v) => {
            (el as unknown as { value: string }).value = v as string;
          },
          frankState,
        );
        const [res] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
        expect(res?.status()).toBe(403);
      } finally {
        await page.close();
      }
      expect((await frank.call("whoami")).isError).toBe(true);

      // Erin's own page signs Erin in, and only Erin.
      secrets.add(DEMO_USERS.curator.password);
      expect(await signInWithBrowser(erinUrl, "curator")).toMatch(/\(curator\)/);
      expect((await erin.call("whoami")).structured.user).toBe("curator");
      expect((await frank.call("whoami")).isError).toBe(true);
    } finally {
      await erin.client.close();
      await frank.client.close();
    }
  });

  it("a used page is refused when opened or sent again; an expired one is refused", async () => {
    const grace = await modernClient("grace");
    try {
      const url = (await grace.call("whoami")).text.match(/(http:\/\/\S+\/sign-in\?state=\S+?)\s/)?.[1] ?? "";
      const page = await browser.newPage();
      try {
        await page.goto(url);
        await page.type("#username", DEMO_USERS.reader.username);
        await page.type("#password", DEMO_USERS.reader.password);
        await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
        expect(await page.$eval("body", (b) => (b as unknown as { innerText: string }).innerText)).toMatch(
          /You can close this tab/,
        );
        // Back to the form and send it again: the link signed in once already.
        await page.goBack();
        const again = await page.goto(url);
        expect(again?.status()).toBe(410);
        expect(await page.$eval("body", (b) => (b as unknown as { innerText: string }).innerText)).toMatch(
          /used already/,
        );
      } finally {
        await page.close();
      }
      const replayed = await fetch(url);
      expect(replayed.status).toBe(410);

      // A link sealed with this server's key, for this caller, but past its expiry.
      const old = new SignInLinks(CONFIRM_KEY, () => Date.now() - 11 * 60_000).issue("grace");
      const expired = await fetch(
        `${new URL(server.url).origin}/sign-in?state=${encodeURIComponent(old.state)}`,
      );
      expect(expired.status).toBe(410);
      expect(await expired.text()).toMatch(/expired/);
    } finally {
      await grace.client.close();
    }
  });

  it("sign_out ends the person's session; the next call asks again", async () => {
    let opened = 0;
    const heidi = await modernClient("heidi", async (url) => {
      opened++;
      await signInWithBrowser(url, "reader");
    });
    try {
      expect((await heidi.call("whoami")).structured.user).toBe("reader");
      const out = await heidi.call("sign_out");
      expect(out.text).toMatch(/Signed out: the repository session of reader/);
      expect((await heidi.call("whoami")).structured.user).toBe("reader");
      expect(opened).toBe(2);
    } finally {
      await heidi.client.close();
    }
  });

  it("the service itself refuses a write the person's own roles no longer allow; the audit entry names the person", async () => {
    const manager = await modernClient("ivan", async (url) => void (await signInWithBrowser(url, "manager")));
    const curator = await modernClient("judy", async (url) => void (await signInWithBrowser(url, "curator")));
    try {
      expect((await manager.call("whoami")).structured.user).toBe("manager");
      expect((await curator.call("whoami")).structured.user).toBe("curator");
      expect(await curator.tools()).toContain("create_folder");
      // A confirmation is bound to the person who saw the preview: the manager's token does not work for the curator.
      const folder = await manager.call("create_folder", {
        title: "Confirmations are personal",
        securityTag: "open",
      });
      const folderRef = (folder.structured.folder as { ref: string }).ref;
      await manager.call("create_folder", { title: "Inside it", parent: folderRef });
      const retag = { ref: folderRef, tag: "closed", includeDescendants: true };
      const planned = await manager.call("set_security_tag", retag);
      const managersToken = (planned.structured.confirmationRequired as { token: string }).token;
      const borrowed = await curator.call("set_security_tag", { ...retag, confirmation: managersToken });
      expect(borrowed.isError).toBe(true);
      expect(borrowed.text).toMatch(/issued to another user; nothing was changed/);
      // The manager takes the curator's curation rights away in the repository (a confirmed change).
      const setRoles = { user: "curator", action: "set_roles", roles: ["SDB_ACCESS_USER"] };
      const preview = await manager.call("manage_user", setRoles);
      const token = (preview.structured.confirmationRequired as { token: string }).token;
      expect((await manager.call("manage_user", { ...setRoles, confirmation: token })).isError).toBe(false);
      try {
        // The curator's session still lists the tool, but the call goes out with the curator's own token.
        const refused = await curator.call("create_folder", {
          title: "Not allowed any more",
          securityTag: "open",
        });
        expect(refused.isError).toBe(true);
        // The service's own refusal, naming the person it saw: not a guard of ours.
        expect(refused.text).toMatch(/The service said: "User curator lacks the Ingest permission/);
      } finally {
        const restore = {
          user: "curator",
          action: "set_roles",
          roles: ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"],
        };
        const p = await manager.call("manage_user", restore);
        const t = (p.structured.confirmationRequired as { token: string }).token;
        await manager.call("manage_user", { ...restore, confirmation: t });
      }
      const audit = readFileSync(join(dir, "audit.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { user: string; tool: string; outcome: string });
      expect(audit).toContainEqual(
        expect.objectContaining({ user: "curator", tool: "create_folder", outcome: "refused" }),
      );
      expect(audit).toContainEqual(
        expect.objectContaining({ user: "manager", tool: "manage_user", outcome: "done" }),
      );
      expect(audit).toContainEqual(
        expect.objectContaining({ user: "manager", tool: "create_folder", outcome: "done" }),
      );
    } finally {
      await manager.client.close();
      await curator.client.close();
    }
  });

  it("nothing secret in the server's log, the answers or the audit trail", () => {
    const tokens = (
      repo.svc.db.prepare("SELECT token, refresh_token FROM tokens").all() as {
        token: string;
        refresh_token: string;
      }[]
    ).flatMap((r) => [r.token, r.refresh_token]);
    expect(tokens.length).toBeGreaterThan(5);
    const places = {
      log: server.stderr(),
      answers: answers.join("\n"),
      audit: readFileSync(join(dir, "audit.jsonl"), "utf8"),
    };
    expect(places.log).toMatch(/a person signed in on the sign-in page/);
    for (const [where, text] of Object.entries(places)) {
      for (const secret of [...secrets, ...tokens, DEMO_TOTP_SECRET]) {
        if (appears(secret, text))
          throw new Error(`a secret (${secret.slice(0, 3)}…) appears in the ${where}`);
      }
      expect(text).not.toMatch(/ps1\./);
    }
  });
});
