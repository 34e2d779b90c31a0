import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../../src/config.js";
import { type Audience, audienceFrom, isToolVisible, resolveToolsets } from "../../src/guards/visibility.js";
import { type AnyTool, defineTool } from "../../src/tools/define.js";
import { ALL_TOOLS } from "../../src/tools/index.js";

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
    // The curator's defaults: find and read, describe, arrange, take in, send out, follow jobs.
    expect([...resolveToolsets(["default"])].sort()).toEqual([
      "discovery",
      "export",
      "ingest",
      "jobs",
      "metadata",
      "session",
      "structure",
    ]);
    expect(resolveToolsets(["all"]).size).toBe(12);
    expect([...resolveToolsets(["default", "lifecycle"])]).toContain("lifecycle");
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

  it("keeps tools that change nothing in the repository in read-only mode (sign-in, local saves)", () => {
    const ro = audienceFrom(loadConfig(["--read-only", "--download-dir", "/tmp/x"], env), []);
    expect(isToolVisible(tool({ annotations: write, localOnly: true }), ro)).toBe(true);
    const listed = ALL_TOOLS.filter((t) => isToolVisible(t, { ...ro, toolsets: resolveToolsets(["all"]) }));
    expect(listed.map((t) => t.name)).toContain("complete_sign_in");
    expect(listed.every((t) => t.annotations.readOnlyHint || t.localOnly)).toBe(true);
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
