import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { ERAS, type McpHarness, startMcp, textOf } from "../../helpers/mcp.js";
import { startTestRepository } from "../../helpers/repository.js";
import { addUser, expectHiddenFromCurator, FLAGS, userEnabled } from "./support.js";

interface Preview {
  confirmationRequired: {
    summary: string;
    details: string[];
    targets: { ref: string; title: string }[];
    preview?: Record<string, unknown>;
    token: string;
  };
}
interface Answer {
  user: { userName: string; enabled: boolean };
  previouslyEnabled: boolean;
  enabled: boolean;
}
interface Events {
  events: { category: string; commandType: string; subject: string; username: string }[];
}

describe.each(ERAS)("manage_user (%s)", (era) => {
  let repo: RunningRepository;
  let mcp: McpHarness;
  const auditLog = join(mkdtempSync(join(tmpdir(), "admin-audit-")), "audit.jsonl");

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    mcp = await startMcp({ user: "manager", flags: [...FLAGS, "--audit-log", auditLog], era, repo });
  });
  afterAll(async () => {
    await mcp?.close();
    await repo?.close();
  });

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

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "manage_user", { user: "reader", action: "disable" });
    expect(await userEnabled(repo, "reader")).toBe(true);
  });
});
