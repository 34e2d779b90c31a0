import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { DEMO_USERS } from "../../helpers/repository.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

// whoami only reads: one repository serves every describe of the file.
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("whoami (%s)", (era) => {
  const mcp = useMcp({ user: "curator", era, repo });

  it("names the user, their roles and when the token and session end, without secrets", async () => {
    const res = await mcp.raw("whoami");
    const s = res.structuredContent as {
      user: string;
      roles: string[];
      tokenExpiresAt: string;
      service: string;
    };
    expect(s.user).toBe("curator");
    expect(s.roles).toEqual(["ROLE_SDB_ACCESS_USER", "ROLE_SDB_DATA_MANAGEMENT_USER"]);
    expect(Date.parse(s.tokenExpiresAt)).toBeGreaterThan(Date.now());
    const text = textOf(res);
    expect(text).toContain("Daniel Okafor (curator)");
    expect(text).toContain("ROLE_SDB_DATA_MANAGEMENT_USER");
    expect(text).toContain(mcp.repo.url);
    expect(text).not.toContain(DEMO_USERS.curator.password);
  });
});

describe.each(ERAS)("whoami explains what a restricted user may do (%s)", (era) => {
  const reader = useMcp({ user: "reader", era, flags: ["--toolsets", "default,lifecycle"], repo });

  it("names the roles in words and, per toolset, what is theirs and which role the rest needs", async () => {
    const res = await reader.raw("whoami");
    const s = res.structuredContent as {
      roleNames: string[];
      toolsets: { toolset: string; offered: string[]; notOffered: { tools: string[]; why: string }[] }[];
    };
    expect(s.roleNames).toEqual(["reader"]);
    const by = new Map(s.toolsets.map((t) => [t.toolset, t]));
    expect(by.get("discovery")?.offered).toContain("search");
    expect(by.get("discovery")?.notOffered).toEqual([
      { tools: ["download_file"], why: "needs a download folder (PRESERVATION_DOWNLOAD_DIR)" },
    ]);
    // Derived from the tools' own role guards: update_entity is a curator's, final_delete a manager's.
    expect(by.get("metadata")?.offered).toEqual([]);
    expect(by.get("metadata")?.notOffered[0]?.why).toBe("needs the curator role (or manager, administrator)");
    expect(by.get("metadata")?.notOffered[0]?.tools).toContain("update_entity");
    const lifecycle = by.get("lifecycle")?.notOffered.find((n) => n.tools.includes("final_delete"));
    expect(lifecycle?.why).toBe("needs the manager role (or administrator)");
    expect(by.get("admin")?.notOffered).toEqual([
      { tools: expect.arrayContaining(["manage_user"]), why: "off on this server (PRESERVATION_TOOLSETS)" },
    ]);
    const text = textOf(res);
    expect(text).toContain("roles: reader (ROLE_SDB_ACCESS_USER)");
    expect(text).toMatch(
      /^- discovery \(Search, browse and read .*\): yours: .*search.*; needs a download folder/m,
    );
    expect(text).toMatch(/^- session \(.*\): yours/m);
    expect(text).toMatch(
      /^- structure \(Arrange .*\): needs the curator role \(or manager, administrator\)$/m,
    );
    expect(text).toMatch(
      /^- metadata \(.*\): needs the curator role \(or manager, administrator\): update_entity, .*; needs an audit log/m,
    );
    expect(text).toMatch(/^- admin \(.*\): off on this server \(PRESERVATION_TOOLSETS\)$/m);
  });
});
