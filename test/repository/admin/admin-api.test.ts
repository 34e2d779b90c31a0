import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseXmlBody, type XmlNode } from "../../../repository/http/xml-body.js";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";
import {
  ADMIN_NS,
  type As,
  eventsAbout,
  lastMail,
  loginAs,
  mailValue,
  SECURITY_NS,
  setPasswordAndLogin,
  XML_HEADERS,
} from "./admin-helpers.js";

/**
 * The Admin API over real HTTP: users, security tags, system roles, temporary users, config events and
 * feature usage; the User API's password reset; the Security API's tags with permissions. Each surface
 * with the right role (manager) and the wrong one (curator: 403, never 401), and the state behind it.
 */

const A = "/api/admin";
let repo: RunningRepository;
let manager: As;
let curator: As;

beforeAll(async () => {
  repo = await startTestRepository();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
});
afterAll(async () => {
  await repo?.close();
});

async function xmlOf(res: Response, status = 200): Promise<XmlNode> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/application\/xml/);
  return parseXmlBody(text, "");
}

function texts(root: XmlNode, name: string): string[] {
  const out: string[] = [];
  const walk = (n: XmlNode) => {
    for (const c of n.children) {
      if (c.name === name && c.ns === ADMIN_NS) out.push(c.text);
      walk(c);
    }
  };
  walk(root);
  return out;
}

function usersHash(): string {
  return JSON.stringify(
    repo.svc.db
      .prepare(
        "SELECT username, full_name, email, roles, enabled, expires, password_hash FROM users ORDER BY username",
      )
      .all(),
  );
}

/** A request that must be refused with `status`, changing nothing stored (users included). */
async function refused(
  as: As,
  method: string,
  path: string,
  body: string | undefined,
  status: number,
  message?: RegExp,
) {
  const before = [storeHash(repo.svc.db), usersHash()];
  const res = await as(path, { method, headers: XML_HEADERS, ...(body === undefined ? {} : { body }) });
  const reply = (await res.json()) as { success: boolean; message: string };
  expect(res.status, reply.message).toBe(status);
  expect(reply.success).toBe(false);
  if (message) expect(reply.message).toMatch(message);
  expect([storeHash(repo.svc.db), usersHash()]).toEqual(before);
  return reply.message;
}

const userDoc = (fullName: string, email: string, roles: string[]) =>
  `<User  xmlns="${ADMIN_NS}"><FullName>${fullName}</FullName><Email>${email}</Email><Roles>${roles.map((r) => `<Role>${r}</Role>`).join("")}</Roles></User >`;

async function createUser(email: string, roles: string[], fullName = "Test Person"): Promise<XmlNode> {
  return xmlOf(
    await manager(`${A}/users?source=UX2`, {
      method: "POST",
      headers: XML_HEADERS,
      body: userDoc(fullName, email, roles),
    }),
    201,
  );
}

describe("roles", () => {
  it("refuses every Admin API route to a user without the manager or administrator role (403), and a missing token with 401", async () => {
    for (const [method, path] of [
      ["GET", `${A}/users`],
      ["GET", `${A}/users/manager`],
      ["POST", `${A}/users`],
      ["PUT", `${A}/users/reader`],
      ["PUT", `${A}/users/reader/enabled`],
      ["DELETE", `${A}/users/reader`],
      ["GET", `${A}/security/tags`],
      ["POST", `${A}/security/tags`],
      ["DELETE", `${A}/security/tags/open`],
      ["GET", `${A}/security/roles`],
      ["POST", `${A}/security/roles`],
      ["DELETE", `${A}/security/roles/SDB_ACCESS_USER`],
      ["GET", `${A}/temporary-users`],
      ["POST", `${A}/temporary-users`],
      ["GET", `${A}/temporary-users/guest`],
      ["PUT", `${A}/temporary-users/guest`],
      ["DELETE", `${A}/temporary-users/guest`],
      ["GET", `${A}/config-events`],
      ["GET", `${A}/config-events/filter-info`],
      ["GET", `${A}/features/usage`],
    ] as const) {
      const body = method === "POST" || method === "PUT" ? "<Tag>x</Tag>" : undefined;
      await refused(curator, method, path, body, 403, /managers and administrators/);
      const anonymous = await fetch(`${repo.url}${path}`, { method, ...(body ? { body } : {}) });
      expect(anonymous.status, `${method} ${path} without a token`).toBe(401);
    }
  });
});

