import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { requestParams } from "../http/params.js";
import { sendMail } from "../outbox.js";
import { findUser } from "../store/admin/read.js";
import { consumeResetCode, createResetCode, endSessions, setPasswordHash } from "../store/admin/write.js";
import { hashPassword } from "../store/auth.js";
import { recordConfigEvent } from "../store/config-events/write.js";

/**
 * User API: who the caller is (real clients read `roles` from here at start-up), and password resets.
 *
 * A reset is two steps without a token (the person has forgotten their password): a request mails a
 * single-use code to the account's address (the outbox, as sign-in challenges are), then the code and a
 * new password set it. The request answers the same whether or not the account exists, so it does not
 * tell a stranger which user names exist.
 */

const RESET_CODE_TTL_MS = 60 * 60_000;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 256;

export function userRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/details", requireToken, (c) => {
    const { user } = c.get("caller");
    return c.json({
      userName: user.username,
      fullName: user.fullName,
      email: user.email,
      tenant: user.tenant,
      roles: user.roles,
      temporaryUser: user.temporary,
      ...(user.expires ? { expiry: user.expires } : {}),
    });
  });
  app.post("/password/reset-request", requestReset);
  app.post("/password/reset", completeReset);
  return app;
}

function ok(c: Context<AppEnv>, value: unknown, status: 200 | 202 = 200): Response {
  return c.json({ success: true, version: 1, value }, status);
}

async function requestReset(c: Context<AppEnv>): Promise<Response> {
  const p = await requestParams(c, { json: true });
  const username = (p.get("username") ?? "").trim();
  if (username === "" || username.length > 128) {
    throw new HTTPException(400, {
      message: "username is required: the user name of the account whose password to reset (form or JSON)",
    });
  }
  const tenant = p.get("tenant")?.trim();
  const svc = c.get("svc");
  const u = findUser(svc.db, username);
  // Since 6.3 a reset needs no tenant; one given must match.
  if (u?.enabled && (!tenant || tenant.toLowerCase() === u.tenant.toLowerCase())) {
    const code = createResetCode(svc.db, u.username, svc.now(), RESET_CODE_TTL_MS);
    sendMail(
      svc.dataDir,
      u,
      "Reset your repository password",
      `Hello ${u.fullName},\n\nSomeone asked to reset the password of ${u.username}. If it was not you, ignore this message.\n\nReset code: ${code}\n\nIt is valid for 1 hour and can be used once: POST /api/user/password/reset with code and password.`,
    );
  }
  return ok(
    c,
    { message: "If the account exists and is enabled, a reset code was sent to its e-mail address" },
    202,
  );
}

async function completeReset(c: Context<AppEnv>): Promise<Response> {
  const p = await requestParams(c, { json: true });
  const code = (p.get("code") ?? "").trim().toUpperCase();
  const password = p.get("password") ?? "";
  if (!/^[A-Z0-9]{20}$/.test(code)) {
    throw new HTTPException(400, {
      message: "code is required: the 20-character reset code from the e-mail",
    });
  }
  if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw new HTTPException(400, {
      message: `password is required: the new password, ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`,
    });
  }
  const svc = c.get("svc");
  // Hashed before the transaction: scrypt is slow, and the write lock should not wait for it.
  const hash = hashPassword(password);
  const username = svc.db.transaction(() => {
    const who = consumeResetCode(svc.db, code, svc.now());
    if (!who || !findUser(svc.db, who)?.enabled) return undefined;
    setPasswordHash(svc.db, who, hash);
    // A new password ends the sessions the old one began.
    endSessions(svc.db, who);
    // The published-password marker (seed) no longer matches this hash, so sign-in uses scrypt.
    recordConfigEvent(svc.db, {
      username: who,
      category: "USER",
      commandType: "UPDATE",
      subject: who,
      summary: `Password of ${who} set with an e-mailed reset code; their sessions were ended`,
      at: new Date(svc.now()).toISOString(),
    });
    return who;
  })();
  if (!username) {
    throw new HTTPException(400, {
      message:
        "The reset code is unknown, already used or expired; request a new one at /api/user/password/reset-request",
    });
  }
  return ok(c, { username, message: "Password set; sign in with it at /api/accesstoken/login" });
}
