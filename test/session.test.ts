import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { outboxDir } from "../repository/outbox.js";
import { DEMO_TOTP_SECRET } from "../repository/seed.js";
import type { RunningRepository } from "../repository/server.js";
import { revokeToken } from "../repository/store/tokens.js";
import { totp } from "../repository/totp.js";
import { ServiceError } from "../src/api/errors.js";
import { createLogger } from "../src/log.js";
import {
  ChallengeRequired,
  refreshMargin,
  Session,
  type SessionOptions,
  SignInFailed,
} from "../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "./helpers/repository.js";

/** Everything the session logged, as text, so tests can search it for secrets. */
function captureLog() {
  const lines: string[] = [];
  const logger = createLogger({ level: "trace", destination: { write: (s: string) => void lines.push(s) } });
  return { logger, text: () => lines.join("") };
}

/** Every access and refresh token the service ever issued (to search logs and serialisations for). */
function issuedSecrets(repo: RunningRepository): string[] {
  const rows = repo.svc.db.prepare("SELECT token, refresh_token FROM tokens").all() as {
    token: string;
    refresh_token: string;
  }[];
  return rows.flatMap((r) => [r.token, r.refresh_token]);
}

function currentToken(repo: RunningRepository, username: string): string {
  const row = repo.svc.db
    .prepare(
      "SELECT token FROM tokens WHERE username = ? AND revoked = 0 ORDER BY issued_at DESC, rowid DESC",
    )
    .get(username) as { token: string } | undefined;
  if (!row) throw new Error(`no live token for ${username}`);
  return row.token;
}

function details(session: Session) {
  return session.http.request<{ userName: string }>({
    path: "/api/user/details",
    accept: "application/json",
    operation: "user.details",
  });
}

const sessions: Session[] = [];
function open(repo: RunningRepository, opts: Partial<SessionOptions> = {}): Session {
  const s = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false, ...opts });
  sessions.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

