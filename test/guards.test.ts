import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../src/config.js";
import { type Audience, audienceFrom, isToolVisible, resolveToolsets } from "../src/guards.js";
import { type AnyTool, defineTool } from "../src/tools/define.js";

const env = {
  PRESERVATION_URL: "http://127.0.0.1:1",
  PRESERVATION_USERNAME: "u",
  PRESERVATION_PASSWORD: "p",
};

function tool(over: Partial<AnyTool>): AnyTool {
  return defineTool({
    name: "t",
    title: "T",
    description: "A tool.",
    toolset: "discovery",
    inputSchema: z.object({}),
    outputSchema: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async () => ({ structured: {} }),
    ...over,
  }) as AnyTool;
}

const write = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

describe("which tools a caller sees", () => {
  const base: Audience = audienceFrom(loadConfig([], env), ["ROLE_SDB_ACCESS_USER"]);

  it("resolves toolset names, with default and all, and names the valid ones on a typo", () => {
    expect([...resolveToolsets(["default"])].sort()).toEqual(["discovery", "session"]);
    expect(resolveToolsets(["all"]).size).toBeGreaterThanOrEqual(2);
    expect(() => resolveToolsets(["discovry"])).toThrow(/unknown toolset "discovry".*discovery/);
  });

  it("hides tools of toolsets that are not enabled", () => {
    const only = audienceFrom(loadConfig(["--toolsets", "session"], env), []);
    expect(isToolVisible(tool({}), only)).toBe(false);
    expect(isToolVisible(tool({ toolset: "session" }), only)).toBe(true);
  });

  it("removes every tool without readOnlyHint in read-only mode", () => {
    const ro = audienceFrom(loadConfig(["--read-only"], env), []);
    expect(isToolVisible(tool({ annotations: write }), ro)).toBe(false);
    expect(isToolVisible(tool({}), ro)).toBe(true);
    expect(isToolVisible(tool({ annotations: write }), base)).toBe(true);
  });

  it("shows role-gated tools only to callers with one of the roles, and to nobody while sign-in is pending", () => {
    const managerOnly = tool({ requiredRoles: ["ROLE_SDB_MANAGER_USER", "ROLE_SDB_ADMIN_USER"] });
    expect(isToolVisible(managerOnly, base)).toBe(false);
    expect(isToolVisible(managerOnly, { ...base, roles: ["ROLE_SDB_ADMIN_USER"] })).toBe(true);
    expect(isToolVisible(managerOnly, { ...base, roles: undefined })).toBe(false);
    expect(isToolVisible(tool({}), { ...base, roles: undefined })).toBe(true);
  });

  it("offers a tool that needs a configured capability only when it is configured", () => {
    const download = tool({ requires: "local-downloads", annotations: write });
    expect(isToolVisible(download, base)).toBe(false);
    const withDir = audienceFrom(loadConfig(["--download-dir", "/tmp/x"], env), []);
    expect(isToolVisible(download, withDir)).toBe(true);
  });
});
