import { createHash, randomBytes } from "node:crypto";
import { ALL_PERMISSIONS, grant, Role, type UserAccount } from "../auth.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/**
 * Writes behind the Admin and User APIs. Each runs inside the caller's transaction, which also records
 * the config event of the change (store/config-events/write.ts), so a change and its record go together.
 */

/**
 * The stored hash of an account that has no password yet (created by an administrator, waiting for its
 * owner to set one with the mailed code). No password matches it: auth.ts accepts only `scrypt$…`.
 */
export const NO_PASSWORD = "none$";

export interface NewUser extends Omit<UserAccount, "enabled" | "lastLogin"> {
  passwordHash: string;
}

export function insertUser(db: Db, u: NewUser): void {
  prepared(
    db,
    `INSERT INTO users (username, password_hash, full_name, email, tenant, roles, temporary, expires, needs_challenge, enabled)
     VALUES (@username, @passwordHash, @fullName, @email, @tenant, @roles, @temporary, @expires, @needsChallenge, 1)`,
  ).run({
    ...u,
    roles: JSON.stringify(u.roles),
    temporary: u.temporary ? 1 : 0,
    needsChallenge: u.needsChallenge ? 1 : 0,
  });
}

export function updateUser(
  db: Db,
  username: string,
  u: { fullName: string; email: string; roles: string[] },
): void {
  prepared(
    db,
    "UPDATE users SET full_name = @fullName, email = @email, roles = @roles WHERE username = @username",
  ).run({ username, fullName: u.fullName, email: u.email, roles: JSON.stringify(u.roles) });
}

export function setEnabled(db: Db, username: string, enabled: boolean): void {
  prepared(db, "UPDATE users SET enabled = ? WHERE username = ?").run(enabled ? 1 : 0, username);
}

export function setPasswordHash(db: Db, username: string, hash: string): void {
  prepared(db, "UPDATE users SET password_hash = ? WHERE username = ?").run(hash, username);
}

/** Ends every session of a user: their access tokens (and so their refresh tokens) stop working at once. */
export function endSessions(db: Db, username: string): number {
  return prepared(db, "UPDATE tokens SET revoked = 1 WHERE username = ? AND revoked = 0").run(username)
    .changes;
}

/** Removes a user with their sessions, pending challenges and reset codes. */
export function deleteUser(db: Db, username: string): void {
  endSessions(db, username);
  prepared(db, "DELETE FROM challenges WHERE username = ?").run(username);
  prepared(db, "DELETE FROM password_resets WHERE username = ?").run(username);
  prepared(db, "DELETE FROM users WHERE username = ?").run(username);
}

/**
 * Adds a tag. Managers and administrators get every permission on it, as on the built-in tags, so an
 * administrator who adds a tag can use it at once; other roles get none until granted.
 */
export function insertSecurityTag(db: Db, name: string): void {
  prepared(db, "INSERT INTO security_tags (name) VALUES (?)").run(name);
  for (const role of [Role.MANAGER, Role.ADMIN]) grant(db, role, name, ALL_PERMISSIONS);
}

export function deleteSecurityTag(db: Db, name: string): void {
  prepared(db, "DELETE FROM tag_permissions WHERE tag = ?").run(name);
  prepared(db, "DELETE FROM security_tags WHERE name = ?").run(name);
}

export function insertSystemRole(db: Db, name: string, by: string, at: string): void {
  prepared(db, "INSERT INTO system_roles (name, created, created_by) VALUES (?, ?, ?)").run(name, at, by);
}

export function deleteSystemRole(db: Db, name: string): void {
  prepared(db, "DELETE FROM tag_permissions WHERE role = ?").run(name);
  prepared(db, "DELETE FROM system_roles WHERE name = ?").run(name);
}

function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** A new single-use reset code for a user (only its hash is stored); returns the code to mail. */
export function createResetCode(db: Db, username: string, now: number, ttlMs: number): string {
  // 20 characters of an unambiguous alphabet: typed from an e-mail, and 100 bits, so not guessable.
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const code = [...randomBytes(20)].map((b) => alphabet[b % alphabet.length]).join("");
  prepared(
    db,
    "INSERT INTO password_resets (code_sha256, username, created_at, expires_at) VALUES (?, ?, ?, ?)",
  ).run(sha256(code), username, now, now + ttlMs);
  return code;
}

/** The user a live reset code belongs to, marking it and the user's other codes used; undefined otherwise. */
export function consumeResetCode(db: Db, code: string, now: number): string | undefined {
  const row = prepared(
    db,
    "SELECT username, expires_at, used FROM password_resets WHERE code_sha256 = ?",
  ).get(sha256(code)) as { username: string; expires_at: number; used: number } | undefined;
  if (!row || row.used === 1 || row.expires_at <= now) return undefined;
  prepared(db, "UPDATE password_resets SET used = 1 WHERE username = ?").run(row.username);
  return row.username;
}
