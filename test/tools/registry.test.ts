import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { DEFAULT_TOOLSETS, TOOLSETS } from "../../src/tools/define.js";
import { ALL_TOOLS } from "../../src/tools/index.js";
import { startMcp } from "../helpers/mcp.js";
import { startTestRepository } from "../helpers/repository.js";

/**
 * Rules every tool definition keeps (as Sentry's and GitHub's MCP servers check theirs), and the size of what
 * the default tool list costs a model on every turn.
 */

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
const MAX_DEFAULT_TOOLS = 25;
/** Budget for the JSON of tools/list with the default toolsets: 8,000 tokens at 4 characters a token. */
const MAX_DEFAULT_LIST_CHARS = 32_000;
/** Every configurable capability on, so every tool a toolset can hold is listed. */
const EVERYTHING_CONFIGURED = [
  "--download-dir",
  tmpdir(),
  "--ingest-roots",
  tmpdir(),
  "--audit-log",
  join(tmpdir(), "registry-audit.jsonl"),
];
const DESCRIPTION_CHARS = { min: 40, max: 600 };

type Schema = { type?: string; properties?: Record<string, { description?: string }>; [k: string]: unknown };
type ListedTool = { name: string; inputSchema: Schema; outputSchema?: Schema };

describe("tool registry", () => {
  it("has unique snake_case names", () => {
    const names = ALL_TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]{2,47}$/);
  });

  it.each(ALL_TOOLS.map((t) => [t.name, t] as const))("%s sets all four hints as booleans", (_name, tool) => {
    for (const h of HINTS) expect(typeof tool.annotations[h], h).toBe("boolean");
    expect(Object.keys(tool.annotations).sort()).toEqual([...HINTS].sort());
  });

  it("never marks a tool both read-only and destructive", () => {
    const both = ALL_TOOLS.filter((t) => t.annotations.readOnlyHint && t.annotations.destructiveHint);
    expect(both.map((t) => t.name)).toEqual([]);
  });

  it("gives every tool a title, a bounded description and a known toolset", () => {
    for (const t of ALL_TOOLS) {
      expect(t.title.length, t.name).toBeGreaterThan(2);
      expect(t.description.length, `${t.name} description`).toBeGreaterThanOrEqual(DESCRIPTION_CHARS.min);
      expect(t.description.length, `${t.name} description`).toBeLessThanOrEqual(DESCRIPTION_CHARS.max);
      expect(Object.keys(TOOLSETS), t.name).toContain(t.toolset);
    }
  });

  it("asks for confirmation on every destructive tool", () => {
    const unguarded = ALL_TOOLS.filter((t) => t.annotations.destructiveHint && !t.confirm);
    expect(unguarded.map((t) => t.name)).toEqual([]);
  });

  it("keeps one file per tool, named after it, in its toolset's folder, with a test file of the same name", () => {
    const toolsDir = fileURLToPath(new URL("../../src/tools/", import.meta.url));
    const testsDir = fileURLToPath(new URL("./", import.meta.url));
    const snake = (file: string) => file.replace(/\.ts$/, "").replace(/-/g, "_");
    const found: string[] = [];
    for (const set of Object.keys(TOOLSETS)) {
      const dir = join(toolsDir, set);
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "index.ts")) {
        const tool = ALL_TOOLS.find((t) => t.name === snake(file));
        // Support modules of a toolset (params.ts) are not tools; every tool must be one of these files.
        if (!tool) continue;
        found.push(tool.name);
        expect(tool.toolset, `${set}/${file}`).toBe(set);
        expect(
          existsSync(join(testsDir, set, file.replace(/\.ts$/, ".test.ts"))),
          `test/tools/${set}/${file} test`,
        ).toBe(true);
      }
    }
    expect(found.sort()).toEqual(ALL_TOOLS.map((t) => t.name).sort());
  });

  it(`keeps the default toolsets at ${MAX_DEFAULT_TOOLS} tools or fewer`, () => {
    const defaults = ALL_TOOLS.filter((t) => DEFAULT_TOOLSETS.includes(t.toolset));
    console.log(`${defaults.length} tools in the default toolsets, ${ALL_TOOLS.length} in all`);
    expect(defaults.length).toBeLessThanOrEqual(MAX_DEFAULT_TOOLS);
  });
});

describe("tools as a client lists them", () => {
  let repo: RunningRepository;
  let defaults: ListedTool[];
  let defaultListChars: number;
  let all: ListedTool[];

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    for (const flags of [EVERYTHING_CONFIGURED, ["--toolsets", "all", ...EVERYTHING_CONFIGURED]]) {
      const mcp = await startMcp({ user: "manager", repo, flags });
      try {
        const listed = await mcp.client.listTools();
        if (flags === EVERYTHING_CONFIGURED) {
          defaults = listed.tools as ListedTool[];
          defaultListChars = JSON.stringify(listed).length;
        } else all = listed.tools as ListedTool[];
      } finally {
        await mcp.close();
      }
    }
  });
  afterAll(() => repo?.close());

  it("lists every registered tool for a manager with all toolsets on", () => {
    // `sign_out` is listed only on a person mode team server (HTTP with OAuth): test/e2e/person-identity.test.ts.
    const registered = ALL_TOOLS.filter((t) => t.requires !== "person-sessions");
    expect(all.map((t) => t.name).sort()).toEqual(registered.map((t) => t.name).sort());
  });

  it("has object input schemas with no top-level anyOf/oneOf/allOf, and every parameter described", () => {
    for (const t of all) {
      expect(t.inputSchema.type, t.name).toBe("object");
      for (const combinator of ["anyOf", "oneOf", "allOf", "not"]) {
        expect(t.inputSchema[combinator], `${t.name} inputSchema.${combinator}`).toBeUndefined();
      }
      for (const [param, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        expect(schema.description, `${t.name}.${param} has no description`).toBeTruthy();
      }
      expect(t.outputSchema?.type, `${t.name} outputSchema`).toBe("object");
    }
  });

  it(`keeps tools/list for the default toolsets under ${MAX_DEFAULT_LIST_CHARS.toLocaleString("en")} characters`, () => {
    const tokens = Math.round(defaultListChars / 4);
    console.log(
      `tools/list (default toolsets, ${defaults.length} tools): ${defaultListChars.toLocaleString("en")} characters ≈ ${tokens.toLocaleString("en")} tokens (budget ${MAX_DEFAULT_LIST_CHARS.toLocaleString("en")} ≈ 8,000)`,
    );
    for (const t of defaults)
      console.log(`  ${t.name}: ≈ ${Math.round(JSON.stringify(t).length / 4)} tokens`);
    expect(defaultListChars).toBeLessThan(MAX_DEFAULT_LIST_CHARS);
  });
});
