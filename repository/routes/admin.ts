import { randomBytes } from "node:crypto";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { listValues, requestParams } from "../http/params.js";
import { requestText } from "../http/request-text.js";
import { MANAGERS, requireRole } from "../http/roles.js";
import { childrenNamed, descendant, parseXmlBody, type XmlNode } from "../http/xml-body.js";
import { sendMail } from "../outbox.js";
import { SECURITY_TAGS } from "../seed/users.js";
import {
  type AdminUser,
  activeAdmins,
  BUILT_IN_ROLES,
  entitiesWithTag,
  featureUsage,
  findUser,
  isActive,
  listUsers,
  roleExists,
  roleHolders,
  securityTags,
  systemRoles,
  tagExists,
} from "../store/admin/read.js";
import {
  createResetCode,
  deleteSecurityTag,
  deleteSystemRole,
  deleteUser,
  endSessions,
  insertSecurityTag,
  insertSystemRole,
  insertUser,
  NO_PASSWORD,
  setEnabled,
  updateUser,
} from "../store/admin/write.js";
import { hashPassword, Role } from "../store/auth.js";
import { configEventFilterInfo, configEventsPage } from "../store/config-events/read.js";
import { type ConfigEventInput, recordConfigEvent } from "../store/config-events/write.js";
import { adminNamespace, adminRoleName, nameListXml, nameXml, userXml } from "../xml/admin-docs.js";
import { pagingOf, queryOnce } from "./operations-common.js";

/**
 * The Admin API (`/api/admin`): users, security tags, system roles, temporary users, config events and
 * feature usage. Users, tags and roles answer in XML in the AdminAPI namespace, exactly as pyPreservica's
 * AdminAPI reads and writes them (wire-writes-admin.md §5); temporary users, config events and feature
 * usage have no wire facts and answer JSON in the service's envelope `{success, version, value}`.
 *
 * Every route needs a token (401 otherwise) and the manager or administrator role (403 otherwise, never
 * 401). Every change records a config event in its own transaction. Guards: no one deletes or disables
 * themselves, and the last user who holds the administrator role and can sign in keeps it.
 */

type Ctx = Context<AppEnv>;

const XML_TYPE = "application/xml;charset=UTF-8";
/** How long the code mailed to a new user for setting their password stays valid. */
const WELCOME_CODE_TTL_MS = 7 * 86_400_000;
const MAX_TEMPORARY_DAYS = 3650;
const DEFAULT_PAGE_SIZE = 100;
/** Roles a temporary account may not have: it is for visitors, not for running the repository. */
const NOT_FOR_TEMPORARY: readonly string[] = [Role.MANAGER, Role.ADMIN, Role.REGISTRY_ADMIN];

const USER_EXAMPLE =
  '<User xmlns="http://preservica.com/AdminAPI/v7.7"><FullName>Jo Bloggs</FullName><Email>jo@example.org</Email><Roles><Role>SDB_ACCESS_USER</Role></Roles></User>';
const TAG_EXAMPLE = '<Tag xmlns="http://preservica.com/AdminAPI/v7.7">restricted</Tag>';
const ROLE_EXAMPLE = '<Role xmlns="http://preservica.com/AdminAPI/v7.7">SDB_EXHIBITIONS_USER</Role>';