describe("Session against the repository service", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ faults: true });
  });
  afterAll(() => repo.close());

  it("logs in with user details and says who it is, without the token", async () => {
    const session = open(repo);
    const before = Date.now();
    await session.login();
    const me = await session.whoAmI();
    expect(me.user).toBe("manager");
    expect(me.roles).toContain("ROLE_SDB_MANAGER_USER");
    expect(me.tenant).toBe("DEMO");
    expect(me.fullName).toBeTruthy();
    const expires = Date.parse(me.tokenExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    expect(JSON.stringify(me)).not.toContain(currentToken(repo, "manager"));
    expect(session.state.kind).toBe("active");
    expect(session.stats.logins).toBe(1);
  });

  it("logs in on first use and reuses the token", async () => {
    const session = open(repo);
    for (let i = 0; i < 5; i++) expect((await details(session)).data.userName).toBe("manager");
    expect(session.stats).toMatchObject({ logins: 1, refreshes: 0 });
  });

  it("reports wrong credentials as SignInFailed (cause: the 401) that does not contain the password", async () => {
    const session = open(repo, { password: "not-the-password-xyz" });
    const err = await session.login().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignInFailed);
    const failed = err as SignInFailed;
    expect(failed.problem).toBe("credentials-refused");
    const e = failed.cause;
    expect(e).toBeInstanceOf(ServiceError);
    expect(e.status).toBe(401);
    expect(e.operation).toBe("auth.login");
    expect(e.serviceMessage).toMatch(/invalid/i);
    for (const text of [
      failed.message,
      JSON.stringify(failed),
      inspect(failed),
      e.message,
      JSON.stringify(e),
      inspect(e),
      String(e.stack),
    ]) {
      expect(text).not.toContain("not-the-password-xyz");
    }
    // Requests share the failure instead of retrying the login in a loop.
    await expect(details(session)).rejects.toMatchObject({ problem: "credentials-refused" });
  });

  it("shares one refresh between concurrent requests when the token nears expiry", async () => {
    let now = Date.now();
    const session = open(repo, { clock: () => now });
    await session.login();
    const issued = issuedSecrets(repo).length;
    // Into the refresh window of a 15-minute token: 12.5 minutes on, 2.5 minutes left (< 3-minute margin).
    now += 12.5 * 60_000;
    const results = await Promise.all(Array.from({ length: 12 }, () => details(session)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(session.stats).toMatchObject({ logins: 1, refreshes: 1, failedRefreshes: 0 });
    expect(issuedSecrets(repo).length).toBe(issued + 2); // exactly one new token pair
  });

  it("gives the same frozen answer to who it is until the token changes, then a new one", async () => {
    let now = Date.now();
    const session = open(repo, { clock: () => now });
    await session.login();
    const first = await session.whoAmI();
    expect(await session.whoAmI()).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.roles)).toBe(true);
    // A refresh (12.5 minutes into a 15-minute token) gives a new token, so a new answer with its expiry.
    now += 12.5 * 60_000;
    await details(session);
    expect(session.stats.refreshes).toBe(1);
    const after = await session.whoAmI();
    expect(after).not.toBe(first);
    expect(Date.parse(after.tokenExpiresAt)).toBeGreaterThan(Date.parse(first.tokenExpiresAt));
    expect(after.roles).toEqual(first.roles);
  });

  it("lets a request in flight on the old token arrive before refreshing (the refresh revokes it)", async () => {
    const faults = repo.faults!;
    faults.clear();
    let now = Date.now();
    const session = open(repo, { clock: () => now });
    await session.login();
    // A slow, non-idempotent request (a 401 would not be retried): the service checks its token only after 300 ms.
    faults.inject({ path: "/api/content/search", method: "POST", delayMs: 300 });
    const slow = session.http.request({
      method: "POST",
      path: "/api/content/search",
      form: { q: "", max: 1 },
      operation: "content.search",
      idempotent: false,
    });
    await new Promise((r) => setTimeout(r, 50));
    now += 12.5 * 60_000; // the next request refreshes
    const [slowResult, fresh] = await Promise.all([slow, details(session)]);
    expect(slowResult.status).toBe(200);
    expect(fresh.status).toBe(200);
    expect(session.stats).toMatchObject({ logins: 1, refreshes: 1 });
    faults.clear();
  });

  it("logs in again when the refresh is refused", async () => {
    let now = Date.now();
    const session = open(repo, { clock: () => now });
    await session.login();
    // The service no longer knows the token (revoked on its side), and the client thinks it is time to refresh.
    revokeToken(repo.svc.db, currentToken(repo, "manager"));
    now += 13 * 60_000;
    expect((await details(session)).status).toBe(200);
    expect(session.stats).toMatchObject({ logins: 2, refreshes: 0, failedRefreshes: 1, reloginsAfter401: 0 });
  });

  it("logs in again, without trying a refresh, once the token has expired on the client's clock", async () => {
    let now = Date.now();
    const session = open(repo, { clock: () => now });
    await session.login();
    now += 16 * 60_000;
    expect((await details(session)).status).toBe(200);
    expect(session.stats).toMatchObject({ logins: 2, refreshes: 0, failedRefreshes: 0 });
  });

  it("logs in again when the session lifetime is reached, even with a live token", async () => {
    let now = Date.now();
    const session = open(repo, { clock: () => now, maxSessionLifetimeMins: 1 });
    await session.login();
    now += 30_000;
    await details(session);
    expect(session.stats.logins).toBe(1);
    now += 31_000;
    await details(session);
    expect(session.stats).toMatchObject({ logins: 2, refreshes: 0 });
    const me = await session.whoAmI();
    expect(Date.parse(me.sessionEndsAt) - Date.parse(me.sessionStartedAt)).toBe(60_000);
  });

  it("retries an idempotent request exactly once after a 401, with one new login", async () => {
    const session = open(repo);
    await session.login();
    revokeToken(repo.svc.db, currentToken(repo, "manager"));
    const results = await Promise.all(Array.from({ length: 5 }, () => details(session)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(session.stats).toMatchObject({ logins: 2, reloginsAfter401: 1 });
  });

  it("never loops on 401: one re-login, one retry, then the error", async () => {
    const faults = repo.faults!;
    faults.clear();
    const session = open(repo);
    await session.login();
    faults.inject({ path: "/api/user/details", status: 401, times: 10 });
    const err = (await details(session).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(401);
    expect(faults.hits.filter((h) => h.path === "/api/user/details")).toHaveLength(2);
    expect(session.stats).toMatchObject({ logins: 2, reloginsAfter401: 1 });
    faults.clear();
  });

  it("does not resend a non-idempotent request after a 401, and the next request logs in", async () => {
    const session = open(repo);
    await session.login();
    revokeToken(repo.svc.db, currentToken(repo, "manager"));
    const post = () =>
      session.http.request({
        method: "POST",
        path: "/api/content/search",
        form: { q: "harbour", max: 1 },
        operation: "content.search",
        idempotent: false,
      });
    await expect(post()).rejects.toMatchObject({ status: 401 });
    expect(session.stats.logins).toBe(1);
    expect((await post()).status).toBe(200);
    expect(session.stats.logins).toBe(2);
  });

  it("keeps secrets out of logs, errors and serialisations", async () => {
    const log = captureLog();
    let now = Date.now();
    const session = open(repo, { clock: () => now, logger: log.logger });
    await session.login();
    await details(session);
    now += 13 * 60_000; // refresh
    await details(session);
    revokeToken(repo.svc.db, currentToken(repo, "manager"));
    await details(session); // 401 → re-login
    const failing = open(repo, { password: "wrong-password-123", logger: log.logger });
    const loginError = await failing.login().catch((e: unknown) => e);
    const notFound = await session.http
      .request({
        path: "/api/entity/information-objects/00000000-0000-4000-8000-000000000000",
        operation: "entity.get",
      })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(ServiceError);

    const exposed = [
      log.text(),
      JSON.stringify(session),
      String(session),
      inspect(session, { depth: 10, showHidden: true }),
      JSON.stringify(failing),
      inspect(failing, { depth: 10 }),
      JSON.stringify(loginError),
      inspect(loginError),
      JSON.stringify(notFound),
      String(notFound),
      JSON.stringify(await session.whoAmI()),
      JSON.stringify(session.state),
    ].join("\n");
    expect(log.text()).toContain("logged in");
    const secrets = [DEMO_USERS.manager.password, "wrong-password-123", ...issuedSecrets(repo)];
    for (const secret of secrets) expect(exposed).not.toContain(secret);
  });
});

describe("Session with 3-second tokens", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ tokenTtlMs: 3000 });
  });
  afterAll(() => repo.close());

  it("chooses margins that fit both a 3 s and a 15 min token", () => {
    expect(refreshMargin(3000)).toBe(600);
    expect(refreshMargin(15 * 60_000)).toBe(180_000);
    expect(refreshMargin(1000)).toBe(500);
  });

  it("refreshes proactively through ~9 s of concurrent calls with no failure", async () => {
    const session = open(repo);
    await session.login();
    const me = await session.whoAmI();
    expect(Date.parse(me.tokenExpiresAt) - Date.now()).toBeLessThanOrEqual(3000);
    const until = Date.now() + 9000;
    let ok = 0;
    const failures: unknown[] = [];
    const worker = async (i: number) => {
      while (Date.now() < until) {
        try {
          // A mix of idempotent reads and non-idempotent POSTs: a 401 on a POST would not be retried.
          if (i % 2 === 0) await details(session);
          else
            await session.http.request({
              method: "POST",
              path: "/api/content/search",
              form: { q: "", max: 1 },
              operation: "content.search",
              idempotent: false,
            });
          ok++;
        } catch (err) {
          failures.push(err);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(100);
    expect(session.stats.refreshes).toBeGreaterThanOrEqual(2);
    expect(session.stats.logins).toBe(1);
    expect(session.stats.reloginsAfter401).toBe(0);
  }, 20_000);

  it("keeps an idle session alive with background refreshes", async () => {
    const session = open(repo, { keepAlive: true });
    await session.login();
    const signedInAt = Date.now();
    // The first background refresh comes before the 3-second token runs out: wait for it, then only until the
    // first token has expired (the session must still answer, on the refreshed token), not a fixed 5 s.
    await expect
      .poll(() => session.stats.refreshes, { timeout: 10_000, interval: 100 })
      .toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, Math.max(0, signedInAt + 3_300 - Date.now())));
    expect((await details(session)).status).toBe(200);
    expect(session.stats.logins).toBe(1);
  }, 15_000);
});

