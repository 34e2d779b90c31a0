import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHarness, startMcp } from "./helpers/mcp.js";

describe("MCP server over an in-memory client against the real repository service", () => {
  let mcp: McpHarness;
  beforeAll(async () => {
    mcp = await startMcp({ user: "curator" });
  });
  afterAll(() => mcp.close());

  it("answers whoami with the curator's roles and never the token", async () => {
    const me = await mcp.call<{ user: string; roles: string[] }>("whoami");
    expect(me.user).toBe("curator");
    expect(me.roles).toContain("ROLE_SDB_DATA_MANAGEMENT_USER");
    expect(JSON.stringify(me)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
  });

  it("refuses complete_sign_in when no challenge is pending, with a readable error", async () => {
    const res = await mcp.raw("complete_sign_in", { code: "123456" });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toMatch(/No sign-in challenge is pending/);
  });
});
