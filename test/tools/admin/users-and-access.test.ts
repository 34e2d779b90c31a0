import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "./support.js";

interface Answer {
  users: { userName: string; enabled: boolean; roles: string[] }[];
  usersTotal: number;
  usersNotShown: string[];
  temporaryUsers: { userName: string; expires: string | null; expired: boolean }[];
  roles: { role: string; holders: string[] }[];
  tags: { tag: string; permissions: string[] }[];
}

/** Nothing here writes: both eras read one repository. */
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("users_and_access (%s)", (era) => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });

  it("answers who can see what: users with roles, temporary users, role holders, tag permissions", async () => {
    const res = await mcp.raw("users_and_access", {});
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.users.map((u) => u.userName)).toEqual(expect.arrayContaining(["curator", "manager", "reader"]));
    expect(a.users.map((u) => u.userName)).not.toContain("guest");
    expect(a.usersNotShown).toEqual([]);
    expect(a.users.find((u) => u.userName === "curator")).toMatchObject({
      enabled: true,
      roles: ["SDB_ACCESS_USER", "SDB_DATA_MANAGEMENT_USER"],
    });
    expect(a.temporaryUsers).toMatchObject([{ userName: "guest", expired: false }]);
    const admin = a.roles.find((r) => r.role === "SDB_ADMIN_USER");
    expect(admin?.holders).toEqual(["manager"]);
    const access = a.roles.find((r) => r.role === "SDB_ACCESS_USER");
    expect(access?.holders).toEqual(expect.arrayContaining(["curator", "reader", "guest"]));
    expect(a.tags.find((t) => t.tag === "closed")?.permissions).toContain("Read Metadata");
    const text = textOf(res);
    expect(text).toMatch(/^\d+ users \(\d+ disabled\), 1 temporary user, \d+ roles, 3 security tags\./);
    expect(text).toContain(
      "- curator (Daniel Okafor, daniel.okafor@example.org): SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER",
    );
    expect(text).toMatch(/- guest \(Samuel Fairweather\), temporary, expires \d{4}-/);
    expect(text).toContain("- SDB_ADMIN_USER: manager");
    expect(text).toMatch(/- open: .*Read Metadata/);
  });

  it("shows one user, and passes on the service's 404 for an unknown one", async () => {
    const a = await mcp.call<Answer>("users_and_access", { user: "reader" });
    expect(a.users).toEqual([
      expect.objectContaining({ userName: "reader", enabled: true, roles: ["SDB_ACCESS_USER"] }),
    ]);
    expect(a.roles.map((r) => r.role)).toEqual(["SDB_ACCESS_USER"]);
    const missing = await mcp.raw("users_and_access", { user: "nobody-here" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/not found|404|no such|unknown/i);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "users_and_access");
  });
});

describe("users_and_access's answer text", () => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("users_and_access", {});
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "5 users (1 disabled), 1 temporary user, 6 roles, 3 security tags.
      - curator (Daniel Okafor, daniel.okafor@example.org): SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER
      - former.volunteer (Tom Hale, tom.hale@example.org) DISABLED: SDB_ACCESS_USER, SDB_VOLUNTEER_USER
      - manager (Margaret Pennington, margaret.pennington@example.org): SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER, SDB_MANAGER_USER, SDB_ADMIN_USER, SDB_REGISTRY_ADMIN_USER
      - reader (Ruth Albright, ruth.albright@example.org): SDB_ACCESS_USER
      - twofactor (Priya Raman, priya.raman@example.org): SDB_ACCESS_USER
      - guest (Samuel Fairweather), temporary, expires <time set by this run>: SDB_ACCESS_USER
      Roles and who holds them:
      - SDB_ACCESS_USER: curator, former.volunteer, manager, reader, twofactor, guest
      - SDB_DATA_MANAGEMENT_USER: curator, manager
      - SDB_MANAGER_USER: manager
      - SDB_ADMIN_USER: manager
      - SDB_REGISTRY_ADMIN_USER: manager
      - SDB_VOLUNTEER_USER: former.volunteer
      Security tags and what your roles may do on each:
      - closed: Change Security Tag, Delete, Download, Ingest, Move, Read Metadata, Update Metadata
      - open: Change Security Tag, Delete, Download, Ingest, Move, Read Metadata, Update Metadata
      - staff: Change Security Tag, Delete, Download, Ingest, Move, Read Metadata, Update Metadata"
    `);
  });
});