export function adminRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken, requireRole(MANAGERS, "use the Admin API"));

  app.get("/users", (c) =>
    xmlReply(
      c,
      nameListXml(
        ns(c),
        "Users",
        "User",
        listUsers(c.get("svc").db).map((u) => u.username),
      ),
    ),
  );
  app.post("/users", createUser);
  app.get("/users/:user", (c) => xmlReply(c, userXml(ns(c), knownUser(c, c.req.param("user")))));
  app.put("/users/:user", updateUserDetails);
  app.put("/users/:user/enabled", setUserEnabled);
  app.delete("/users/:user", removeUser);

  app.get("/security/tags", (c) =>
    xmlReply(c, nameListXml(ns(c), "Tags", "Tag", securityTags(c.get("svc").db))),
  );
  app.post("/security/tags", addTag);
  app.delete("/security/tags/:tag", removeTag);
  // Roles are listed as the real service lists them, with the ROLE_ prefix (pyPreservica's own tests look
  // for ROLE_SDB_ACCESS_USER); user documents name a user's roles without it.
  app.get("/security/roles", (c) =>
    xmlReply(c, nameListXml(ns(c), "Roles", "Role", systemRoles(c.get("svc").db))),
  );
  app.post("/security/roles", addRole);
  app.delete("/security/roles/:role", removeRole);

  app.get("/temporary-users", (c) => {
    const users = listUsers(c.get("svc").db, { temporary: true });
    return ok(c, { temporaryUsers: users.map((u) => userJson(c, u)), total: users.length });
  });
  app.post("/temporary-users", createTemporaryUser);
  app.get("/temporary-users/:user", (c) => ok(c, userJson(c, temporaryUser(c, c.req.param("user")))));
  app.put("/temporary-users/:user", renewTemporaryUser);
  app.delete("/temporary-users/:user", removeTemporaryUser);

  app.get("/config-events/filter-info", (c) => ok(c, configEventFilterInfo(c.get("svc").db)));
  app.get("/config-events", listConfigEvents);
  app.get("/features/usage", (c) =>
    ok(c, { at: nowIso(c), features: featureUsage(c.get("svc").db, nowIso(c)) }),
  );
  return app;
}

// --- replies -------------------------------------------------------------------------------------------

function ns(c: Ctx): string {
  return adminNamespace(c.get("svc").apiVersion);
}

function xmlReply(c: Ctx, body: string, status: ContentfulStatusCode = 200): Response {
  return c.body(body, status, { "Content-Type": XML_TYPE });
}

function ok(c: Ctx, value: unknown, status: ContentfulStatusCode = 200): Response {
  return c.json({ success: true, version: 1, value }, status);
}

function bad(message: string): HTTPException {
  return new HTTPException(400, { message });
}

function conflict(message: string): HTTPException {
  return new HTTPException(409, { message });
}

/** A user as the JSON routes show one (temporary users): never a password or a 2FA secret. */
function userJson(c: Ctx, u: AdminUser) {
  return {
    username: u.username,
    fullName: u.fullName,
    email: u.email,
    tenant: u.tenant,
    roles: u.roles,
    enabled: u.enabled,
    expires: u.expires,
    expired: u.expires !== null && u.expires <= nowIso(c),
    needsChallenge: u.needsChallenge,
    lastLogin: u.lastLogin,
  };
}

/** Runs a change and its config event in one transaction. */
function change(c: Ctx, event: Omit<ConfigEventInput, "username" | "at">, apply: () => void): void {
  const { db } = c.get("svc");
  db.transaction(() => {
    apply();
    recordConfigEvent(db, { ...event, username: c.get("caller").user.username, at: nowIso(c) });
  })();
}

// --- input ---------------------------------------------------------------------------------------------

async function xmlBody(c: Ctx, example: string, root: string): Promise<XmlNode> {
  const node = parseXmlBody(await requestText(c.req), example);
  if (node.name !== root) {
    throw bad(
      `The body's root element is <${node.name.slice(0, 60)}>; send <${root}>, for example ${example}`,
    );
  }
  return node;
}

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
const EMAIL = /^[^\s@<>]{1,64}@[^\s@<>]{1,189}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL = /[\u0000-\u001F\u007F]/;
const TAG_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;
const ROLE_NAME = /^(?:ROLE_)?[A-Za-z][A-Za-z0-9_]{0,63}$/;

function checkUsername(raw: string | undefined, what: string): string {
  const v = (raw ?? "").trim();
  if (!USERNAME.test(v)) {
    throw bad(
      `${what} "${v.slice(0, 80)}" is not a user name: 1 to 128 letters, digits and . _ @ + -, such as jo.bloggs@example.org`,
    );
  }
  return v;
}

