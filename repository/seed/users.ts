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
} from "../store/auth.js";
import type { Db } from "../store/db.js";

/**
 * Demo users, security tags and what each role may do on each tag. Applied on every start: the seed
 * owns the demo accounts' credentials, names and roles, so a password override takes effect at once.
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

/** Users, security tags and role permissions: present in every data directory, whatever the seed. */
export function seedUsersAndTags(db: Db, passwords: DemoPasswords): void {
  db.transaction(() => {
    for (const tag of SECURITY_TAGS) addSecurityTag(db, tag);
    for (const [role, byTag] of Object.entries(ROLE_GRANTS)) {
      for (const tag of SECURITY_TAGS) grant(db, role, tag, byTag[tag]);
    }
    for (const u of DEMO_USER_DEFS) writeUser(db, u, passwords[u.username]);
  }).immediate();
}

const upsert = `INSERT INTO users (username, password_hash, full_name, email, tenant, roles, temporary, expires, needs_challenge, totp_secret)
  VALUES (@username, @hash, @fullName, @email, @tenant, @roles, @temporary, @expires, @needsChallenge, @totp)
  ON CONFLICT (username) DO UPDATE SET password_hash = excluded.password_hash, full_name = excluded.full_name,
    email = excluded.email, tenant = excluded.tenant, roles = excluded.roles, temporary = excluded.temporary,
    expires = excluded.expires, totp_secret = excluded.totp_secret`;
// needs_challenge is set on creation only: once the guest has answered the challenge, a restart
// must not ask again. last_login and enabled belong to the running service, so they stay too.

function writeUser(db: Db, u: DemoUserDef, password: string): void {
  db.prepare(upsert).run({
    username: u.username,
    hash: passwordHashFor(db, u.username, password),
    fullName: u.fullName,
    email: u.email,
    tenant: TENANT,
    roles: JSON.stringify(u.roles),
    temporary: u.temporary ? 1 : 0,
    // Renewed at each start so a long-lived demo directory keeps a usable guest account.
    expires: u.temporary ? new Date(Date.now() + YEAR_MS).toISOString() : null,
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
function passwordHashFor(db: Db, username: keyof DemoPasswords, password: string): string {
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
  const hash = row && checkPassword(db, username, password) ? row.password_hash : hashPassword(password);
  if (isDefault) {
    db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(markerKey, publishedPasswordMarker(password, hash));
  } else {
    db.prepare("DELETE FROM meta WHERE key = ?").run(markerKey);
  }
  return hash;
}
