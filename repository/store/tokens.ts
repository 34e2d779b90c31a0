import { randomUUID } from "node:crypto";
import type { Db } from "./db.js";
import { prepared } from "./statements.js";

/**
 * Access and refresh tokens. Tokens are UUIDs (never contain `/`, which real clients rely on).
 * A refresh token is single-use and only valid while its access token is; refreshing revokes the old pair.
 */

export interface TokenRow {
  token: string;
  refresh_token: string;
  username: string;
  issued_at: number;
  expires_at: number;
  session_start: number;
  revoked: number;
}

export function issueToken(
  db: Db,
  username: string,
  ttlMs: number,
  now: number,
  sessionStart = now,
  /** The session's maximum lifetime (maxSessionLifetimeMins): no token of it outlives the session. */
  maxSessionMs = Number.POSITIVE_INFINITY,
): TokenRow {
  const row: TokenRow = {
    token: randomUUID(),
    refresh_token: randomUUID(),
    username,
    issued_at: now,
    expires_at: Math.min(now + ttlMs, sessionStart + maxSessionMs),
    session_start: sessionStart,
    revoked: 0,
  };
  db.prepare(
    `INSERT INTO tokens (token, refresh_token, username, issued_at, expires_at, session_start, revoked)
     VALUES (@token, @refresh_token, @username, @issued_at, @expires_at, @session_start, 0)`,
  ).run(row);
  // Expired tokens are useless; prune them so the table stays small over a long-lived data directory.
  db.prepare("DELETE FROM tokens WHERE expires_at < ?").run(now - 24 * 3600_000);
  return row;
}

/** The token's row when it exists, is not revoked and has not expired at `now`. */
export function liveToken(db: Db, token: string, now: number): TokenRow | undefined {
  // Every authenticated request asks (prepared once: preparing costs more than the look-up).
  const row = prepared(db, "SELECT * FROM tokens WHERE token = ?").get(token) as TokenRow | undefined;
  if (!row || row.revoked === 1 || row.expires_at <= now) return undefined;
  return row;
}

export function revokeToken(db: Db, token: string): void {
  db.prepare("UPDATE tokens SET revoked = 1 WHERE token = ?").run(token);
}
