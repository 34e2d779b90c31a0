import {
  ALL_PERMISSIONS,
  addSecurityTag,
  checkPassword,
  grant,
  hashPassword,
  Permission,
  publishedPasswordKey,
  publishedPasswordMarker,
  Role,
  type UserRow,
} from "../store/auth.js";
import type { Db } from "../store/db.js";

/**
 * Demo users, security tags and what each role may do on each tag. Checked on every start and written where
 * they differ: the seed owns the demo accounts' credentials, names and roles, so a password override takes
 * effect at once.
 */

/** Passwords of the demo users; each can be overridden (README lists the flags and variables). */
export interface DemoPasswords {
  manager: string;
  curator: string;
  reader: string;
  guest: string;
  twofactor: string;
}

export const DEFAULT_DEMO_PASSWORDS: DemoPasswords = {
  manager: "manager-demo-pw",
  curator: "curator-demo-pw",
  reader: "reader-demo-pw",
  guest: "guest-demo-pw",
  twofactor: "twofactor-demo-pw",
};

/** TOTP secret (base32) of the `twofactor` user; any authenticator app or RFC 6238 code computes its codes. */
export const DEMO_TOTP_SECRET = "JBSWY3DPEHPK3PXP";

export const SECURITY_TAGS = ["open", "closed", "staff"] as const;
export type SecurityTag = (typeof SECURITY_TAGS)[number];

const READ: readonly Permission[] = [Permission.READ_METADATA, Permission.DOWNLOAD];
const CURATE: readonly Permission[] = [
  Permission.READ_METADATA,
  Permission.DOWNLOAD,
  Permission.UPDATE_METADATA,
  Permission.INGEST,
  Permission.MOVE,
];
const ALL: readonly Permission[] = ALL_PERMISSIONS;
const NONE: readonly Permission[] = [];

/**
 * What each role may do on each tag. A user's rights are the union over their roles, so the access
 * role (which every user has) must give no more than a reader may have.
 */
export const ROLE_GRANTS: Record<string, Record<SecurityTag, readonly Permission[]>> = {
  //                     open    closed  staff
  [Role.ACCESS]: { open: READ, closed: NONE, staff: NONE },
  [Role.DATA_MANAGEMENT]: { open: CURATE, closed: CURATE, staff: CURATE },
  [Role.MANAGER]: { open: ALL, closed: ALL, staff: ALL },
  [Role.ADMIN]: { open: ALL, closed: ALL, staff: ALL },
  // The format-registry administrator manages formats, not content.
  [Role.REGISTRY_ADMIN]: { open: NONE, closed: NONE, staff: NONE },
};

interface DemoUserDef {
  username: keyof DemoPasswords;
  fullName: string;
  email: string;
  roles: string[];
  temporary?: boolean;
  needsChallenge?: boolean;
  totpSecret?: string;
}

const TENANT = "DEMO";

export const DEMO_USER_DEFS: readonly DemoUserDef[] = [
  {
    username: "manager",
    fullName: "Margaret Pennington",
    email: "margaret.pennington@example.org",
    roles: [Role.ACCESS, Role.DATA_MANAGEMENT, Role.MANAGER, Role.ADMIN, Role.REGISTRY_ADMIN],
  },
  {
    username: "curator",
    fullName: "Daniel Okafor",
    email: "daniel.okafor@example.org",
    roles: [Role.ACCESS, Role.DATA_MANAGEMENT],
  },
  { username: "reader", fullName: "Ruth Albright", email: "ruth.albright@example.org", roles: [Role.ACCESS] },
  {
    username: "guest",
    fullName: "Samuel Fairweather",
    email: "samuel.fairweather@example.org",
    roles: [Role.ACCESS],
    temporary: true,
    needsChallenge: true,
  },
  {
    username: "twofactor",
    fullName: "Priya Raman",
    email: "priya.raman@example.org",
    roles: [Role.ACCESS],
    totpSecret: DEMO_TOTP_SECRET,
  },
];

const YEAR_MS = 365 * 86_400_000;

/**
 * Users, security tags and role permissions: present in every data directory, whatever the seed. A start on a
 * store that already holds exactly what the seed would write (the usual restart) writes nothing: one read
 * compares first, so the start takes no write lock and leaves the file alone. Anything that differs (a user or
 * grant changed through the Admin API, a new seed definition, a password override) is written as before.
 */
export function seedUsersAndTags(db: Db, passwords: DemoPasswords, now = Date.now()): void {
  // Stored hashes already checked against their password by the comparison, so the write does not scrypt twice.
  const verified = new Map<string, string>();
  if (usersAndTagsCurrent(db, passwords, now, verified)) return;
  db.transaction(() => {
    for (const tag of SECURITY_TAGS) addSecurityTag(db, tag);
    for (const [role, byTag] of Object.entries(ROLE_GRANTS)) {
      for (const tag of SECURITY_TAGS) grant(db, role, tag, byTag[tag]);
    }
    for (const u of DEMO_USER_DEFS) writeUser(db, u, passwords[u.username], now, verified);
  }).immediate();
}

/**
 * The guest's expiry is renewed at each start, which would make every start a write; a stored expiry within a
 * day of the one this start would write counts as current, so a guest account expires 364 to 365 days after
 * the last start instead of exactly 365.
 */
const EXPIRY_SLACK_MS = 86_400_000;

/** The columns the seed writes (needs_challenge, enabled and last_login are the running service's). */
type StoredUser = Omit<UserRow, "needs_challenge" | "enabled" | "last_login">;

