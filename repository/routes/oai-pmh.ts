import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { basicOrTokenUser } from "../http/basic-or-token.js";
import { answer, type ProviderContext, unreadableRequest } from "../oai/provider.js";
import { Permissions, type User } from "../store/auth.js";

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
  return basicOrTokenUser(c, {
    fail: (message) => unauthorized(c, message),
    needs:
      "OAI-PMH needs authentication: HTTP Basic with your user name and password, or an access token from /api/accesstoken/login in Preservica-Access-Token",
  }).user;
}

function unauthorized(c: Ctx, message: string): never {
  throw new HTTPException(401, {
    res: c.json({ success: false, message }, 401, { "WWW-Authenticate": REALM }),
  });
}
