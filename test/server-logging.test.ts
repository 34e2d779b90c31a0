import { beforeAll, describe, expect, it } from "vitest";
import { ERAS } from "./helpers/mcp.js";
import { useMcp, useRepository } from "./helpers/use-mcp.js";

/**
 * MCP logging: a client that shows a log hears what tool calls ran into (a failure with its reason, a write
 * recorded), only at or above the level it set, in both eras (2025 logging/setLevel; 2026-07-28 the level in
 * each request's _meta, which the v2 client sends after setLoggingLevel).
 */

describe.each(ERAS)("log messages to the client (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: ["--toolsets", "all"], era, repo });
  const messages: { level: string; data: Record<string, unknown> }[] = [];
  const modern = era === "2026-07-28";
  let level = "info";
  /** 2025: logging/setLevel once; 2026-07-28: the level rides in each request's _meta. */
  async function setLevel(l: "info" | "error") {
    level = l;
    if (!modern) await mcp.client.setLoggingLevel(l);
  }
  function call(name: string, args: Record<string, unknown>) {
    return mcp.client.callTool({
      name,
      arguments: args,
      ...(modern ? { _meta: { "io.modelcontextprotocol/logLevel": level } } : {}),
    });
  }

  beforeAll(() => {
    mcp.client.setNotificationHandler("notifications/message", (n) => {
      messages.push({ level: n.params.level, data: n.params.data as Record<string, unknown> });
    });
  });

  it("declares the logging capability", () => {
    expect(mcp.client.getServerCapabilities()?.logging).toEqual({});
  });

  it("a failed call is logged as a warning with the reason the answer gives", async () => {
    await setLevel("info");
    messages.length = 0;
    const res = await call("get_entity", { ref: "00000000-0000-4000-8000-000000000000" });
    expect(res.isError).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ level: "warning", data: { tool: "get_entity" } });
    expect(String(messages[0]?.data.message)).toContain("00000000-0000-4000-8000-000000000000");
  });

  it("a write is logged as a notice naming what it changed", async () => {
    messages.length = 0;
    const res = await call("create_folder", { title: `Logged ${era}`, securityTag: "open" });
    expect(res.isError).toBeFalsy();
    const made = res.structuredContent as { folder: { ref: string } };
    await new Promise((r) => setTimeout(r, 50));
    expect(messages).toEqual([
      {
        level: "notice",
        data: expect.objectContaining({
          tool: "create_folder",
          outcome: "done",
          targets: [expect.objectContaining({ ref: made.folder.ref, title: `Logged ${era}` })],
        }),
      },
    ]);
  });

  it("nothing below the level the client set", async () => {
    await setLevel("error");
    messages.length = 0;
    await call("get_entity", { ref: "00000000-0000-4000-8000-000000000000" });
    expect((await call("create_folder", { title: `Quiet ${era}`, securityTag: "open" })).isError).toBeFalsy();
    await new Promise((r) => setTimeout(r, 50));
    expect(messages).toEqual([]);
  });
});
