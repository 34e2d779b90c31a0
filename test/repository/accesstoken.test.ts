import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxDir } from "../../repository/outbox.js";
import { DEMO_TOTP_SECRET } from "../../repository/seed.js";
import type { RunningRepository } from "../../repository/server.js";
import { totp } from "../../repository/totp.js";
import { authed, DEMO_USERS, login, startTestRepository } from "../helpers/repository.js";

function form(
  url: string,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(`${url}${path}`, { method: "POST", body: new URLSearchParams(fields), headers });
}

function latestChallengeCode(dataDir: string, username: string): string {
  const files = readdirSync(outboxDir(dataDir))
    .filter((f) => f.endsWith(`-${username}.eml`))
    .sort();
  const last = files.at(-1);
  if (!last) throw new Error("no challenge mail in the outbox");
  const m = readFileSync(join(outboxDir(dataDir), last), "utf8").match(/Challenge token: (\S+)/);
  if (!m?.[1]) throw new Error("no code in the challenge mail");
  return m[1];
}

describe("authentication API", () => {
  let repo: RunningRepository;
  let now = Date.now();
  beforeAll(async () => {
    // A controllable clock: expiry tests move time instead of sleeping.
    repo = await startTestRepository({ now: () => now, tokenTtlMs: 3000 });
  });
  afterAll(() => repo.close());

  it("logs in with form fields and reports a fractional validFor for sub-minute TTLs", async () => {
    const r = await login(repo.url, "manager");
    expect(r.success).toBe(true);
    expect(r.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(r["refresh-token"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.token).not.toContain("/");
    expect(r.validFor).toBe(0.05);
    expect(r.user).toBe("manager");
    expect(r.roles).toBeUndefined();
  });

  it("adds user details with includeUserDetails=true", async () => {
    const r = await login(repo.url, "manager", { includeUserDetails: "true" });
    expect(r.roles).toEqual(expect.arrayContaining(["ROLE_SDB_MANAGER_USER"]));
    expect(r.tenant).toBeTypeOf("string");
    expect(r.fullName).toBeTypeOf("string");
    expect(r.email).toMatch(/@/);
    expect(r.lastSuccessfulLogin).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d$/);
  });

  it("accepts a matching tenant and refuses a wrong one", async () => {
    const details = await login(repo.url, "reader", { includeUserDetails: "true" });
    await expect(login(repo.url, "reader", { tenant: String(details.tenant) })).resolves.toBeTruthy();
    const res = await form(repo.url, "/api/accesstoken/login", { ...DEMO_USERS.reader, tenant: "NOPE" });
    expect(res.status).toBe(401);
  });

  it("refuses bad credentials with 401 and a JSON message", async () => {
    const res = await form(repo.url, "/api/accesstoken/login", { username: "manager", password: "wrong" });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { success: boolean; message: string };
    expect(body.success).toBe(false);
    expect(body.message).toMatch(/invalid/i);
    const missing = await form(repo.url, "/api/accesstoken/login", { username: "manager" });
    expect(missing.status).toBe(401);
  });

  it("reads the form whatever the case of its Content-Type, and from multipart bodies", async () => {
    const upper = await fetch(`${repo.url}/api/accesstoken/login`, {
      method: "POST",
      body: new URLSearchParams({ ...DEMO_USERS.reader }).toString(),
      headers: { "Content-Type": "Application/X-WWW-Form-Urlencoded; Charset=UTF-8" },
    });
    expect(upper.status).toBe(200);
    const multipart = new FormData();
    multipart.set("username", DEMO_USERS.reader.username);
    multipart.set("password", DEMO_USERS.reader.password);
    const res = await fetch(`${repo.url}/api/accesstoken/login`, { method: "POST", body: multipart });
    expect(res.status).toBe(200);
  });

  it("accepts the token in all three headers and rejects a bad one with 401", async () => {
    const { token } = await login(repo.url, "reader");
    for (const headers of [
      { "Preservica-Access-Token": token } as Record<string, string>,
      { "Service-Access-Token": token },
      { Authorization: `Bearer ${token}` },
    ]) {
      const res = await fetch(`${repo.url}/api/user/details`, { headers });
      expect(res.status).toBe(200);
    }
    expect((await fetch(`${repo.url}/api/user/details`)).status).toBe(401);
    const bad = await fetch(`${repo.url}/api/user/details`, {
      headers: { "Preservica-Access-Token": "nope" },
    });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { message: string }).message).toMatch(/log in/i);
  });

  it("answers user details with roles", async () => {
    const { token } = await login(repo.url, "curator");
    const res = await authed(repo.url, token)("/api/user/details");
    const body = (await res.json()) as { roles: string[]; userName: string };
    expect(body.userName).toBe("curator");
    expect(body.roles).toContain("ROLE_SDB_DATA_MANAGEMENT_USER");
    expect(body.roles).not.toContain("ROLE_SDB_ADMIN_USER");
  });

  it("refreshes before expiry: new pair works, old token and old refresh token stop working", async () => {
    const first = await login(repo.url, "manager");
    const res = await form(
      repo.url,
      "/api/accesstoken/refresh",
      { refreshToken: first["refresh-token"] },
      { "Preservica-Access-Token": first.token },
    );
    expect(res.status).toBe(200);
    const second = (await res.json()) as typeof first;
    expect(second.token).not.toBe(first.token);
    expect(second["refresh-token"]).not.toBe(first["refresh-token"]);
    expect((await authed(repo.url, second.token)("/api/user/details")).status).toBe(200);
    expect((await authed(repo.url, first.token)("/api/user/details")).status).toBe(401);
    const reuse = await form(
      repo.url,
      "/api/accesstoken/refresh",
      { refreshToken: first["refresh-token"] },
      { "Preservica-Access-Token": first.token },
    );
    expect(reuse.status).toBe(401);
  });

  it("refuses a refresh token that belongs to another access token", async () => {
    const a = await login(repo.url, "manager");
    const b = await login(repo.url, "manager");
    const res = await form(
      repo.url,
      "/api/accesstoken/refresh",
      { refreshToken: b["refresh-token"] },
      { "Preservica-Access-Token": a.token },
    );
    expect(res.status).toBe(401);
  });

  it("expires tokens after the TTL and refuses a refresh after expiry", async () => {
    const r = await login(repo.url, "reader");
    now += 2000;
    expect((await authed(repo.url, r.token)("/api/user/details")).status).toBe(200);
    now += 1500;
    expect((await authed(repo.url, r.token)("/api/user/details")).status).toBe(401);
    const res = await form(
      repo.url,
      "/api/accesstoken/refresh",
      { refreshToken: r["refresh-token"] },
      { "Preservica-Access-Token": r.token },
    );
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toMatch(/expired/);
  });

  it("sends the guest an e-mail challenge and completes it (once) with a cookie on request", async () => {
    const res = await form(repo.url, "/api/accesstoken/acquire-temp-user", { ...DEMO_USERS.guest });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe("needs.email.challenge");
    const code = latestChallengeCode(repo.svc.dataDir, "guest");
    const done = await form(repo.url, "/api/accesstoken/complete-challenge", {
      challengeToken: code,
      cookie: "true",
    });
    expect(done.status).toBe(200);
    const body = (await done.json()) as { token: string; user: string };
    expect(body.user).toBe("guest");
    const cookie = done.headers.get("set-cookie") ?? "";
    expect(cookie).toContain(`Preservica-Access-Token=${body.token}`);
    expect(cookie).toMatch(/HttpOnly/i);
    const viaCookie = await fetch(`${repo.url}/api/user/details`, {
      headers: { Cookie: `Preservica-Access-Token=${body.token}` },
    });
    expect(viaCookie.status).toBe(200);
    const again = await form(repo.url, "/api/accesstoken/complete-challenge", { challengeToken: code });
    expect(again.status).toBe(401);
  });

  it("does not let a regular user through acquire-temp-user", async () => {
    const res = await form(repo.url, "/api/accesstoken/acquire-temp-user", { ...DEMO_USERS.reader });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toMatch(/not a temporary user/);
  });

  it("runs the 2FA flow: needs.2fa with a continuation token, then complete-2fa with a TOTP code", async () => {
    const res = await form(repo.url, "/api/accesstoken/login", {
      username: "twofactor",
      password: "twofactor-demo-pw",
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { message: string; continuationToken: string; tenant: string };
    expect(body.message).toBe("needs.2fa");
    const wrong = await form(repo.url, "/api/accesstoken/complete-2fa", {
      username: "twofactor",
      continuationToken: body.continuationToken,
      tenant: body.tenant,
      twoFactorToken: "000000" === totp(DEMO_TOTP_SECRET, now) ? "111111" : "000000",
    });
    expect(wrong.status).toBe(401);
    const ok = await form(repo.url, "/api/accesstoken/complete-2fa", {
      username: "twofactor",
      continuationToken: body.continuationToken,
      tenant: body.tenant,
      twoFactorToken: totp(DEMO_TOTP_SECRET, now),
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { user: string }).user).toBe("twofactor");
  });

  it("accepts the deprecated shared-secret login", async () => {
    const timestamp = String(Math.floor(now / 1000));
    const hash = createHash("sha1")
      .update(`preservica-external-auth${timestamp}readerdemo-shared-secret`)
      .digest("hex");
    const res = await form(repo.url, "/api/accesstoken/acquire-external", {
      username: "reader",
      timestamp,
      hash,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBe("true");
    const bad = await form(repo.url, "/api/accesstoken/acquire-external", {
      username: "reader",
      timestamp,
      hash: "00",
    });
    expect(bad.status).toBe(401);
  });

  it("refuses a refresh once the session lifetime is reached", async () => {
    const short = await startTestRepository({
      now: () => now,
      tokenTtlMs: 120_000,
      maxSessionLifetimeMins: 1,
    });
    try {
      let r = await login(short.url, "reader");
      now += 50_000;
      let res = await form(
        short.url,
        "/api/accesstoken/refresh",
        { refreshToken: r["refresh-token"] },
        {
          "Preservica-Access-Token": r.token,
        },
      );
      expect(res.status).toBe(200);
      r = (await res.json()) as typeof r;
      now += 20_000;
      res = await form(
        short.url,
        "/api/accesstoken/refresh",
        { refreshToken: r["refresh-token"] },
        {
          "Preservica-Access-Token": r.token,
        },
      );
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toMatch(/maximum lifetime/);
    } finally {
      await short.close();
    }
  });
});
