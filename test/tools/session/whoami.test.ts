import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERAS, type McpHarness, startMcp, textOf } from "../../helpers/mcp.js";
import { DEMO_USERS } from "../../helpers/repository.js";

describe.each(ERAS)("whoami (%s)", (era) => {
  let mcp: McpHarness;
  beforeAll(async () => {
    mcp = await startMcp({ user: "curator", era });
  });
  afterAll(() => mcp.close());

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
