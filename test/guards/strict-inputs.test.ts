import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { ERAS, startMcp, textOf } from "../helpers/mcp.js";
import { startTestRepository } from "../helpers/repository.js";

/**
 * Unknown argument names are refused with a message naming the valid ones: a misspelt `qeury` used to be
 * dropped silently, and the search returned the whole collection.
 */
describe.each(ERAS)("strict tool inputs (%s)", (era) => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
  });
  afterAll(() => repo.close());

  it("refuses a misspelt argument, naming the ones the tool takes, and runs nothing", async () => {
    const mcp = await startMcp({ repo, era });
    try {
      const res = await mcp.raw("search", { qeury: "minutes" });
      expect(res.isError).toBe(true);
      const text = textOf(res);
      expect(text).toContain('Unknown argument "qeury"');
      expect(text).toMatch(/it takes .*\bquery\b/);
      expect(text).toContain("Nothing was done");
    } finally {
      await mcp.close();
    }
  });

  it("says additionalProperties: false in every listed input schema", async () => {
    const mcp = await startMcp({
      repo,
      era,
      flags: ["--toolsets", "all", "--download-dir", tmpdir(), "--ingest-roots", tmpdir()],
    });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.length).toBeGreaterThan(10);
      for (const t of tools) expect(t.inputSchema.additionalProperties, t.name).toBe(false);
    } finally {
      await mcp.close();
    }
  });
});
