import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { tokenFromHeaders } from "../auth-middleware.js";
import type { AppEnv } from "../context.js";
import { answer, type ProviderContext, unreadableRequest } from "../oai/provider.js";
import { checkPassword, getUser, Permissions, type User } from "../store/auth.js";
import { liveToken } from "../store/tokens.js";

/**
 * OAI-PMH 2.0 at `/OAI-PMH` (GET with a query, or POST with a form body): the six verbs over the
 * folders and assets the caller may read (repository/oai/provider.ts). Protocol errors are OAI-PMH
 * documents with their error codes (HTTP 200, as the protocol has it); only a failed authentication is
 * an HTTP error (401, JSON like every other API, with a Basic challenge).
 *
 * Authentication: an access token (as on every API), or HTTP Basic with a user's password, which the
 * real service keeps for OAI-PMH because harvesters speak it. Basic is refused for accounts that sign
 * in with a second factor or a challenge (a password alone must not get round it) and for expired
 * temporary accounts.
 */

type Ctx = Context<AppEnv>;

const REALM = 'Basic realm="OAI-PMH", charset="UTF-8"';

export function oaiPmhRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/", (c) => {
    const ctx = providerContext(c);
    return oaiReply(c, answer(ctx, [...new URL(c.req.url).searchParams]));
  });

  app.post("/", async (c) => {
    const ctx = providerContext(c);
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (type !== "application/x-www-form-urlencoded") {
      return oaiReply(
        c,
        unreadableRequest(
          ctx,
          "A POST request carries its arguments as application/x-www-form-urlencoded (e.g. verb=Identify)",
        ),
      );
    }
    return oaiReply(c, answer(ctx, [...new URLSearchParams(await c.req.text())]));
  });

  return app;
}

function oaiReply(c: Ctx, xml: string): Response {
  return c.body(xml, 200, { "Content-Type": "text/xml; charset=UTF-8" });
}

function providerContext(c: Ctx): ProviderContext {
  const svc = c.get("svc");
  const user = caller(c);
  return {
    db: svc.db,
    permissions: new Permissions(svc.db, user.roles),
    now: svc.now(),
    baseUrl: `${new URL(c.req.url).origin}/OAI-PMH`,
  };
}

/** The authenticated user: by access token or HTTP Basic; 401 (with a Basic challenge) otherwise. */
function caller(c: Ctx): User {
  const svc = c.get("svc");
  const basic = c.req.header("authorization")?.match(/^Basic\s+(\S+)\s*$/i);
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const username = colon < 0 ? "" : decoded.slice(0, colon);
    const user = username ? checkPassword(svc.db, username, decoded.slice(colon + 1)) : undefined;
    if (!user)
      unauthorized(
        c,
        "The Basic credentials are wrong (or the account is disabled); send a user name and password, or an access token",
      );
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
  const token = tokenFromHeaders(c.req.raw.headers);
  if (!token) {
    unauthorized(
      c,
      "OAI-PMH needs authentication: HTTP Basic with your user name and password, or an access token from /api/accesstoken/login in Preservica-Access-Token",
    );
  }
  const row = liveToken(svc.db, token, svc.now());
  const user = row ? getUser(svc.db, row.username) : undefined;
  if (!row || !user?.enabled) unauthorized(c, "The access token is invalid or has expired; log in again");
  return user;
}

function unauthorized(c: Ctx, message: string): never {
  throw new HTTPException(401, {
    res: c.json({ success: false, message }, 401, { "WWW-Authenticate": REALM }),
  });
}
