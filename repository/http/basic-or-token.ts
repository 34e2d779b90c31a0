import type { Context } from "hono";
import type { AppEnv } from "../context.js";
import { checkPassword, getUser, type User } from "../store/auth.js";
import { liveToken } from "../store/tokens.js";
import { tokenFromHeaders } from "./auth-middleware.js";

/**
 * The caller of an API that also speaks HTTP Basic (OAI-PMH, CMIS, the format registry's writes): Basic
 * credentials when sent, else an access token. Basic is refused for accounts that sign in with a second step
 * (a password alone must not get round it) and for expired temporary accounts. Each API says how it refuses
 * (a Basic challenge or a plain 401) and what to send when nothing was.
 */

export interface BasicOrTokenOptions {
  /** Throws the API's 401 with this message. */
  fail: (message: string) => never;
  /** The message when neither credentials nor a token came: what this API needs. */
  needs: string;
}

export function basicOrTokenUser(
  c: Context<AppEnv>,
  opts: BasicOrTokenOptions,
): { user: User; basic: boolean } {
  const svc = c.get("svc");
  const basic = c.req.header("authorization")?.match(/^Basic\s+(\S+)\s*$/i);
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const username = colon < 0 ? "" : decoded.slice(0, colon);
    const user = username ? checkPassword(svc.db, username, decoded.slice(colon + 1)) : undefined;
    if (!user) {
      opts.fail(
        "The Basic credentials are wrong (or the account is disabled); send a user name and password, or an access token",
      );
    }
    if (user.totpSecret || user.needsChallenge) {
      opts.fail(
        `User ${user.username} signs in with a second step, which Basic authentication cannot carry; log in at /api/accesstoken/login and send the token in Preservica-Access-Token`,
      );
    }
    if (user.temporary && user.expires && Date.parse(user.expires) <= svc.now()) {
      opts.fail("This temporary account has expired; ask an administrator to renew it");
    }
    return { user, basic: true };
  }
  const token = tokenFromHeaders(c.req.raw.headers);
  if (!token) opts.fail(opts.needs);
  const row = liveToken(svc.db, token, svc.now());
  const user = row ? getUser(svc.db, row.username) : undefined;
  if (!row || !user?.enabled) opts.fail("The access token is invalid or has expired; log in again");
  return { user, basic: false };
}