/** Whether the seed's write would change nothing: every tag, grant, user column and password marker as written. */
function usersAndTagsCurrent(
  db: Db,
  passwords: DemoPasswords,
  now: number,
  verified: Map<string, string>,
): boolean {
  const tags = new Set(db.prepare("SELECT name FROM security_tags").pluck().all() as string[]);
  if (SECURITY_TAGS.some((t) => !tags.has(t))) return false;
  const grants = new Set(
    db
      .prepare("SELECT role || ' ' || tag || ' ' || permission FROM tag_permissions")
      .pluck()
      .all() as string[],
  );
  for (const [role, byTag] of Object.entries(ROLE_GRANTS)) {
    for (const tag of SECURITY_TAGS) {
      if (byTag[tag].some((p) => !grants.has(`${role} ${tag} ${p}`))) return false;
    }
  }
  const users = new Map(
    (
      db
        .prepare(
          "SELECT username, password_hash, full_name, email, tenant, roles, temporary, expires, totp_secret FROM users",
        )
        .all() as unknown as StoredUser[]
    ).map((r) => [r.username, r]),
  );
  const markers = new Map(
    (
      db.prepare("SELECT key, value FROM meta WHERE key LIKE 'seed.default-password.%'").all() as {
        key: string;
        value: string;
      }[]
    ).map((r) => [r.key, r.value]),
  );
  return DEMO_USER_DEFS.every((u) => {
    const row = users.get(u.username);
    if (!row) return false;
    const expires = u.temporary ? now + YEAR_MS : null;
    const sameExpiry =
      expires === null
        ? row.expires === null
        : row.expires !== null && Math.abs(Date.parse(row.expires) - expires) <= EXPIRY_SLACK_MS;
    const sameColumns =
      row.full_name === u.fullName &&
      row.email === u.email &&
      row.tenant === TENANT &&
      row.roles === JSON.stringify(u.roles) &&
      row.temporary === (u.temporary ? 1 : 0) &&
      row.totp_secret === (u.totpSecret ?? null) &&
      sameExpiry;
    return (
      sameColumns &&
      passwordCurrent(db, u.username, passwords[u.username], row.password_hash, markers, verified)
    );
  });
}

/** Whether passwordHashFor would keep the stored hash and leave the marker as it is. */
function passwordCurrent(
  db: Db,
  username: keyof DemoPasswords,
  password: string,
  storedHash: string,
  markers: Map<string, string>,
  verified: Map<string, string>,
): boolean {
  const marker = markers.get(publishedPasswordKey(username));
  if (password === DEFAULT_DEMO_PASSWORDS[username]) {
    return marker === publishedPasswordMarker(password, storedHash);
  }
  if (marker !== undefined) return false;
  // An overridden password is checked with scrypt, as the write would (it then reuses this answer).
  if (!checkPassword(db, username, password)) return false;
  verified.set(username, storedHash);
  return true;
}

const upsert = `INSERT INTO users (username, password_hash, full_name, email, tenant, roles, temporary, expires, needs_challenge, totp_secret)
  VALUES (@username, @hash, @fullName, @email, @tenant, @roles, @temporary, @expires, @needsChallenge, @totp)
  ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash, full_name = excluded.full_name,
    email = excluded.email, tenant = excluded.tenant, roles = excluded.roles, temporary = excluded.temporary,
    expires = excluded.expires, totp_secret = excluded.totp_secret`;
// needs_challenge is set on creation only: once the guest has answered the challenge, a restart
// must not ask again. last_login and enabled belong to the running service, so they stay too.

function writeUser(
  db: Db,
  u: DemoUserDef,
  password: string,
  now: number,
  verified: ReadonlyMap<string, string>,
): void {
  db.prepare(upsert).run({
    username: u.username,
    hash: passwordHashFor(db, u.username, password, verified),
    fullName: u.fullName,
    email: u.email,
    tenant: TENANT,
    roles: JSON.stringify(u.roles),
    temporary: u.temporary ? 1 : 0,
    // Renewed at each start so a long-lived demo directory keeps a usable guest account.
    expires: u.temporary ? new Date(now + YEAR_MS).toISOString() : null,
    needsChallenge: u.needsChallenge ? 1 : 0,
    totp: u.totpSecret ?? null,
  });
}

/**
 * The stored hash when it already matches `password`, else a fresh one. scrypt costs ~30-50 ms per
 * call, so start-up avoids it where it safely can: for the published default passwords, a meta
 * marker records which stored hash was made from which default (both public facts, so the marker
 * gives nothing away); an overridden password is checked with scrypt itself, never a fast hash.
 */
function passwordHashFor(
  db: Db,
  username: keyof DemoPasswords,
  password: string,
  verified: ReadonlyMap<string, string>,
): string {
  const row = db.prepare("SELECT password_hash FROM users WHERE username = ?").get(username) as
    | { password_hash: string }
    | undefined;
  const isDefault = password === DEFAULT_DEMO_PASSWORDS[username];
  const markerKey = publishedPasswordKey(username);
  if (row && isDefault) {
    const stored = db.prepare("SELECT value FROM meta WHERE key = ?").get(markerKey) as
      | { value: string }
      | undefined;
    if (stored?.value === publishedPasswordMarker(password, row.password_hash)) return row.password_hash;
  }
  const kept =
    row &&
    (verified.get(username) === row.password_hash || checkPassword(db, username, password) !== undefined);
  const hash = kept ? row.password_hash : hashPassword(password);
  if (isDefault) {
    db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(markerKey, publishedPasswordMarker(password, hash));
  } else {
    db.prepare("DELETE FROM meta WHERE key = ?").run(markerKey);
  }
  return hash;
}