function checkFullName(raw: string | undefined): string {
  const v = (raw ?? "").trim();
  if (v === "" || v.length > 200 || CONTROL.test(v)) {
    throw bad("FullName is required: the person's name, 1 to 200 characters without control characters");
  }
  return v;
}

function checkEmail(raw: string | undefined): string {
  const v = (raw ?? "").trim();
  if (!EMAIL.test(v))
    throw bad(`Email "${v.slice(0, 80)}" is not an e-mail address; send one such as jo@example.org`);
  return v;
}

/** A role as sent (`SDB_ACCESS_USER` or `ROLE_SDB_ACCESS_USER`) as stored (`ROLE_…`); must exist. */
function knownRole(c: Ctx, raw: string): string {
  const v = raw.trim();
  if (!ROLE_NAME.test(v)) {
    throw bad(
      `"${v.slice(0, 80)}" is not a role name; roles look like SDB_ACCESS_USER (GET /api/admin/security/roles lists them)`,
    );
  }
  const role = v.startsWith("ROLE_") ? v : `ROLE_${v}`;
  if (!roleExists(c.get("svc").db, role)) {
    throw bad(
      `No role ${adminRoleName(role)}; the roles are ${systemRoles(c.get("svc").db).map(adminRoleName).join(", ")}`,
    );
  }
  return role;
}

function rolesFrom(c: Ctx, names: readonly string[]): string[] {
  return [...new Set(names.map((n) => knownRole(c, n)))];
}

function knownUser(c: Ctx, raw: string | undefined): AdminUser {
  const username = checkUsername(raw, "User");
  const u = findUser(c.get("svc").db, username);
  if (!u) throw new HTTPException(404, { message: `No user ${username}; GET /api/admin/users lists them` });
  return u;
}

function temporaryUser(c: Ctx, raw: string | undefined): AdminUser {
  const u = knownUser(c, raw);
  if (!u.temporary) {
    throw new HTTPException(404, {
      message: `${u.username} is not a temporary user; permanent users are at /api/admin/users/${u.username}`,
    });
  }
  return u;
}

/** 409 unless the change leaves at least one active administrator other than `username`. */
function keepAnAdmin(c: Ctx, u: AdminUser, what: string): void {
  if (!u.roles.includes(Role.ADMIN)) return;
  const others = activeAdmins(c.get("svc").db, nowIso(c)).filter((a) => a !== u.username);
  if (others.length === 0) {
    throw conflict(
      `${u.username} is the last user with the ${adminRoleName(Role.ADMIN)} role who can sign in, so they cannot be ${what}; give another user that role first`,
    );
  }
}

function notSelf(c: Ctx, u: AdminUser, what: string): void {
  if (u.username === c.get("caller").user.username) {
    throw conflict(`You cannot ${what} your own account (${u.username}); ask another administrator`);
  }
}

// --- users ---------------------------------------------------------------------------------------------

/** Mails a code the new user sets their password with (no password travels or is chosen for them). */
function mailWelcome(c: Ctx, u: { username: string; email: string; fullName: string }): void {
  const svc = c.get("svc");
  const code = createResetCode(svc.db, u.username, svc.now(), WELCOME_CODE_TTL_MS);
  sendMail(
    svc.dataDir,
    u,
    "Your repository account",
    `Hello ${u.fullName},\n\nAn account was created for you: user name ${u.username}.\nSet your password with this code (valid 7 days, once):\n\nReset code: ${code}\n\nPOST /api/user/password/reset with code and password.`,
  );
}

