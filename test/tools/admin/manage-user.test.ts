import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { addUser, configEvents, expectHiddenFromCurator, FLAGS, userEnabled } from "./support.js";

interface Answer {
  user: { userName: string; enabled: boolean };
  previouslyEnabled: boolean;
  enabled: boolean;
}
interface Events {
  events: { category: string; commandType: string; subject: string; username: string }[];
}

async function listUsers(repo: RunningRepository): Promise<string[]> {
  const { authed, login } = await import("../../helpers/repository.js");
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  return [...(await (await get("/api/admin/users")).text()).matchAll(/<User>([^<]+)<\/User>/g)].map(
    (m) => m[1] ?? "",
  );
}

async function userRoles(repo: RunningRepository, name: string): Promise<string[]> {
  const { authed, login } = await import("../../helpers/repository.js");
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  const xml = await (await get(`/api/admin/users/${encodeURIComponent(name)}`)).text();
  return [...xml.matchAll(/<Role>([^<]+)<\/Role>/g)].map((m) => m[1] ?? "");
}

describe.each(ERAS)("manage_user (%s)", (era) => {
  const auditLog = join(tempDir("admin-audit-"), "audit.jsonl");

  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: [...FLAGS, "--audit-log", auditLog], era, repo });

  it("previews disabling a user (changing nothing), then disables exactly that once confirmed; the config event is recorded", async () => {
    const name = await addUser(repo, `volunteer.${era.slice(0, 4)}a`, "Vera Volunteer");
    const args = { user: name, action: "disable" };
    const p = await mcp.call<Preview>("manage_user", args);
    expect(p.confirmationRequired.summary).toBe(
      `Disable user ${name} (Vera Volunteer): they can no longer sign in and their sessions end now`,
    );
    expect(p.confirmationRequired.details[0]).toBe(`E-mail ${name}@example.org; roles SDB_ACCESS_USER.`);
    expect(p.confirmationRequired.targets).toEqual([{ ref: `user:${name}`, title: "Vera Volunteer" }]);
    expect(await userEnabled(repo, name)).toBe(true);

    const res = await mcp.raw("manage_user", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ previouslyEnabled: true, enabled: false });
    expect(textOf(res)).toContain(`Disabled user ${name} (Vera Volunteer): enabled → disabled.`);
    expect(await userEnabled(repo, name)).toBe(false);

    const logged = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { tool: string; outcome: string; targets: unknown[]; user: string });
    expect(logged.filter((l) => l.tool === "manage_user" && l.outcome === "done")).toContainEqual(
      expect.objectContaining({
        user: "manager",
        targets: [{ ref: `user:${name}`, title: "Vera Volunteer" }],
      }),
    );
    const ev = await mcp.call<Events>("configuration_history", { category: "USER", commandType: "DISABLE" });
    expect(ev.events[0]).toMatchObject({ subject: name, username: "manager" });
  });

  it("refuses a stale confirmation: the user changed between preview and confirm", async () => {
    const name = await addUser(repo, `volunteer.${era.slice(0, 4)}b`, "Ben Volunteer");
    const p = await mcp.call<Preview>("manage_user", { user: name, action: "disable" });
    // Someone changes their roles (which the plan showed) between the preview and the confirmation.
    const { authed, login } = await import("../../helpers/repository.js");
    const put = authed(repo.url, (await login(repo.url, "manager")).token);
    const r = await put(`/api/admin/users/${name}`, {
      method: "PUT",
      headers: { "Content-Type": "application/xml" },
      body: `<User xmlns="http://preservica.com/AdminAPI/v7.7"><Roles><Role>SDB_ACCESS_USER</Role><Role>SDB_DATA_MANAGEMENT_USER</Role></Roles></User>`,
    });
    expect(r.status).toBe(200);
    const res = await mcp.raw("manage_user", {
      user: name,
      action: "disable",
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(await userEnabled(repo, name)).toBe(true);
  });

  it("enables without confirmation; says when there is nothing to change; the service refuses disabling yourself", async () => {
    const name = await addUser(repo, `volunteer.${era.slice(0, 4)}c`, "Cal Volunteer");
    const same = await mcp.raw("manage_user", { user: name, action: "enable" });
    expect(same.isError).toBe(true);
    expect(textOf(same)).toBe(`User ${name} (Cal Volunteer) is already enabled; nothing to change.`);
    const p = await mcp.call<Preview>("manage_user", { user: name, action: "disable" });
    await mcp.call("manage_user", {
      user: name,
      action: "disable",
      confirmation: p.confirmationRequired.token,
    });
    const back = await mcp.call<Answer>("manage_user", { user: name, action: "enable" });
    expect(back).toMatchObject({ previouslyEnabled: false, enabled: true });
    expect(await userEnabled(repo, name)).toBe(true);

    const self = await mcp.call<Preview>("manage_user", { user: "manager", action: "disable" });
    const refused = await mcp.raw("manage_user", {
      user: "manager",
      action: "disable",
      confirmation: self.confirmationRequired.token,
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/own|yourself|409|conflict/i);
    expect(await userEnabled(repo, "manager")).toBe(true);
  });

  it("adds a user once confirmed (the preview adds nothing); the set-password code is mailed, never shown", async () => {
    const name = `new.archivist.${era.slice(0, 4)}`;
    const args = {
      user: name,
      action: "add",
      fullName: "Nia Archivist",
      email: `${name}@example.org`,
      roles: ["SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"],
    };
    const p = await mcp.call<Preview>("manage_user", args);
    expect(p.confirmationRequired.summary).toBe(
      `Add user ${name} (Nia Archivist) with roles SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER`,
    );
    expect(p.confirmationRequired.details[0]).toMatch(
      /mails a single-use code there .* no password is chosen or shown/,
    );
    const users = async () => (await listUsers(repo)).includes(name);
    expect(await users()).toBe(false);

    const res = await mcp.raw("manage_user", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      action: "add",
      user: { userName: name, fullName: "Nia Archivist", enabled: true },
      codeMailedTo: `${name}@example.org`,
    });
    expect(await users()).toBe(true);
    const roles = await userRoles(repo, name);
    expect(roles).toEqual(["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    // The code went to the outbox; the answer says so without it.
    const mail = readdirSync(join(repo.svc.dataDir, "outbox")).find((f) => f.endsWith(`-${name}.eml`));
    const code = /Reset code: (\S+)/.exec(
      readFileSync(join(repo.svc.dataDir, "outbox", mail ?? ""), "utf8"),
    )?.[1];
    expect(code).toBeTruthy();
    expect(textOf(res)).toContain(`e-mailed a single-use code to ${name}@example.org`);
    expect(JSON.stringify(res)).not.toContain(code);
    expect(readFileSync(auditLog, "utf8")).not.toContain(code);

    const again = await mcp.raw("manage_user", args);
    expect(again.isError).toBe(true);
    expect(textOf(again)).toBe(
      `User ${name} (Nia Archivist) exists already; change their roles with action set_roles.`,
    );
  });

  it("changes a user's roles exactly as previewed; the preview changes nothing", async () => {
    const name = await addUser(repo, `volunteer.${era.slice(0, 4)}d`, "Dee Volunteer");
    const args = { user: name, action: "set_roles", roles: ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"] };
    const p = await mcp.call<Preview>("manage_user", args);
    expect(p.confirmationRequired.summary).toBe(
      `Change the roles of user ${name} (Dee Volunteer): SDB_ACCESS_USER → SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER (adds SDB_DATA_MANAGEMENT_USER)`,
    );
    expect(p.confirmationRequired.preview).toEqual({
      user: name,
      from: ["SDB_ACCESS_USER"],
      to: ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"],
    });
    expect(await userRoles(repo, name)).toEqual(["SDB_ACCESS_USER"]);

    const res = await mcp.raw("manage_user", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      previousRoles: ["SDB_ACCESS_USER"],
      user: { roles: ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"] },
    });
    expect(await userRoles(repo, name)).toEqual(["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"]);
    const ev = (await configEvents(repo, "USER")).find(
      (e) => e.subject === name && e.commandType === "UPDATE",
    );
    expect(ev?.details).toEqual({
      before: { roles: ["ROLE_SDB_ACCESS_USER"] },
      after: { roles: ["ROLE_SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"] },
    });
    const same = await mcp.raw("manage_user", args);
    expect(textOf(same)).toBe(
      `User ${name} (Dee Volunteer) already has exactly SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER; nothing to change.`,
    );
  });

  it("a wrong user name, an unknown role or missing fields give a clear error and change nothing", async () => {
    const nobody = await mcp.raw("manage_user", {
      user: "no.such.person",
      action: "set_roles",
      roles: ["SDB_ACCESS_USER"],
    });
    expect(nobody.isError).toBe(true);
    expect(textOf(nobody)).toBe(
      "No user no.such.person; list user names with `users_and_access`, or add one with action add.",
    );
    const badRole = await mcp.raw("manage_user", {
      user: "reader",
      action: "set_roles",
      roles: ["SDB_WIZARD"],
    });
    expect(textOf(badRole)).toMatch(/^No role SDB_WIZARD; the roles are SDB_ACCESS_USER, /);
    const noEmail = await mcp.raw("manage_user", {
      user: "someone.new",
      action: "add",
      fullName: "Some One",
    });
    expect(textOf(noEmail)).toBe(
      "Adding a user needs fullName and email (their set-password code is mailed there).",
    );
    expect(await userRoles(repo, "reader")).toEqual(["SDB_ACCESS_USER"]);
    expect(await listUsers(repo)).not.toContain("someone.new");
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "manage_user", { user: "reader", action: "disable" });
    expect(await userEnabled(repo, "reader")).toBe(true);
  });
});
