import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { tokenFromHeaders } from "../auth-middleware.js";
import type { AppEnv } from "../context.js";
import { checkPassword, getUser, Permissions, type User } from "../store/auth.js";
import { liveToken } from "../store/tokens.js";

/**
 * Who calls the CMIS endpoint: an access token (as on every API), or HTTP Basic with a user's
 * password, which the service keeps for CMIS because CMIS clients (libcmis, OpenCMIS) speak it. Basic
 * is refused for accounts that sign in with a second step (a password alone must not get round it) and
 * for expired temporary accounts. A failure is 401 with a Basic challenge, so clients that wait for
 * one (curl's "any" authentication) send their credentials.
 */

const REALM = 'Basic realm="CMIS", charset="UTF-8"';

export const cmisCaller = createMiddleware<AppEnv>(async (c, next) => {
  const svc = c.get("svc");
  const user = basicUser(c) ?? tokenUser(c);
  c.set("caller", { user, token: "", permissions: new Permissions(svc.db, user.roles) });
  await next();
});

function basicUser(c: Context<AppEnv>): User | undefined {
  const svc = c.get("svc");
  const basic = c.req.header("authorization")?.match(/^Basic\s+(\S+)\s*$/i);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const username = colon < 0 ? "" : decoded.slice(0, colon);
  const user = username ? checkPassword(svc.db, username, decoded.slice(colon + 1)) : undefined;
  if (!user) {
    unauthorized(
      c,
      "The Basic credentials are wrong (or the account is disabled); send a user name and password, or an access token",
    );
  }
  if (user.totpSecret || user.needsChallenge) {
    unauthorized(
      c,
      `User ${user.username} signs in with a second step, which Basic authentication cannot carry; log in at /api/accesstoken/login and send the token in Preservica-Access-Token`,
    );
  }
  if (user.temporary && user.expires && Date.parse(user.expires) <= svc.now()) {
    unauthorized(c, "This temporary account has expired; ask an administrator to renew it");
  }
  return user;
}

function tokenUser(c: Context<AppEnv>): User {
  const svc = c.get("svc");
  const token = tokenFromHeaders(c.req.raw.headers);
  if (!token) {
    unauthorized(
      c,
      "CMIS needs authentication: HTTP Basic with your user name and password, or an access token from /api/accesstoken/login in Preservica-Access-Token",
    );
  }
  const row = liveToken(svc.db, token, svc.now());
  const user = row ? getUser(svc.db, row.username) : undefined;
  if (!row || !user?.enabled) unauthorized(c, "The access token is invalid or has expired; log in again");
  return user;
}

function unauthorized(c: Context<AppEnv>, message: string): never {
  throw new HTTPException(401, {
    res: c.json({ success: false, message }, 401, { "WWW-Authenticate": REALM }),
  });
}