async function createUser(c: Ctx): Promise<Response> {
  const body = await xmlBody(c, USER_EXAMPLE, "User");
  const text = (name: string) => descendant(body, name)?.text.trim();
  const fullName = checkFullName(text("FullName"));
  const email = checkEmail(text("Email"));
  const username = checkUsername(text("userName") || text("UserName") || email, "The user name");
  const roles = rolesFrom(c, rolesIn(body) ?? [Role.ACCESS]);
  const { db } = c.get("svc");
  if (findUser(db, username)) {
    throw conflict(`User ${username} already exists; change it with PUT /api/admin/users/${username}`);
  }
  const tenant = c.get("caller").user.tenant;
  change(
    c,
    {
      category: "USER",
      commandType: "CREATE",
      subject: username,
      summary: `Created user ${username} (${roles.map(adminRoleName).join(", ")})`,
      details: { fullName, email, roles, source: c.req.query("source") ?? null },
    },
    () => {
      insertUser(db, {
        username,
        fullName,
        email,
        tenant,
        roles,
        temporary: false,
        expires: null,
        needsChallenge: false,
        passwordHash: NO_PASSWORD,
      });
      mailWelcome(c, { username, email, fullName });
    },
  );
  return xmlReply(c, userXml(ns(c), findUser(db, username) as AdminUser), 201);
}

/** The Role texts of a user document, or undefined when it names no roles (then the roles stay). */
function rolesIn(body: XmlNode): string[] | undefined {
  const wrapper = descendant(body, "Roles");
  const items = wrapper ? childrenNamed(wrapper, "Role") : childrenNamed(body, "Role");
  if (!wrapper && items.length === 0) return undefined;
  return items.map((r) => r.text.trim());
}

async function updateUserDetails(c: Ctx): Promise<Response> {
  const u = knownUser(c, c.req.param("user"));
  const body = await xmlBody(c, USER_EXAMPLE, "User");
  const text = (name: string) => descendant(body, name)?.text.trim();
  const named = text("UserName");
  if (named !== undefined && named !== u.username) {
    throw bad(
      `UserName ${named.slice(0, 80)} does not match the user in the path (${u.username}); user names cannot be changed`,
    );
  }
  const fullName = text("FullName") === undefined ? u.fullName : checkFullName(text("FullName"));
  const email = text("Email") === undefined ? u.email : checkEmail(text("Email"));
  const sent = rolesIn(body);
  const roles = sent === undefined ? u.roles : rolesFrom(c, sent);
  if (u.roles.includes(Role.ADMIN) && !roles.includes(Role.ADMIN)) keepAnAdmin(c, u, "given up the role");
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  if (fullName !== u.fullName) [before.fullName, after.fullName] = [u.fullName, fullName];
  if (email !== u.email) [before.email, after.email] = [u.email, email];
  if (JSON.stringify(roles) !== JSON.stringify(u.roles)) [before.roles, after.roles] = [u.roles, roles];
  const { db } = c.get("svc");
  if (Object.keys(after).length > 0) {
    change(
      c,
      {
        category: "USER",
        commandType: "UPDATE",
        subject: u.username,
        summary: `Changed ${Object.keys(after).join(", ")} of user ${u.username}`,
        details: { before, after },
      },
      () => updateUser(db, u.username, { fullName, email, roles }),
    );
  }
  return xmlReply(c, userXml(ns(c), findUser(db, u.username) as AdminUser));
}

async function setUserEnabled(c: Ctx): Promise<Response> {
  const u = knownUser(c, c.req.param("user"));
  const raw = ((await requestParams(c)).get("userEnabledStatus") ?? "").trim().toLowerCase();
  if (raw !== "true" && raw !== "false") {
    throw bad(
      "Send userEnabledStatus=true or userEnabledStatus=false (form-encoded) to enable or disable the user",
    );
  }
  const enabled = raw === "true";
  if (!enabled) {
    notSelf(c, u, "disable");
    keepAnAdmin(c, u, "disabled");
  }
  const { db } = c.get("svc");
  if (enabled !== u.enabled) {
    change(
      c,
      {
        category: "USER",
        commandType: enabled ? "ENABLE" : "DISABLE",
        subject: u.username,
        summary: `${enabled ? "Enabled" : "Disabled"} user ${u.username}${enabled ? "" : " and ended their sessions"}`,
      },
      () => {
        setEnabled(db, u.username, enabled);
        if (!enabled) endSessions(db, u.username);
      },
    );
  }
  return xmlReply(c, userXml(ns(c), findUser(db, u.username) as AdminUser));
}

