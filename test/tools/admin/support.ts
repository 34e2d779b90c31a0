import { expect } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { type Era, startMcp, textOf } from "../../helpers/mcp.js";
import { authed, login } from "../../helpers/repository.js";

/** What the admin tool tests share: the flags, the non-admin check, and a user made for one test. */

export const FLAGS = ["--toolsets", "all"];

/** A curator (no manager or admin role) does not see `name`, and is refused when calling it anyway. */
export async function expectHiddenFromCurator(
  repo: RunningRepository,
  era: Era,
  name: string,
  args: Record<string, unknown> = {},
): Promise<void> {
  const curator = await startMcp({ user: "curator", flags: FLAGS, era, repo });
  try {
    const names = (await curator.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain(name);
    expect(names).toContain("search");
    // Refused, never run: the answer says the tool is not offered to this person and which role it needs
    // (src/server/not-offered.ts), rather than the protocol's bare "tool not found".
    const outcome = await curator.raw(name, args).then(
      (res) => (res.isError ? textOf(res) : "ran"),
      (err: Error) => err.message,
    );
    expect(outcome).toMatch(new RegExp(`${name}.*is not offered to you: it needs the \\w+ role`, "i"));
    expect(outcome).toMatch(/signed in as curator/);
  } finally {
    await curator.close();
  }
}

/** Adds a permanent user through the Admin API (as the manager); answers its name. */
export async function addUser(repo: RunningRepository, name: string, fullName: string): Promise<string> {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  const res = await get(`/api/admin/users?source=UX2`, {
    method: "POST",
    headers: { "Content-Type": "application/xml" },
    body: `<User xmlns="http://preservica.com/AdminAPI/v7.7"><UserName>${name}</UserName><FullName>${fullName}</FullName><Email>${name}@example.org</Email><Roles><Role>SDB_ACCESS_USER</Role></Roles></User>`,
  });
  if (res.status !== 201) throw new Error(`adding ${name}: ${res.status} ${await res.text()}`);
  return name;
}

/** A user as the Admin API has it now (enabled or not). */
export async function userEnabled(repo: RunningRepository, name: string): Promise<boolean> {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  const xml = await (await get(`/api/admin/users/${encodeURIComponent(name)}`)).text();
  return /<Enabled>true<\/Enabled>/.test(xml);
}

/** Reads a service route as the manager (an administrator), straight over HTTP: the read-back of a test. */
export async function serviceJson<T>(repo: RunningRepository, path: string): Promise<T> {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  const res = await get(path, { headers: { Accept: "application/json" } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { value?: T };
  return (body && typeof body === "object" && "value" in body ? body.value : body) as T;
}

/** The newest config events of a category (as the service records them). */
export async function configEvents(
  repo: RunningRepository,
  category: string,
): Promise<{ commandType: string; subject: string; username: string; details: unknown }[]> {
  const v = await serviceJson<{
    events: { commandType: string; subject: string; username: string; details: unknown }[];
  }>(repo, `/api/admin/config-events?category=${category}`);
  return v.events;
}