describe("users", () => {
  it("lists users as User texts and gives details as pyPreservica reads them", async () => {
    const list = await xmlOf(await manager(`${A}/users`));
    expect(list.name).toBe("Users");
    expect(texts(list, "User")).toEqual(expect.arrayContaining(["manager", "curator", "reader", "guest"]));
    const d = await xmlOf(await manager(`${A}/users/curator`));
    expect(texts(d, "UserName")).toEqual(["curator"]);
    expect(texts(d, "FullName")).toEqual(["Daniel Okafor"]);
    expect(texts(d, "Email")).toEqual(["daniel.okafor@example.org"]);
    expect(texts(d, "Tenant")).toEqual(["DEMO"]);
    expect(texts(d, "Enabled")).toEqual(["true"]);
    expect(texts(d, "Role")).toEqual(["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    await refused(manager, "GET", `${A}/users/nobody.here`, undefined, 404, /No user nobody.here/);
  });

  it("creates a user from the client's document (stray spaces, Email as the user name), mails a code to set the password, and records it", async () => {
    const d = await createUser(
      "new.archivist@example.org",
      ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"],
      "Nia Archivist",
    );
    expect(texts(d, "UserName")).toEqual(["new.archivist@example.org"]);
    expect(texts(d, "Role")).toEqual(["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    expect(lastMail(repo, "new.archivist@example.org")).toMatch(/^To: new.archivist@example.org$/m);
    // No password until they set one with the code.
    const before = await fetch(`${repo.url}/api/accesstoken/login`, {
      method: "POST",
      body: new URLSearchParams({ username: "new.archivist@example.org", password: "" }),
    });
    expect(((await before.json()) as { success: boolean }).success).toBe(false);
    const token = await setPasswordAndLogin(repo, "new.archivist@example.org", "a-long-new-password");
    const me = (await (await authed(repo.url, token)("/api/user/details")).json()) as { roles: string[] };
    expect(me.roles).toEqual(["ROLE_SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"]);
    const events = await eventsAbout(manager, "new.archivist@example.org");
    expect(events.map((e) => e.commandType)).toEqual(["UPDATE", "CREATE"]);
    expect(events[1]).toMatchObject({ category: "USER", username: "manager" });
    expect(JSON.stringify(events)).not.toContain("a-long-new-password");
  });

  it("refuses a second user of the same name, unknown roles and bad documents, changing nothing", async () => {
    await refused(manager, "POST", `${A}/users`, userDoc("X", "curator", ["SDB_ACCESS_USER"]), 400, /e-mail/);
    await createUser("twice@example.org", ["SDB_ACCESS_USER"]);
    await refused(
      manager,
      "POST",
      `${A}/users`,
      userDoc("X", "twice@example.org", ["SDB_ACCESS_USER"]),
      409,
      /already exists/,
    );
    await refused(
      manager,
      "POST",
      `${A}/users`,
      userDoc("X", "y@example.org", ["SDB_INGEST_USER"]),
      400,
      /No role SDB_INGEST_USER; the roles are SDB_ACCESS_USER/,
    );
    await refused(
      manager,
      "POST",
      `${A}/users`,
      userDoc("", "y@example.org", []),
      400,
      /FullName is required/,
    );
    await refused(manager, "POST", `${A}/users`, "<User><FullName>x", 400);
    await refused(manager, "POST", `${A}/users`, `<Tag xmlns="${ADMIN_NS}">x</Tag>`, 400, /send <User>/);
  });

  it("renames a user the way pyPreservica does (GET, edit FullName, PUT the document back) and changes roles", async () => {
    await createUser("rename.me@example.org", ["SDB_ACCESS_USER"], "Old Name");
    const doc = await (await manager(`${A}/users/rename.me@example.org`)).text();
    const edited = doc.replace("<FullName>Old Name</FullName>", "<FullName>New Name</FullName>");
    const put = await xmlOf(
      await manager(`${A}/users/rename.me@example.org`, {
        method: "PUT",
        headers: XML_HEADERS,
        body: edited,
      }),
    );
    expect(texts(put, "FullName")).toEqual(["New Name"]);
    const again = await xmlOf(
      await manager(`${A}/users/rename.me@example.org`, {
        method: "PUT",
        headers: XML_HEADERS,
        body: edited.replace(
          "<Role>SDB_ACCESS_USER</Role>",
          "<Role>SDB_ACCESS_USER</Role><Role>ROLE_SDB_DATA_MANAGEMENT_USER</Role>",
        ),
      }),
    );
    expect(texts(again, "Role")).toEqual(["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    const events = await eventsAbout(manager, "rename.me@example.org");
    expect(events[1]?.details).toEqual({ before: { fullName: "Old Name" }, after: { fullName: "New Name" } });
    expect(events[0]?.summary).toMatch(/Changed roles/);
    await refused(
      manager,
      "PUT",
      `${A}/users/rename.me@example.org`,
      edited.replace("rename.me@example.org</UserName>", "other@example.org</UserName>"),
      400,
      /cannot be changed/,
    );
  });

  it("disables a user (form body labelled text/plain): their sessions end at once and sign-in fails; enabling lets them back", async () => {
    const reader = authed(repo.url, (await login(repo.url, "reader")).token);
    expect((await reader("/api/user/details")).status).toBe(200);
    const res = await manager(`${A}/users/reader/enabled`, {
      method: "PUT",
      headers: { "Content-Type": "text/plain;charset=UTF-8" },
      body: "userEnabledStatus=false",
    });
    expect(texts(await xmlOf(res), "Enabled")).toEqual(["false"]);
    expect((await reader("/api/user/details")).status).toBe(401);
    expect(
      repo.svc.db.prepare("SELECT count(*) AS n FROM tokens WHERE username = 'reader' AND revoked = 0").get(),
    ).toEqual({ n: 0 });
    await expect(login(repo.url, "reader")).rejects.toThrow();
    const on = await manager(`${A}/users/reader/enabled`, {
      method: "PUT",
      headers: { "Content-Type": "text/plain" },
      body: "userEnabledStatus=true",
    });
    expect(texts(await xmlOf(on), "Enabled")).toEqual(["true"]);
    await login(repo.url, "reader");
    expect((await eventsAbout(manager, "reader")).map((e) => e.commandType)).toEqual(["ENABLE", "DISABLE"]);
    await refused(
      manager,
      "PUT",
      `${A}/users/reader/enabled`,
      "userEnabledStatus=maybe",
      400,
      /true or userEnabledStatus=false/,
    );
  });

  it("deletes a user with their sessions (204), refuses deleting or disabling oneself, and keeps the last administrator", async () => {
    await createUser("leaving@example.org", ["SDB_ACCESS_USER"]);
    const leaving = authed(
      repo.url,
      await setPasswordAndLogin(repo, "leaving@example.org", "leaving-password"),
    );
    expect((await leaving("/api/user/details")).status).toBe(200);
    expect((await manager(`${A}/users/leaving@example.org`, { method: "DELETE" })).status).toBe(204);
    expect((await leaving("/api/user/details")).status).toBe(401);
    expect(
      repo.svc.db
        .prepare("SELECT count(*) AS n FROM tokens WHERE username = 'leaving@example.org' AND revoked = 0")
        .get(),
    ).toEqual({ n: 0 });
    expect((await eventsAbout(manager, "leaving@example.org"))[0]).toMatchObject({
      commandType: "DELETE",
      category: "USER",
    });
    await refused(manager, "DELETE", `${A}/users/leaving@example.org`, undefined, 404);

    await refused(manager, "DELETE", `${A}/users/manager`, undefined, 409, /own account/);
    await refused(
      manager,
      "PUT",
      `${A}/users/manager/enabled`,
      "userEnabledStatus=false",
      409,
      /own account/,
    );
    // The only administrator cannot give the role up either.
    const doc = await (await manager(`${A}/users/manager`)).text();
    await refused(
      manager,
      "PUT",
      `${A}/users/manager`,
      doc.replace("<Role>SDB_ADMIN_USER</Role>", ""),
      409,
      /last user with the SDB_ADMIN_USER role/,
    );
    // A manager who is not an administrator may use the Admin API, but not remove the last administrator.
    await createUser("deputy@example.org", ["SDB_ACCESS_USER", "SDB_MANAGER_USER"]);
    const deputy = authed(repo.url, await setPasswordAndLogin(repo, "deputy@example.org", "deputy-password"));
    await refused(
      deputy,
      "DELETE",
      `${A}/users/manager`,
      undefined,
      409,
      /last user with the SDB_ADMIN_USER role/,
    );
    await refused(deputy, "PUT", `${A}/users/manager/enabled`, "userEnabledStatus=false", 409, /last user/);
    // With a second administrator, the first can go.
    await createUser("second.admin@example.org", ["SDB_ACCESS_USER", "SDB_ADMIN_USER"]);
    const off = await deputy(`${A}/users/manager/enabled`, {
      method: "PUT",
      body: "userEnabledStatus=false",
    });
    expect(off.status).toBe(200);
    expect((await manager("/api/user/details")).status).toBe(401);
    const back = await deputy(`${A}/users/manager/enabled`, {
      method: "PUT",
      body: "userEnabledStatus=true",
    });
    expect(back.status).toBe(200);
    manager = authed(repo.url, (await login(repo.url, "manager")).token);
  });
});

describe("security tags and system roles", () => {
  it("lists, adds (201, root text = the name) and deletes (204) a tag; managers may do everything on a new tag", async () => {
    const tags = await xmlOf(await manager(`${A}/security/tags`));
    expect(texts(tags, "Tag")).toEqual(["closed", "open", "staff"]);
    const added = await xmlOf(
      await manager(`${A}/security/tags`, {
        method: "POST",
        headers: XML_HEADERS,
        body: `<Tag xmlns="${ADMIN_NS}">exhibition loans</Tag>`,
      }),
      201,
    );
    expect(added.name).toBe("Tag");
    expect(added.text).toBe("exhibition loans");
    expect(texts(await xmlOf(await manager(`${A}/security/tags`)), "Tag")).toContain("exhibition loans");
    await refused(
      manager,
      "POST",
      `${A}/security/tags`,
      `<Tag xmlns="${ADMIN_NS}">exhibition loans</Tag>`,
      409,
      /already exists/,
    );
    await refused(
      manager,
      "POST",
      `${A}/security/tags`,
      `<Tag xmlns="${ADMIN_NS}">&lt;bad&gt;</Tag>`,
      400,
      /not a tag name/,
    );
    // The Security API shows what the service now enforces on it.
    const sec = parseXmlBody(await (await manager("/api/security/tags")).text(), "");
    const loans = sec.children.find((t) => t.attrs.name === "exhibition loans");
    expect(loans?.ns).toBe(SECURITY_NS);
    expect(loans?.children[0]?.children.map((p) => p.text)).toContain("Change Security Tag");
    const del = await manager(`${A}/security/tags/exhibition%20loans`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect(
      repo.svc.db.prepare("SELECT count(*) AS n FROM tag_permissions WHERE tag = 'exhibition loans'").get(),
    ).toEqual({ n: 0 });
    expect((await eventsAbout(manager, "exhibition loans")).map((e) => e.commandType)).toEqual([
      "DELETE",
      "CREATE",
    ]);
  });

  it("refuses deleting a built-in tag, a tag in use, or an unknown one", async () => {
    await refused(manager, "DELETE", `${A}/security/tags/open`, undefined, 409, /built-in/);
    await manager(`${A}/security/tags`, {
      method: "POST",
      headers: XML_HEADERS,
      body: `<Tag xmlns="${ADMIN_NS}">embargoed</Tag>`,
    });
    insertEntity(repo.svc.db, { type: "SO", title: "Embargoed papers", securityTag: "embargoed" });
    await refused(manager, "DELETE", `${A}/security/tags/embargoed`, undefined, 409, /on 1 entity/);
    await refused(manager, "DELETE", `${A}/security/tags/no-such-tag`, undefined, 404);
  });

  it("lists roles with the ROLE_ prefix, adds one by its bare name and deletes it by the listed name, refusing built-in and held roles", async () => {
    const roles = texts(await xmlOf(await manager(`${A}/security/roles`)), "Role");
    // pyPreservica's test_security: system_roles() holds ROLE_SDB_ACCESS_USER, add_system_role("SDB_CUSTOM_EDIT_USER")
    // answers "ROLE_SDB_CUSTOM_EDIT_USER", and delete_system_role takes that listed name.
    expect(roles).toEqual(
      expect.arrayContaining(["ROLE_SDB_ACCESS_USER", "ROLE_SDB_MANAGER_USER", "ROLE_SDB_ADMIN_USER"]),
    );
    expect(roles.filter((r) => !r.startsWith("ROLE_"))).toEqual([]);
    const added = await xmlOf(
      await manager(`${A}/security/roles`, {
        method: "POST",
        headers: XML_HEADERS,
        body: `<Role xmlns="${ADMIN_NS}">SDB_EXHIBITIONS_USER</Role>`,
      }),
      201,
    );
    expect(added.text).toBe("ROLE_SDB_EXHIBITIONS_USER");
    expect(texts(await xmlOf(await manager(`${A}/security/roles`)), "Role")).toContain(
      "ROLE_SDB_EXHIBITIONS_USER",
    );
    await refused(
      manager,
      "POST",
      `${A}/security/roles`,
      `<Role xmlns="${ADMIN_NS}">SDB_EXHIBITIONS_USER</Role>`,
      409,
    );
    await createUser("exhibitions@example.org", ["SDB_ACCESS_USER", "SDB_EXHIBITIONS_USER"]);
    await refused(
      manager,
      "DELETE",
      `${A}/security/roles/SDB_EXHIBITIONS_USER`,
      undefined,
      409,
      /held by exhibitions@example.org/,
    );
    await refused(manager, "DELETE", `${A}/security/roles/SDB_MANAGER_USER`, undefined, 409, /built-in/);
    expect((await manager(`${A}/users/exhibitions@example.org`, { method: "DELETE" })).status).toBe(204);
    expect(
      (await manager(`${A}/security/roles/ROLE_SDB_EXHIBITIONS_USER`, { method: "DELETE" })).status,
    ).toBe(204);
    const after = texts(await xmlOf(await manager(`${A}/security/roles`)), "Role");
    expect(after).not.toContain("ROLE_SDB_EXHIBITIONS_USER");
    expect(after).not.toContain("SDB_EXHIBITIONS_USER");
    expect((await eventsAbout(manager, "ROLE_SDB_EXHIBITIONS_USER")).map((e) => e.commandType)).toEqual([
      "DELETE",
      "CREATE",
    ]);
  });

  it("/api/security/tags gives each caller the permissions their roles really have", async () => {
    const reader = authed(repo.url, (await login(repo.url, "reader")).token);
    const res = await reader("/api/security/tags");
    expect(res.status).toBe(200);
    const root = parseXmlBody(await res.text(), "");
    const perms = Object.fromEntries(
      root.children.map((t) => [t.attrs.name, t.children.flatMap((p) => p.children.map((x) => x.text))]),
    );
    expect(perms.open).toEqual(["Download", "Read Metadata"]);
    expect(perms.closed).toEqual([]);
    const cur = parseXmlBody(await (await curator("/api/security/tags")).text(), "");
    const closed = cur.children.find((t) => t.attrs.name === "closed");
    expect(closed?.children[0]?.children.map((p) => p.text)).toEqual([
      "Download",
      "Ingest",
      "Move",
      "Read Metadata",
      "Update Metadata",
    ]);
    expect((await fetch(`${repo.url}/api/security/tags`)).status).toBe(401);
  });
});

describe("temporary users", () => {
  it("lists the demo guest as a temporary user", async () => {
    const res = await manager(`${A}/temporary-users`);
    const body = (await res.json()) as {
      success: boolean;
      value: { temporaryUsers: { username: string; expired: boolean; needsChallenge: boolean }[] };
    };
    expect(body.success).toBe(true);
    expect(body.value.temporaryUsers.find((u) => u.username === "guest")).toMatchObject({
      expired: false,
      needsChallenge: true,
    });
    await refused(manager, "GET", `${A}/temporary-users/curator`, undefined, 404, /not a temporary user/);
  });

  it("creates one with an expiry (password mailed, never answered), lets it sign in, renews and removes it", async () => {
    const res = await manager(`${A}/temporary-users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        username: "visiting.scholar",
        fullName: "Ada Visitor",
        email: "ada@example.org",
        validDays: 30,
        needsChallenge: false,
      }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    const created = JSON.parse(text) as { value: { expires: string; roles: string[] } };
    expect(created.value.roles).toEqual(["ROLE_SDB_ACCESS_USER"]);
    expect(Date.parse(created.value.expires) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const password = mailValue(lastMail(repo, "visiting.scholar"), "Password");
    expect(text).not.toContain(password);
    const signIn = await fetch(`${repo.url}/api/accesstoken/acquire-temp-user`, {
      method: "POST",
      body: new URLSearchParams({ username: "visiting.scholar", password }),
    });
    const session = (await signIn.json()) as { success: boolean; token: string };
    expect(session.success).toBe(true);
    const until = "2031-06-30T12:00:00.000Z";
    const renewed = await manager(`${A}/temporary-users/visiting.scholar`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ expires: until }),
    });
    expect(((await renewed.json()) as { value: { expires: string } }).value.expires).toBe(until);
    expect((await manager(`${A}/temporary-users/visiting.scholar`, { method: "DELETE" })).status).toBe(204);
    expect((await authed(repo.url, session.token)("/api/user/details")).status).toBe(401);
    const events = await eventsAbout(manager, "visiting.scholar");
    expect(events.map((e) => e.commandType)).toEqual(["DELETE", "UPDATE", "CREATE"]);
    expect(JSON.stringify(events)).not.toContain(password);
  });

  it("refuses a temporary user without an expiry, with a past one, with an administrator's role, or over an existing name", async () => {
    const send = (body: unknown) => JSON.stringify(body);
    const base = { username: "temp.x", fullName: "T X", email: "tx@example.org" };
    const json = { "Content-Type": "application/json" };
    for (const [body, message] of [
      [base, /expires .* or validDays/],
      [{ ...base, expires: "2001-01-01T00:00:00Z" }, /in the future/],
      [{ ...base, validDays: 0 }, /validDays must be/],
      [{ ...base, validDays: 5, roles: ["SDB_ADMIN_USER"] }, /may not have the role SDB_ADMIN_USER/],
      [{ ...base, username: "curator", validDays: 5 }, /already exists/],
    ] as const) {
      const before = [storeHash(repo.svc.db), usersHash()];
      const res = await manager(`${A}/temporary-users`, { method: "POST", headers: json, body: send(body) });
      const reply = (await res.json()) as { message: string };
      expect([400, 409]).toContain(res.status);
      expect(reply.message).toMatch(message);
      expect([storeHash(repo.svc.db), usersHash()]).toEqual(before);
    }
    await refused(manager, "DELETE", `${A}/temporary-users/curator`, undefined, 404, /not a temporary user/);
  });
});

describe("config events and feature usage", () => {
  it("filters by category and command type, pages, and lists the values for filtering", async () => {
    const info = (await (await manager(`${A}/config-events/filter-info`)).json()) as {
      value: { categories: string[]; commandTypes: string[] };
    };
    expect(info.value.categories).toEqual(expect.arrayContaining(["SECURITY", "USER"]));
    expect(info.value.commandTypes).toEqual(
      expect.arrayContaining(["CREATE", "DELETE", "DISABLE", "ENABLE", "UPDATE"]),
    );
    const sec = (await (await manager(`${A}/config-events?category=security&commandType=DELETE`)).json()) as {
      value: { events: { category: string; commandType: string }[]; total: number };
    };
    expect(sec.value.total).toBeGreaterThanOrEqual(2);
    expect(sec.value.events.every((e) => e.category === "SECURITY" && e.commandType === "DELETE")).toBe(true);
    const all = (await (await manager(`${A}/config-events?max=1000`)).json()) as {
      value: { events: { ref: string; at: string }[]; total: number };
    };
    const page = (await (await manager(`${A}/config-events?start=2&max=3`)).json()) as {
      value: { events: { ref: string }[]; total: number };
    };
    expect(page.value.total).toBe(all.value.total);
    expect(page.value.events.map((e) => e.ref)).toEqual(all.value.events.slice(2, 5).map((e) => e.ref));
    const ats = all.value.events.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);
    await refused(manager, "GET", `${A}/config-events?category=a;b`, undefined, 400, /filter-info/);
    await refused(manager, "GET", `${A}/config-events?from=yesterday`, undefined, 400, /ISO 8601/);
  });

  it("/features/usage counts what is really stored", async () => {
    const body = (await (await manager(`${A}/features/usage`)).json()) as {
      value: { features: { feature: string; used: number }[] };
    };
    const used = Object.fromEntries(body.value.features.map((f) => [f.feature, f.used]));
    const db = repo.svc.db;
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    expect(used.USERS).toBe(n("SELECT count(*) AS n FROM users WHERE temporary = 0 AND enabled = 1"));
    expect(used.TEMPORARY_USERS).toBe(1);
    expect(used.SECURITY_TAGS).toBe(n("SELECT count(*) AS n FROM security_tags"));
    expect(used.FOLDERS).toBe(n("SELECT count(*) AS n FROM entities WHERE type = 'SO' AND deleted = 0"));
    expect(used.ASSETS).toBe(0);
    expect(used.STORAGE).toBe(0);
    expect(used.ENTITIES).toBe(n("SELECT count(*) AS n FROM entities WHERE deleted = 0"));
    // The same names and counts as the Entitlement API's limits.
    const limits = (await (await manager("/api/entitlement/limits")).json()) as {
      value: { limits: { feature: string; used: number }[] };
    };
    for (const l of limits.value.limits) expect(used[l.feature], l.feature).toBe(l.used);
  });
});

describe("password reset (User API)", () => {
  it("mails a code for an existing account, answers the same for an unknown one, and the code works once", async () => {
    const ask = (username: string) =>
      fetch(`${repo.url}/api/user/password/reset-request`, {
        method: "POST",
        body: new URLSearchParams({ username }),
      });
    const known = await ask("twofactor");
    const unknown = await ask("no.such.person");
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(await known.json()).toEqual(await unknown.json());
    const code = mailValue(lastMail(repo, "twofactor"), "Reset code");
    const reset = (password: string) =>
      fetch(`${repo.url}/api/user/password/reset`, {
        method: "POST",
        body: new URLSearchParams({ code, password }),
      });
    expect((await reset("short")).status).toBe(400);
    expect((await reset("twofactor-new-password")).status).toBe(200);
    const again = await reset("another-password-1");
    expect(again.status).toBe(400);
    expect(((await again.json()) as { message: string }).message).toMatch(/unknown, already used or expired/);
    const res = await fetch(`${repo.url}/api/accesstoken/login`, {
      method: "POST",
      body: new URLSearchParams({ username: "twofactor", password: "twofactor-new-password" }),
    });
    expect(((await res.json()) as { message: string }).message).toBe("needs.2fa");
    expect((await eventsAbout(manager, "twofactor"))[0]).toMatchObject({
      username: "twofactor",
      commandType: "UPDATE",
    });
    void loginAs;
  });
});