function removeUser(c: Ctx): Response {
  const u = knownUser(c, c.req.param("user"));
  notSelf(c, u, "delete");
  keepAnAdmin(c, u, "deleted");
  const { db } = c.get("svc");
  change(
    c,
    {
      category: "USER",
      commandType: "DELETE",
      subject: u.username,
      summary: `Deleted ${u.temporary ? "temporary " : ""}user ${u.username} and ended their sessions`,
      details: { fullName: u.fullName, email: u.email, roles: u.roles },
    },
    () => deleteUser(db, u.username),
  );
  return c.body(null, 204);
}

// --- security tags and roles ---------------------------------------------------------------------------

async function addTag(c: Ctx): Promise<Response> {
  const name = (await xmlBody(c, TAG_EXAMPLE, "Tag")).text.trim();
  if (!TAG_NAME.test(name)) {
    throw bad(
      `"${name.slice(0, 80)}" is not a tag name: 1 to 64 letters, digits, spaces and _ . -, starting with a letter or digit`,
    );
  }
  const { db } = c.get("svc");
  if (tagExists(db, name)) throw conflict(`Security tag ${name} already exists`);
  change(
    c,
    {
      category: "SECURITY",
      commandType: "CREATE",
      subject: name,
      summary: `Added security tag ${name} (managers and administrators may do everything on it)`,
    },
    () => insertSecurityTag(db, name),
  );
  return xmlReply(c, nameXml(ns(c), "Tag", name), 201);
}

function removeTag(c: Ctx): Response {
  const name = (c.req.param("tag") ?? "").trim();
  const { db } = c.get("svc");
  if (!TAG_NAME.test(name) || !tagExists(db, name)) {
    throw new HTTPException(404, {
      message: `No security tag "${name.slice(0, 80)}"; GET /api/admin/security/tags lists them`,
    });
  }
  if ((SECURITY_TAGS as readonly string[]).includes(name)) {
    throw conflict(`${name} is a built-in security tag and cannot be deleted`);
  }
  const used = entitiesWithTag(db, name);
  if (used > 0) {
    throw conflict(
      `Security tag ${name} is on ${used} entit${used === 1 ? "y" : "ies"} (recycle bin included); give them another tag first`,
    );
  }
  change(
    c,
    { category: "SECURITY", commandType: "DELETE", subject: name, summary: `Deleted security tag ${name}` },
    () => deleteSecurityTag(db, name),
  );
  return c.body(null, 204);
}

async function addRole(c: Ctx): Promise<Response> {
  const raw = (await xmlBody(c, ROLE_EXAMPLE, "Role")).text.trim();
  if (!ROLE_NAME.test(raw)) {
    throw bad(
      `"${raw.slice(0, 80)}" is not a role name: a letter, then up to 63 letters, digits and _, such as SDB_EXHIBITIONS_USER`,
    );
  }
  const role = raw.startsWith("ROLE_") ? raw : `ROLE_${raw}`;
  const { db } = c.get("svc");
  if (roleExists(db, role)) throw conflict(`Role ${adminRoleName(role)} already exists`);
  change(
    c,
    {
      category: "SECURITY",
      commandType: "CREATE",
      subject: role,
      summary: `Added role ${adminRoleName(role)} (no permissions on any tag yet)`,
    },
    () => insertSystemRole(db, role, c.get("caller").user.username, nowIso(c)),
  );
  return xmlReply(c, nameXml(ns(c), "Role", role), 201);
}

function removeRole(c: Ctx): Response {
  const raw = (c.req.param("role") ?? "").trim();
  const role = raw.startsWith("ROLE_") ? raw : `ROLE_${raw}`;
  const { db } = c.get("svc");
  if (!ROLE_NAME.test(raw) || !roleExists(db, role)) {
    throw new HTTPException(404, {
      message: `No role "${raw.slice(0, 80)}"; GET /api/admin/security/roles lists them`,
    });
  }
  if (BUILT_IN_ROLES.includes(role))
    throw conflict(`${adminRoleName(role)} is a built-in role and cannot be deleted`);
  const holders = roleHolders(db, role);
  if (holders.length > 0) {
    throw conflict(
      `Role ${adminRoleName(role)} is held by ${holders.slice(0, 10).join(", ")}${holders.length > 10 ? ", …" : ""}; take it from them first (PUT /api/admin/users/{user})`,
    );
  }
  change(
    c,
    {
      category: "SECURITY",
      commandType: "DELETE",
      subject: role,
      summary: `Deleted role ${adminRoleName(role)}`,
    },
    () => deleteSystemRole(db, role),
  );
  return c.body(null, 204);
}

