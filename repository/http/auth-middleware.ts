import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { getUser, Permissions } from "../store/auth.js";
import { liveToken } from "../store/tokens.js";

/**
 * Reads the access token from `Preservica-Access-Token`, `Service-Access-Token` (the spec's name) or
 * `Authorization: Bearer`, and sets the caller. Missing, unknown, revoked or expired tokens are 401:
 * 401 means "authenticate again", so permission problems elsewhere must be 403, never 401.
 */
export function tokenFromHeaders(headers: Headers): string | undefined {
  const direct = headers.get("preservica-access-token") ?? headers.get("service-access-token");
  if (direct?.trim()) return direct.trim();
  const auth = headers.get("authorization");
  const m = auth?.match(/^Bearer\s+(\S+)\s*$/i);
  if (m?.[1]) return m[1];
  // Set by complete-challenge / complete-2fa with cookie=true.
  const cookie = headers.get("cookie")?.match(/(?:^|;\s*)Preservica-Access-Token=([^;]+)/);
  return cookie?.[1];
}

export const requireToken = createMiddleware<AppEnv>(async (c, next) => {
  const svc = c.get("svc");
  const token = tokenFromHeaders(c.req.raw.headers);
  if (!token) {
    throw new HTTPException(401, {
      message:
        "No access token: log in at /api/accesstoken/login and send the token in Preservica-Access-Token",
    });
  }
  const row = liveToken(svc.db, token, svc.now());
  const user = row ? getUser(svc.db, row.username) : undefined;
  if (!row || !user?.enabled) {
    throw new HTTPException(401, { message: "The access token is invalid or has expired; log in again" });
  }
  c.set("caller", { user, token, permissions: new Permissions(svc.db, user.roles) });
  await next();
});
