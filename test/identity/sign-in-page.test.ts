import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxDir } from "../../repository/outbox.js";
import { DEMO_TOTP_SECRET } from "../../repository/seed.js";
import type { RunningRepository } from "../../repository/server.js";
import { totp } from "../../repository/totp.js";
import { SignInLinks } from "../../src/identity/links.js";
import { PersonSessions } from "../../src/identity/people.js";
import { MAX_TRIES, signInPage } from "../../src/identity/sign-in-page.js";
import { silentLogger } from "../../src/log.js";
import { MemoryState } from "../../src/state/memory.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

/**
 * The sign-in page's steps and refusals, through the page's own Hono app against a real repository service:
 * the e-mailed code of a temporary user, a wrong and a right two-factor code, a refused password, and what is
 * refused before anything reaches the service. (The whole flow in a real browser: test/e2e/person-identity.)
 */

const KEY = "sign-in-page-test-key-0123456789abcdef012";
let repo: RunningRepository;
let people: PersonSessions;
let page: ReturnType<typeof signInPage>;
const links = new SignInLinks(KEY);

beforeAll(async () => {
  repo = await startTestRepository();
  const state = new MemoryState();
  people = new PersonSessions({
    state,
    confirmKey: KEY,
    url: repo.url,
    maxSessionLifetimeMins: 480,
    logger: silentLogger,
  });
  page = signInPage({
    links,
    people,
    state,
    serviceUrl: repo.url,
    displayService: repo.url,
    secure: () => false,
    log: silentLogger,
  });
});
afterAll(async () => {
  await page.close();
  await people.close();
  await repo.close();
});

/** Opens a sign-in page for `subject` as a browser does: the form's fields, and the cookie it set. */
async function open(subject: string) {
  const { state } = links.issue(subject);
  const res = await page.app.request(`/sign-in?state=${encodeURIComponent(state)}`);
  expect(res.status).toBe(200);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const html = await res.text();
  const formToken = html.match(/name="form_token" value="([^"]*)"/)?.[1] ?? "";
  const post = async (fields: Record<string, string>, headers: Record<string, string> = {}) => {
    const r = await page.app.request("/sign-in", {
      method: "POST",
      body: new URLSearchParams({ state, form_token: formToken, ...fields }),
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
    });
    return { status: r.status, html: await r.text() };
  };
  return { post, cookie };
}

const challengeOf = (html: string) =>
  (html.match(/name="challenge" value="([^"]*)"/)?.[1] ?? "").replaceAll("&amp;", "&");

function latestMailedCode(username: string): string {
  const dir = outboxDir(repo.svc.dataDir);
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(`-${username}.eml`))
    .sort()
    .at(-1);
  const code = file && readFileSync(join(dir, file), "utf8").match(/Challenge token: (\S+)/)?.[1];
  if (!code) throw new Error("no challenge mail");
  return code;
}

describe("the sign-in page", () => {
  it("says whose assistant the sign-in is for (the token's name for the caller, else the subject), escaped", async () => {
    const page1 = await page.app.request(
      `/sign-in?state=${encodeURIComponent(links.issue("sub-1", "ada@example.org").state)}`,
    );
    expect(await page1.text()).toContain("signed in as <strong>ada@example.org</strong>");
    const page2 = await page.app.request(
      `/sign-in?state=${encodeURIComponent(links.issue("opaque-7f3e").state)}`,
    );
    expect(await page2.text()).toContain("signed in as <strong>opaque-7f3e</strong>");
    const page3 = await page.app.request(
      `/sign-in?state=${encodeURIComponent(links.issue("s", "<b>x</b>").state)}`,
    );
    expect(await page3.text()).toContain("signed in as <strong>&lt;b&gt;x&lt;/b&gt;</strong>");
  });

  it("a refused password: the form again, naming the user, never the password; nobody signed in", async () => {
    const p = await open("tess");
    const r = await p.post({ step: "password", username: "reader", password: "not-the-password" });
    expect(r.status).toBe(401);
    expect(r.html).toMatch(/The repository refused that user name, password or tenant/);
    expect(r.html).toMatch(/value="reader"/);
    expect(r.html).not.toContain("not-the-password");
    expect(await people.waitForSignIn("tess", 0)).toBe(false);
  });

  it("a temporary user: the password, then the code the service e-mailed, signs the caller in", async () => {
    const p = await open("uma");
    const first = await p.post({ step: "password", ...DEMO_USERS.guest, tenant: "" });
    expect(first.html).toMatch(/e-mailed a sign-in code to <strong>guest<\/strong>/);
    expect(first.html).not.toContain(DEMO_USERS.guest.password);
    const done = await p.post({
      step: "code",
      challenge: challengeOf(first.html),
      code: latestMailedCode("guest"),
    });
    expect(done.html).toMatch(/as <strong>Samuel Fairweather \(guest\)<\/strong>/);
    expect(done.html).toMatch(/You can close this tab/);
    expect(await people.waitForSignIn("uma", 0)).toBe(true);
  });

  it("two-factor: a wrong code asks again; the current one signs the caller in", async () => {
    const p = await open("vera");
    const first = await p.post({ step: "password", ...DEMO_USERS.twofactor });
    expect(first.html).toMatch(/Two-factor authentication is on for <strong>twofactor<\/strong>/);
    const step = challengeOf(first.html);
    const current = totp(DEMO_TOTP_SECRET, Date.now());
    const wrong = await p.post({
      step: "code",
      challenge: step,
      code: current === "000000" ? "111111" : "000000",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toMatch(/did not accept that code/);
    const done = await p.post({ step: "code", challenge: step, code: totp(DEMO_TOTP_SECRET, Date.now()) });
    expect(done.html).toMatch(/\(twofactor\)/);
    expect(await people.waitForSignIn("vera", 0)).toBe(true);
  });

  it("a step sealed for another page is refused", async () => {
    const mine = await open("walt");
    const theirs = await open("xena");
    const first = await theirs.post({ step: "password", ...DEMO_USERS.twofactor });
    const r = await mine.post({
      step: "code",
      challenge: challengeOf(first.html),
      code: totp(DEMO_TOTP_SECRET, Date.now()),
    });
    expect(r.status).toBe(400);
    expect(r.html).toMatch(/does not belong to this sign-in link/);
    expect(await people.waitForSignIn("walt", 0)).toBe(false);
  });

  it("refuses before asking the service: no cookie, a cross-site post, a form far too large, too many tries", async () => {
    const p = await open("yuri");
    expect((await p.post({ step: "password", ...DEMO_USERS.reader }, { cookie: "" })).status).toBe(403);
    expect(
      (await p.post({ step: "password", ...DEMO_USERS.reader }, { "sec-fetch-site": "cross-site" })).status,
    ).toBe(403);
    expect(
      (await p.post({ step: "password", username: "reader", password: "x".repeat(64 * 1024) })).status,
    ).toBe(413);
    for (let i = 0; i < MAX_TRIES; i++) {
      expect((await p.post({ step: "password", username: "reader", password: `wrong-${i}` })).status).toBe(
        401,
      );
    }
    const r = await p.post({ step: "password", ...DEMO_USERS.reader });
    expect(r.status).toBe(429);
    expect(await people.waitForSignIn("yuri", 0)).toBe(false);
  });
});