// --- temporary users -----------------------------------------------------------------------------------

/** The expiry a request asks for: `expires` (ISO 8601, in the future) or `validDays` (1 to 3650). */
function requestedExpiry(c: Ctx, p: { get(n: string): string | undefined }): string {
  const expires = p.get("expires")?.trim();
  const days = p.get("validDays")?.trim();
  const now = c.get("svc").now();
  const latest = now + MAX_TEMPORARY_DAYS * 86_400_000;
  if (expires && days) throw bad("Give either expires or validDays, not both");
  if (days) {
    if (!/^\d{1,4}$/.test(days) || Number(days) < 1 || Number(days) > MAX_TEMPORARY_DAYS) {
      throw bad(
        `validDays must be a whole number of days from 1 to ${MAX_TEMPORARY_DAYS}, got "${days.slice(0, 40)}"`,
      );
    }
    return new Date(now + Number(days) * 86_400_000).toISOString();
  }
  if (expires) {
    const t = /^\d{4}-\d{2}-\d{2}/.test(expires) ? Date.parse(expires) : Number.NaN;
    if (Number.isNaN(t))
      throw bad(
        `expires must be an ISO 8601 date-time such as 2030-01-31T17:00:00Z, got "${expires.slice(0, 40)}"`,
      );
    if (t <= now) throw bad("expires must be in the future");
    if (t > latest) throw bad(`expires may be at most ${MAX_TEMPORARY_DAYS} days ahead`);
    return new Date(t).toISOString();
  }
  throw bad("Say when the account expires: expires (ISO 8601 date-time) or validDays (whole days)");
}

async function createTemporaryUser(c: Ctx): Promise<Response> {
  const p = await requestParams(c, { json: true });
  const username = checkUsername(p.get("username"), "username");
  const fullName = checkFullName(p.get("fullName"));
  const email = checkEmail(p.get("email"));
  const sentRoles = parseRoles(p.getAll("roles"));
  const roles = rolesFrom(c, sentRoles.length > 0 ? sentRoles : [Role.ACCESS]);
  const barred = roles.filter((r) => NOT_FOR_TEMPORARY.includes(r));
  if (barred.length > 0) {
    throw bad(
      `A temporary user may not have the role ${barred.map(adminRoleName).join(", ")}; create a permanent user for that`,
    );
  }
  const expires = requestedExpiry(c, p);
  const rawChallenge = p.get("needsChallenge")?.trim().toLowerCase();
  if (rawChallenge !== undefined && rawChallenge !== "true" && rawChallenge !== "false") {
    throw bad("needsChallenge must be true or false");
  }
  const needsChallenge = rawChallenge !== "false";
  const { db, dataDir } = c.get("svc");
  if (findUser(db, username)) throw conflict(`User ${username} already exists`);
  // Chosen here and mailed to the person (the outbox), never shown in a reply or a config event.
  const password = randomBytes(12).toString("base64url");
  const passwordHash = hashPassword(password);
  change(
    c,
    {
      category: "USER",
      commandType: "CREATE",
      subject: username,
      summary: `Created temporary user ${username}, expires ${expires}`,
      details: { fullName, email, roles, expires, needsChallenge, temporary: true },
    },
    () => {
      insertUser(db, {
        username,
        fullName,
        email,
        tenant: c.get("caller").user.tenant,
        roles,
        temporary: true,
        expires,
        needsChallenge,
        passwordHash,
      });
      sendMail(
        dataDir,
        { username, email },
        "Your temporary repository account",
        `Hello ${fullName},\n\nA temporary account was made for you.\nUser name: ${username}\nPassword: ${password}\nIt expires ${expires}.${needsChallenge ? "\nWhen you sign in, a challenge code is sent to this address." : ""}\n\nSign in with POST /api/accesstoken/acquire-temp-user.`,
      );
    },
  );
  return ok(c, userJson(c, findUser(db, username) as AdminUser), 201);
}

