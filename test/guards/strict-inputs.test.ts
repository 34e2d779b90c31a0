import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../helpers/mcp.js";
import { useMcp, useRepository } from "../helpers/use-mcp.js";

/**
 * Unknown argument names are refused with a message naming the valid ones: a misspelt `qeury` used to be
 * dropped silently, and the search returned the whole collection.
 */
describe.each(ERAS)("strict tool inputs (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ repo, era });
  const everyTool = useMcp({
    repo,
    era,
    flags: ["--toolsets", "all", "--download-dir", tmpdir(), "--ingest-roots", tmpdir()],
  });

  it("refuses a misspelt argument, naming the ones the tool takes, and runs nothing", async () => {
    const res = await mcp.raw("search", { qeury: "minutes" });
    expect(res.isError).toBe(true);
    const text = textOf(res);
    expect(text).toContain('Unknown argument "qeury"');
    expect(text).toMatch(/it takes .*\bquery\b/);
    expect(text).toContain("Nothing was done");
  });

  it("says additionalProperties: false in every listed input schema", async () => {
    const { tools } = await everyTool.client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    for (const t of tools) expect(t.inputSchema.additionalProperties, t.name).toBe(false);
  });
});
