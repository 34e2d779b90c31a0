import { accountOf, Role, type UserRow as StoredUserRow, type UserAccount } from "../auth.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import { usageOf } from "../storage/read.js";

/**
 * Reads behind the Admin API: users (as administrators see them), system roles, security tags, what
 * each role may do on each tag (the rows the service enforces), and the usage of features.
 */

/** A user as the Admin API shows one: never the password hash or the 2FA secret. */
export interface AdminUser extends UserAccount {
  twoFactor: boolean;
}

type UserRow = Omit<StoredUserRow, "password_hash" | "totp_secret"> & { two_factor: number };

const USER_COLUMNS = `username, full_name, email, tenant, roles, enabled, temporary, expires, needs_challenge,
  totp_secret IS NOT NULL AS two_factor, last_login`;

function toAdminUser(r: UserRow): AdminUser {
  return { ...accountOf(r), twoFactor: r.two_factor === 1 };
}

/** Every user, by name; `temporary` narrows to temporary (true) or permanent (false) accounts. */
export function listUsers(db: Db, opts: { temporary?: boolean } = {}): AdminUser[] {
  const rows = prepared(
    db,
    `SELECT ${USER_COLUMNS} FROM users WHERE (@t IS NULL OR temporary = @t) ORDER BY username`,
  ).all({ t: opts.temporary === undefined ? null : opts.temporary ? 1 : 0 }) as UserRow[];
  return rows.map(toAdminUser);
}

export function findUser(db: Db, username: string): AdminUser | undefined {
  const r = prepared(db, `SELECT ${USER_COLUMNS} FROM users WHERE username = ?`).get(username) as
    | UserRow
    | undefined;
  return r ? toAdminUser(r) : undefined;
}

/** Whether a user can sign in at `nowIso`: enabled, and (for a temporary user) not expired. */
export function isActive(u: AdminUser, nowIso: string): boolean {
  return u.enabled && !(u.temporary && u.expires !== null && u.expires <= nowIso);
}

/** Users who hold the administrator role and can sign in: the ones the service must keep at least one of. */
export function activeAdmins(db: Db, nowIso: string): string[] {
  return listUsers(db)
    .filter((u) => u.roles.includes(Role.ADMIN) && isActive(u, nowIso))
    .map((u) => u.username);
}

/** The built-in roles: the program's own, always present, never deleted. */
export const BUILT_IN_ROLES: readonly string[] = Object.values(Role);

/** Every role: the built-in ones, then those administrators added, by name. */
export function systemRoles(db: Db): string[] {
  const added = prepared(db, "SELECT name FROM system_roles ORDER BY name").pluck().all() as string[];
  return [...BUILT_IN_ROLES, ...added.filter((r) => !BUILT_IN_ROLES.includes(r))];
}

export function roleExists(db: Db, role: string): boolean {
  return (
    BUILT_IN_ROLES.includes(role) ||
    prepared(db, "SELECT 1 FROM system_roles WHERE name = ?").get(role) !== undefined
  );
}

/** Users holding a role. */
export function roleHolders(db: Db, role: string): string[] {
  return prepared(
    db,
    "SELECT username FROM users WHERE EXISTS (SELECT 1 FROM json_each(users.roles) WHERE value = ?) ORDER BY username",
  )
    .pluck()
    .all(role) as string[];
}

export function securityTags(db: Db): string[] {
  return prepared(db, "SELECT name FROM security_tags ORDER BY name").pluck().all() as string[];
}

export function tagExists(db: Db, tag: string): boolean {
  return prepared(db, "SELECT 1 FROM security_tags WHERE name = ?").get(tag) !== undefined;
}

/** Entities carrying a tag, those in the recycle bin included (they can be restored with it). */
export function entitiesWithTag(db: Db, tag: string): number {
  return (prepared(db, "SELECT count(*) AS n FROM entities WHERE security_tag = ?").get(tag) as { n: number })
    .n;
}

/** What the given roles may do on each tag (the union over the roles), as the service enforces it. */
export function permissionsByTag(db: Db, roles: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>(securityTags(db).map((t) => [t, []]));
  if (roles.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT DISTINCT tag, permission FROM tag_permissions WHERE role IN (${roles.map(() => "?").join(",")})
       ORDER BY tag, permission`,
    )
    .all(...roles) as { tag: string; permission: string }[];
  for (const r of rows) out.get(r.tag)?.push(r.permission);
  return out;
}

/** Per role, what it may do on one tag. */
export function grantsOnTag(db: Db, tag: string): Record<string, string[]> {
  const rows = prepared(
    db,
    "SELECT role, permission FROM tag_permissions WHERE tag = ? ORDER BY role, permission",
  ).all(tag) as { role: string; permission: string }[];
  const out: Record<string, string[]> = {};
  for (const r of rows) {
    const list = out[r.role] ?? [];
    list.push(r.permission);
    out[r.role] = list;
  }
  return out;
}

export interface FeatureUsage {
  feature: string;
  used: number;
  unit: "count" | "bytes";
  description: string;
}

/**
 * How much of each feature is in use, counted from the store at `nowIso`. USERS, ENTITIES, STORAGE and
 * STORAGE_ADAPTERS are the Entitlement API's limits (`/api/entitlement/limits`), counted by the same
 * function, so a client compares `used` here with the limit of the same name; the rest have no limit.
 */
export function featureUsage(db: Db, nowIso: string): FeatureUsage[] {
  const users = listUsers(db);
  const count = (sql: string) => (prepared(db, sql).get() as { n: number | null }).n ?? 0;
  const f = (feature: string, used: number, description: string, unit: "count" | "bytes" = "count") => ({
    feature,
    used,
    unit,
    description,
  });
  return [
    f("USERS", usageOf(db, "USERS"), "Enabled permanent user accounts"),
    f(
      "TEMPORARY_USERS",
      users.filter((u) => u.temporary && isActive(u, nowIso)).length,
      "Temporary user accounts that are enabled and not expired",
    ),
    f("ENTITIES", usageOf(db, "ENTITIES"), "Folders, assets and content objects not in the recycle bin"),
    f(
      "FOLDERS",
      count("SELECT count(*) AS n FROM entities WHERE type = 'SO' AND deleted = 0"),
      "Folders not in the recycle bin",
    ),
    f(
      "ASSETS",
      count("SELECT count(*) AS n FROM entities WHERE type = 'IO' AND deleted = 0"),
      "Assets not in the recycle bin",
    ),
    f("STORAGE", usageOf(db, "STORAGE"), "Bytes of content stored", "bytes"),
    f("STORAGE_ADAPTERS", usageOf(db, "STORAGE_ADAPTERS"), "Storage adapters"),
    f("SECURITY_TAGS", count("SELECT count(*) AS n FROM security_tags"), "Security tags"),
    f("SYSTEM_ROLES", systemRoles(db).length, "Roles, built-in and added"),
  ];
}
