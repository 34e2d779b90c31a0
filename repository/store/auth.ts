import { createHash, randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import type { Db } from "./db.js";
import { prepared } from "./statements.js";

/** Users, roles and what roles may do on security tags. */

export const Permission = {
  READ_METADATA: "Read Metadata",
  UPDATE_METADATA: "Update Metadata",
  DOWNLOAD: "Download",
  INGEST: "Ingest",
  MOVE: "Move",
  CHANGE_SECURITY: "Change Security Tag",
  DELETE: "Delete",
} as const;
export type Permission = (typeof Permission)[keyof typeof Permission];
export const ALL_PERMISSIONS: Permission[] = Object.values(Permission);

export const Role = {
  ACCESS: "ROLE_SDB_ACCESS_USER",
  DATA_MANAGEMENT: "ROLE_SDB_DATA_MANAGEMENT_USER",
  MANAGER: "ROLE_SDB_MANAGER_USER",
  ADMIN: "ROLE_SDB_ADMIN_USER",
  REGISTRY_ADMIN: "ROLE_SDB_REGISTRY_ADMIN_USER",
} as const;

export interface UserRow {
  username: string;
  password_hash: string;
  full_name: string;
  email: string;
  tenant: string;
  roles: string;
  temporary: number;
  expires: string | null;
  needs_challenge: number;
  totp_secret: string | null;
  enabled: number;
  last_login: string | null;
}

export interface User {
  username: string;
  fullName: string;
  email: string;
  tenant: string;
  roles: string[];
  temporary: boolean;
  expires: string | null;
  needsChallenge: boolean;
  totpSecret: string | null;
  enabled: boolean;
  lastLogin: string | null;
}

/** A user's account as every reader shows it (not its password hash, nor its 2FA secret). */
export type UserAccount = Omit<User, "totpSecret">;

/** The account columns of a `users` row, read by the sign-in and by the Admin API alike. */
export function accountOf(r: Omit<UserRow, "password_hash" | "totp_secret">): UserAccount {
  return {
    username: r.username,
    fullName: r.full_name,
    email: r.email,
    tenant: r.tenant,
    roles: JSON.parse(r.roles) as string[],
    temporary: r.temporary === 1,
    expires: r.expires,
    needsChallenge: r.needs_challenge === 1,
    enabled: r.enabled === 1,
    lastLogin: r.last_login,
  };
}

function toUser(r: UserRow): User {
  return { ...accountOf(r), totpSecret: r.totp_secret };
}

/** scrypt with a per-user salt: stored as `scrypt$<salt hex>$<hash hex>`. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt$${salt.toString("hex")}$${hash.toString("hex")}`;
}

function verifyPassword(password: string, stored: string): boolean {
  const [scheme, saltHex, hashHex] = stored.split("$");
  if (scheme !== "scrypt" || !saltHex || !hashHex) return false;
  const expected = Buffer.from(hashHex, "hex");
  const actual = scryptSync(password, Buffer.from(saltHex, "hex"), expected.length);
  return timingSafeEqual(actual, expected);
}

/**
 * Published passwords (the demo users' defaults, printed in the README and at start-up) skip scrypt. scrypt
 * makes guessing a password slow, from a stolen hash or at the sign-in route; a published password needs no
 * guessing, so its ~50 ms per sign-in bought nothing but a slower start of the embedded default. The seed
 * marks such a user in `meta` with `sha256(password):<stored hash>`: the marker holds only when the stored
 * hash is still the one made from that published password, so a changed or overridden password (never
 * marked) is checked with scrypt as before.
 */
export function publishedPasswordKey(username: string): string {
  return `seed.default-password.${username}`;
}
export function publishedPasswordMarker(password: string, storedHash: string): string {
  return `${sha256Hex(password)}:${storedHash}`;
}
function sha256Hex(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** true/false for a user whose stored hash is marked as a published password's; undefined otherwise. */
function checkPublished(db: Db, username: string, password: string, stored: string): boolean | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(publishedPasswordKey(username)) as
    | { value: string }
    | undefined;
  const sep = row?.value.indexOf(":") ?? -1;
  if (!row || sep < 0 || row.value.slice(sep + 1) !== stored) return undefined;
  return timingSafeEqual(
    Buffer.from(sha256Hex(password), "hex"),
    Buffer.from(row.value.slice(0, sep), "hex"),
  );
}

export function getUser(db: Db, username: string): User | undefined {
  // Every authenticated request asks (prepared once: preparing costs more than the look-up).
  const r = prepared(db, "SELECT * FROM users WHERE username = ?").get(username) as UserRow | undefined;
  return r ? toUser(r) : undefined;
}

/** The user when the password matches (and the account is enabled), else undefined. */
export function checkPassword(db: Db, username: string, password: string): User | undefined {
  const r = db.prepare("SELECT * FROM users WHERE username = ?").get(username) as UserRow | undefined;
  if (r?.enabled !== 1) return undefined;
  const ok =
    checkPublished(db, username, password, r.password_hash) ?? verifyPassword(password, r.password_hash);
  return ok ? toUser(r) : undefined;
}

export function recordLogin(db: Db, username: string, at: Date): void {
  db.prepare("UPDATE users SET last_login = ? WHERE username = ?").run(at.toISOString(), username);
}

export function addSecurityTag(db: Db, name: string): void {
  db.prepare("INSERT OR IGNORE INTO security_tags (name) VALUES (?)").run(name);
}

export function grant(db: Db, role: string, tag: string, permissions: readonly Permission[]): void {
  const ins = db.prepare("INSERT OR IGNORE INTO tag_permissions (role, tag, permission) VALUES (?, ?, ?)");
  for (const p of permissions) ins.run(role, tag, p);
}

/**
 * What a set of roles may do, per tag. Loaded once per request from a small table; callers ask
 * `permits(tag, permission)` or `tagsWith(permission)` (for SQL filters in lists and search).
 */
export class Permissions {
  private readonly byTag = new Map<string, Set<string>>();

  constructor(db: Db, roles: readonly string[]) {
    if (roles.length === 0) return;
    // Every request asks; the SQL varies only with how many roles there are, so a few cached statements.
    const rows = prepared(
      db,
      `SELECT tag, permission FROM tag_permissions WHERE role IN (${roles.map(() => "?").join(",")})`,
    ).all(...roles) as { tag: string; permission: string }[];
    for (const r of rows) {
      let set = this.byTag.get(r.tag);
      if (!set) {
        set = new Set();
        this.byTag.set(r.tag, set);
      }
      set.add(r.permission);
    }
  }

  permits(tag: string, permission: Permission): boolean {
    return this.byTag.get(tag)?.has(permission) ?? false;
  }

  tagsWith(permission: Permission): string[] {
    return [...this.byTag].filter(([, perms]) => perms.has(permission)).map(([tag]) => tag);
  }
}