describe("Logins that need a person", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository();
  });
  afterAll(() => repo.close());

  function latestChallengeCode(username: string): string {
    const dir = outboxDir(repo.svc.dataDir);
    const last = readdirSync(dir)
      .filter((f) => f.endsWith(`-${username}.eml`))
      .sort()
      .at(-1);
    if (!last) throw new Error("no challenge mail");
    const code = readFileSync(join(dir, last), "utf8").match(/Challenge token: (\S+)/)?.[1];
    if (!code) throw new Error("no code in the mail");
    return code;
  }

  it("surfaces the e-mail challenge as a typed state and finishes it with the code", async () => {
    const log = captureLog();
    const session = open(repo, { ...DEMO_USERS.guest, logger: log.logger });
    const err = await session.login().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChallengeRequired);
    expect((err as ChallengeRequired).kind).toBe("email-challenge");
    expect((err as ChallengeRequired).prompt).toMatch(/e-mail/);
    expect(session.state.kind).toBe("challenge-required");
    // Requests fail with the same typed error, and do not send more e-mails.
    await expect(details(session)).rejects.toBeInstanceOf(ChallengeRequired);
    const mails = readdirSync(outboxDir(repo.svc.dataDir)).filter((f) => f.endsWith("-guest.eml")).length;

    const code = latestChallengeCode("guest");
    await session.completeChallenge(code);
    expect(session.state.kind).toBe("active");
    const me = await session.whoAmI();
    expect(me.user).toBe("guest");
    expect(me.roles.length).toBeGreaterThan(0);
    expect((await details(session)).data.userName).toBe("guest");
    expect(readdirSync(outboxDir(repo.svc.dataDir)).filter((f) => f.endsWith("-guest.eml"))).toHaveLength(
      mails,
    );
    expect(log.text()).not.toContain(code);
    expect(JSON.stringify(session)).not.toContain(code);
  });

  it("refuses a wrong challenge code and stays waiting for the right one (temporary-user login)", async () => {
    const session = open(repo, { ...DEMO_USERS.guest, temporaryUser: true });
    await expect(session.login()).rejects.toBeInstanceOf(ChallengeRequired);
    await expect(session.completeChallenge("WRONGCODE")).rejects.toMatchObject({ status: 401 });
    expect(session.state.kind).toBe("challenge-required");
    await session.completeChallenge(latestChallengeCode("guest"));
    expect(session.state.kind).toBe("active");
  });

  it("asks for a two-factor code and finishes with the authenticator's code", async () => {
    const log = captureLog();
    const session = open(repo, { username: "twofactor", password: "twofactor-demo-pw", logger: log.logger });
    const err = (await session.login().catch((e: unknown) => e)) as ChallengeRequired;
    expect(err).toBeInstanceOf(ChallengeRequired);
    expect(err.kind).toBe("two-factor");
    const state = session.state;
    expect(state.kind).toBe("challenge-required");
    await expect(session.complete2fa("000000")).rejects.toMatchObject({ status: 401 });
    expect(session.state.kind).toBe("challenge-required");
    await session.complete2fa(totp(DEMO_TOTP_SECRET, Date.now()));
    const me = await session.whoAmI();
    expect(me.user).toBe("twofactor");
    expect((await details(session)).status).toBe(200);
    // The continuation token is a secret too.
    const continuation = repo.svc.db.prepare("SELECT token FROM challenges WHERE kind = '2fa'").all() as {
      token: string;
    }[];
    const exposed = [
      log.text(),
      JSON.stringify(session),
      JSON.stringify(err),
      JSON.stringify(state),
      inspect(session),
    ];
    for (const { token } of continuation) for (const text of exposed) expect(text).not.toContain(token);
  });

  it("rejects completing a challenge that was never asked for", async () => {
    const session = open(repo);
    await expect(session.completeChallenge("ABC")).rejects.toThrow(/no e-mail challenge/i);
    await expect(session.complete2fa("123456")).rejects.toThrow(/no two-factor challenge/i);
  });
});
