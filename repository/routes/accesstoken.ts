import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "hono";
import { setCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import type { AppEnv, ServiceContext } from "../context.js";
import { tokenFromHeaders } from "../http/auth-middleware.js";
import { flag, type Params, requestParams } from "../http/params.js";
import { sendMail } from "../outbox.js";
import { checkPassword, getUser, recordLogin, type User } from "../store/auth.js";
import { authConfiguration } from "../store/system/read.js";
import { issueToken, liveToken, revokeToken, type TokenRow } from "../store/tokens.js";
import { verifyTotp } from "../totp.js";

/**
 * Authentication API. Failures are 401 with a JSON body carrying `success:false` and a `message`
 * (clients call .json() on failures, and branch on `needs.email.challenge` / `needs.2fa`).
 */

export const ACCESS_TOKEN_COOKIE = "Preservica-Access-Token";
const CHALLENGE_TTL_MS = 15 * 60_000;
const TWO_FACTOR_TTL_MS = 5 * 60_000;
const EXTERNAL_AUTH_WINDOW_S = 300;

function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "+00:00");
}

function fail(c: Context, message: string, extra: Record<string, unknown> = {}) {
  return c.json({ success: false, message, ...extra }, 401);
}

/** The login result: validFor in minutes, fractional when the TTL is under a minute (test-only extension). */
function loginResult(user: User, row: TokenRow, includeUserDetails: boolean, previousLogin: string | null) {
  const result: Record<string, unknown> = {
    success: true,
    token: row.token,
    "refresh-token": row.refresh_token,
    validFor: (row.expires_at - row.issued_at) / 60_000,
    user: user.username,
  };
  if (includeUserDetails) {
    Object.assign(result, {
      fullName: user.fullName,
      email: user.email,
      tenant: user.tenant,
      roles: user.roles,
      lastSuccessfulLogin: isoWithOffset(previousLogin ? Date.parse(previousLogin) : row.issued_at),
    });
  }
  return result;
}

/** The session lifetime in force: the Authentication Management API's setting, else the start-up option. */
function sessionLifetimeMs(svc: ServiceContext): number {
  return authConfiguration(svc.db, svc.maxSessionLifetimeMins).maxSessionLifetimeMins * 60_000;
}

function startSession(c: Context<AppEnv>, user: User, includeUserDetails: boolean) {
  const svc = c.get("svc");
  const now = svc.now();
  const row = issueToken(svc.db, user.username, svc.tokenTtlMs, now, now, sessionLifetimeMs(svc));
  const previous = user.lastLogin;
  recordLogin(svc.db, user.username, new Date(now));
  return loginResult(user, row, includeUserDetails, previous);
}

/** A session that a completed challenge starts: with user details, and the token as a cookie on request. */
function startChallengedSession(c: Context<AppEnv>, user: User, p: Params) {
  const result = startSession(c, user, true);
  if (flag(p.get("cookie"))) {
    setCookie(c, ACCESS_TOKEN_COOKIE, String(result.token), {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
    });
  }
  return result;
}

