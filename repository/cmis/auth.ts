import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { basicOrTokenUser } from "../http/basic-or-token.js";
import { Permissions } from "../store/auth.js";

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
  const { user } = basicOrTokenUser(c, {
    fail: (message) => unauthorized(c, message),
    needs:
      "CMIS needs authentication: HTTP Basic with your user name and password, or an access token from /api/accesstoken/login in Preservica-Access-Token",
  });
  c.set("caller", { user, token: "", permissions: new Permissions(svc.db, user.roles) });
  await next();
});

function unauthorized(c: Context<AppEnv>, message: string): never {
  throw new HTTPException(401, {
    res: c.json({ success: false, message }, 401, { "WWW-Authenticate": REALM }),
  });
}