/** `roles` as a JSON array (a JSON body's list arrives as its text), repeated, or comma-joined. */
function parseRoles(values: string[]): string[] {
  return values.flatMap((v) => {
    const t = v.trim();
    if (t.startsWith("[")) {
      try {
        const list = JSON.parse(t) as unknown;
        if (Array.isArray(list) && list.every((x) => typeof x === "string")) return list as string[];
      } catch {
        // not JSON: read as names below, which then fail the role check with a clear message
      }
    }
    return listValues([t]);
  });
}

async function renewTemporaryUser(c: Ctx): Promise<Response> {
  const u = temporaryUser(c, c.req.param("user"));
  const expires = requestedExpiry(c, await requestParams(c, { json: true }));
  const { db } = c.get("svc");
  change(
    c,
    {
      category: "USER",
      commandType: "UPDATE",
      subject: u.username,
      summary: `Temporary user ${u.username} now expires ${expires}`,
      details: { before: { expires: u.expires }, after: { expires } },
    },
    () => db.prepare("UPDATE users SET expires = ? WHERE username = ?").run(expires, u.username),
  );
  return ok(c, userJson(c, findUser(db, u.username) as AdminUser));
}

function removeTemporaryUser(c: Ctx): Response {
  const u = temporaryUser(c, c.req.param("user"));
  notSelf(c, u, "delete");
  const { db } = c.get("svc");
  change(
    c,
    {
      category: "USER",
      commandType: "DELETE",
      subject: u.username,
      summary: `Removed temporary user ${u.username} and ended their sessions`,
      details: {
        fullName: u.fullName,
        email: u.email,
        expires: u.expires,
        wasActive: isActive(u, nowIso(c)),
      },
    },
    () => deleteUser(db, u.username),
  );
  return c.body(null, 204);
}

// --- config events -------------------------------------------------------------------------------------

const FILTER_VALUE = /^[A-Za-z_]{1,40}$/;

function filterValue(c: Ctx, name: string): string | undefined {
  const v = queryOnce(c, name);
  if (v === undefined) return undefined;
  if (!FILTER_VALUE.test(v)) {
    throw bad(
      `${name} "${v.slice(0, 40)}" is not a ${name}; GET /api/admin/config-events/filter-info lists them`,
    );
  }
  return v.toUpperCase();
}

function dateValue(c: Ctx, name: string): string | undefined {
  const v = queryOnce(c, name);
  if (v === undefined) return undefined;
  const t = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v.replace(/ (\d{2}:?\d{2})$/, "+$1")) : Number.NaN;
  if (Number.isNaN(t))
    throw bad(`${name} must be an ISO 8601 date or date-time such as 2024-01-31T12:00:00Z`);
  return new Date(t).toISOString();
}

function listConfigEvents(c: Ctx): Response {
  const { start, max } = pagingOf(c, DEFAULT_PAGE_SIZE);
  const username = queryOnce(c, "username");
  if (username !== undefined) checkUsername(username, "username");
  const filter = {
    category: filterValue(c, "category"),
    commandType: filterValue(c, "commandType"),
    username,
    from: dateValue(c, "from"),
    to: dateValue(c, "to"),
  };
  const page = configEventsPage(c.get("svc").db, filter, start, max);
  return ok(c, {
    events: page.events.map((e) => ({
      ref: e.ref,
      at: e.at,
      username: e.username,
      category: e.category,
      commandType: e.command_type,
      subject: e.subject,
      summary: e.summary,
      details: e.details === null ? null : (JSON.parse(e.details) as unknown),
    })),
    total: page.total,
    start,
    max,
  });
}