function createChallenge(
  svc: ServiceContext,
  kind: "email" | "2fa",
  username: string,
  ttlMs: number,
): string {
  // E-mail codes are typed by people: short and unambiguous. 2FA continuations are opaque.
  const token = kind === "email" ? randomUUID().replaceAll("-", "").slice(0, 12).toUpperCase() : randomUUID();
  const now = svc.now();
  svc.db
    .prepare("INSERT INTO challenges (token, kind, username, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .run(token, kind, username, now, now + ttlMs);
  return token;
}

/** Marks a pending challenge used and returns its username, or undefined when unknown/used/expired. */
function consumeChallenge(svc: ServiceContext, kind: "email" | "2fa", token: string): string | undefined {
  const row = svc.db
    .prepare("SELECT username, expires_at, used FROM challenges WHERE token = ? AND kind = ?")
    .get(token, kind) as { username: string; expires_at: number; used: number } | undefined;
  if (!row || row.used === 1 || row.expires_at <= svc.now()) return undefined;
  svc.db.prepare("UPDATE challenges SET used = 1 WHERE token = ?").run(token);
  return row.username;
}

/**
 * Checks the password and the account state. Returns the user when a token may be issued now, or a
 * Response asking for the next step (e-mail challenge, 2FA) or refusing.
 */
function authenticate(c: Context<AppEnv>, p: Params): User | Response {
  const svc = c.get("svc");
  const username = p.get("username") ?? "";
  const password = p.get("password") ?? "";
  if (!username || !password) {
    return fail(
      c,
      "Both username and password are required, as form fields (application/x-www-form-urlencoded or multipart/form-data)",
    );
  }
  const user = checkPassword(svc.db, username, password);
  const tenant = p.get("tenant");
  if (!user || (tenant && tenant.toLowerCase() !== user.tenant.toLowerCase())) {
    return fail(c, "Invalid username, password or tenant");
  }
  if (user.temporary && user.expires && Date.parse(user.expires) <= svc.now()) {
    return fail(c, "This temporary account has expired; ask an administrator to renew it");
  }
  if (user.needsChallenge) {
    const code = createChallenge(svc, "email", user.username, CHALLENGE_TTL_MS);
    sendMail(
      svc.dataDir,
      user,
      "Your sign-in challenge code",
      `Hello ${user.fullName},\n\nChallenge token: ${code}\n\nIt is valid for 15 minutes and can be used once.`,
    );
    return fail(c, "needs.email.challenge", { tenant: user.tenant });
  }
  if (user.totpSecret) {
    const continuationToken = createChallenge(svc, "2fa", user.username, TWO_FACTOR_TTL_MS);
    return fail(c, "needs.2fa", { continuationToken, tenant: user.tenant });
  }
  return user;
}

/** Whether an unrevoked token belongs to a session past its lifetime (so the refresh says why it fails). */
function sessionEnded(svc: ServiceContext, token: string, now: number, lifetimeMs: number): boolean {
  const row = svc.db.prepare("SELECT session_start, revoked FROM tokens WHERE token = ?").get(token) as
    | { session_start: number; revoked: number }
    | undefined;
  return row !== undefined && row.revoked === 0 && now - row.session_start >= lifetimeMs;
}

export function accessTokenRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post("/login", async (c) => {
    const p = await requestParams(c);
    const user = authenticate(c, p);
    if (user instanceof Response) return user;
    return c.json(startSession(c, user, flag(p.get("includeUserDetails"))));
  });

  app.post("/acquire-temp-user", async (c) => {
    const p = await requestParams(c);
    const svc = c.get("svc");
    const candidate = getUser(svc.db, p.get("username") ?? "");
    if (candidate && !candidate.temporary) {
      return fail(c, "This is not a temporary user; log in with /api/accesstoken/login");
    }
    const user = authenticate(c, p);
    if (user instanceof Response) return user;
    return c.json(startSession(c, user, flag(p.get("includeUserDetails"))));
  });

  app.post("/complete-challenge", async (c) => {
    const p = await requestParams(c);
    const svc = c.get("svc");
    const code = (p.get("challengeToken") ?? p.get("token") ?? p.get("code") ?? "").trim().toUpperCase();
    if (!code) return fail(c, "challengeToken is required: the code from the challenge e-mail");
    const username = consumeChallenge(svc, "email", code);
    const user = username ? getUser(svc.db, username) : undefined;
    if (!user) return fail(c, "The challenge token is unknown, already used or expired; request a new one");
    return c.json(startChallengedSession(c, user, p));
  });

  app.post("/complete-2fa", async (c) => {
    const p = await requestParams(c);
    const svc = c.get("svc");
    const continuation = p.get("continuationToken") ?? "";
    const code = p.get("twoFactorToken") ?? "";
    const pending = svc.db
      .prepare("SELECT username FROM challenges WHERE token = ? AND kind = '2fa'")
      .get(continuation) as { username: string } | undefined;
    const user = pending ? getUser(svc.db, pending.username) : undefined;
    if (!user?.totpSecret || (p.get("username") && p.get("username") !== user.username)) {
      return fail(c, "The continuation token is unknown or expired; log in again");
    }
    if (!verifyTotp(user.totpSecret, code, svc.now())) {
      return fail(
        c,
        "The two-factor code is wrong or out of date; enter the current code from your authenticator",
      );
    }
    if (!consumeChallenge(svc, "2fa", continuation)) {
      return fail(c, "The continuation token is unknown or expired; log in again");
    }
    return c.json(startChallengedSession(c, user, p));
  });

  app.post("/refresh", async (c) => {
    const p = await requestParams(c);
    const svc = c.get("svc");
    const token = tokenFromHeaders(c.req.raw.headers);
    const refreshToken = p.get("refreshToken") ?? "";
    if (!token || !refreshToken) {
      return fail(
        c,
        "Send the current access token in Preservica-Access-Token and the refresh token as refreshToken",
      );
    }
    const now = svc.now();
    const row = liveToken(svc.db, token, now);
    const lifetimeMs = sessionLifetimeMs(svc);
    if (!row && sessionEnded(svc, token, now, lifetimeMs)) {
      return fail(c, "The session has reached its maximum lifetime (maxSessionLifetimeMins); log in again");
    }
    if (!row) {
      return fail(
        c,
        "The access token has expired or was replaced; a refresh is only possible before expiry, so log in again",
      );
    }
    const a = Buffer.from(row.refresh_token);
    const b = Buffer.from(refreshToken);
    if (a.length !== b.length || !timingSafeEqual(a, b)) {
      return fail(c, "The refresh token does not belong to this access token");
    }
    if (now - row.session_start >= lifetimeMs) {
      return fail(c, "The session has reached its maximum lifetime (maxSessionLifetimeMins); log in again");
    }
    const user = getUser(svc.db, row.username);
    if (!user?.enabled) return fail(c, "The account is disabled");
    revokeToken(svc.db, row.token);
    const next = issueToken(svc.db, row.username, svc.tokenTtlMs, now, row.session_start, lifetimeMs);
    return c.json(loginResult(user, next, flag(p.get("includeUserDetails")), user.lastLogin));
  });

  /** Deprecated shared-secret login, still offered by the real service. */
  app.post("/acquire-external", async (c) => {
    const p = await requestParams(c);
    const svc = c.get("svc");
    const username = p.get("username") ?? "";
    const timestamp = p.get("timestamp") ?? "";
    const hash = Buffer.from((p.get("hash") ?? "").toLowerCase());
    const user = getUser(svc.db, username);
    const ageS = Math.abs(svc.now() / 1000 - Number(timestamp));
    if (!user || !/^\d+$/.test(timestamp) || !(ageS <= EXTERNAL_AUTH_WINDOW_S)) {
      return fail(c, "External authentication failed: unknown user or a timestamp more than 5 minutes off");
    }
    const expected = Buffer.from(
      createHash("sha1")
        .update(`preservica-external-auth${timestamp}${username}${svc.externalAuthSecret}`)
        .digest("hex"),
    );
    // Compared as bytes: a hash of non-ASCII characters can match in length as text but not as bytes.
    if (hash.length !== expected.length || !timingSafeEqual(hash, expected)) {
      return fail(c, "External authentication failed: the hash does not match");
    }
    c.header("Deprecation", "true");
    return c.json(startSession(c, user, flag(p.get("includeUserDetails"))));
  });

  app.all("/*", () => {
    throw new HTTPException(405, { message: "Authentication API endpoints take POST" });
  });
  return app;
}
