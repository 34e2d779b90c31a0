import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";

/** The demo collection gives every admin question a true answer: history, a disabled user, a temporary one. */

let repo: RunningRepository;
let manager: ReturnType<typeof authed>;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
}, 120_000);
afterAll(async () => {
  await repo?.close();
});

async function value<T>(path: string): Promise<T> {
  const res = await manager(path);
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: T }).value;
}

it("answers who disabled whom, and when, from the config events", async () => {
  const v = await value<{ events: { subject: string; username: string; at: string }[] }>(
    "/api/admin/config-events?category=USER&commandType=DISABLE",
  );
  expect(v.events).toEqual([
    expect.objectContaining({
      subject: "former.volunteer",
      username: "manager",
      at: "2025-06-30T16:45:00.000Z",
    }),
  ]);
  const info = await value<{ categories: string[]; commandTypes: string[] }>(
    "/api/admin/config-events/filter-info",
  );
  expect(info.categories).toEqual(expect.arrayContaining(["SECURITY", "USER"]));
});

it("shows the disabled volunteer, the added role, and the guest as a temporary user", async () => {
  const details = await (await manager("/api/admin/users/former.volunteer")).text();
  expect(details).toContain("<Enabled>false</Enabled>");
  expect(details).toContain("<Role>SDB_VOLUNTEER_USER</Role>");
  expect(await (await manager("/api/admin/security/roles")).text()).toContain(
    "<Role>ROLE_SDB_VOLUNTEER_USER</Role>",
  );
  const temp = await value<{ temporaryUsers: { username: string }[] }>("/api/admin/temporary-users");
  expect(temp.temporaryUsers.map((u) => u.username)).toEqual(["guest"]);
  const usage = await value<{ features: { feature: string; used: number }[] }>("/api/admin/features/usage");
  const used = Object.fromEntries(usage.features.map((f) => [f.feature, f.used]));
  expect(used.USERS).toBe(4);
  expect(used.TEMPORARY_USERS).toBe(1);
  expect(used.ASSETS).toBeGreaterThan(0);
});
