import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { startMcp } from "../helpers/mcp.js";
import { startTestRepository } from "../helpers/repository.js";

/**
 * Tool schema snapshots: every tool exactly as a client lists it (name, title, description, input and output
 * schema, annotations), one file per tool with keys sorted, in `__toolsnaps__/`. A difference is an API change
 * for every model that uses the server: review it, then refresh with
 *   UPDATE_TOOLSNAPS=1 npx vitest run test/tools/toolsnaps.test.ts
 * A tool without a snapshot, or a snapshot without a tool, fails unless refreshing.
 */

const DIR = fileURLToPath(new URL("./__toolsnaps__/", import.meta.url));
const UPDATE = process.env.UPDATE_TOOLSNAPS === "1" || process.env.UPDATE_TOOLSNAPS === "true";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type ListedTool = { name: string } & Record<string, unknown>;

/** Objects with their keys sorted, all the way down (arrays keep their order: it means something). */
function sortKeys(value: unknown): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value as Json;
}

function snapshotText(tool: unknown): string {
  return `${JSON.stringify(sortKeys(tool), null, 2)}\n`;
}

/** The tools a real client lists, as the most privileged demo user sees them. */
async function listTools(repo: RunningRepository, flags: string[]): Promise<ListedTool[]> {
  const mcp = await startMcp({ user: "manager", repo, flags });
  try {
    return (await mcp.client.listTools()).tools as ListedTool[];
  } finally {
    await mcp.close();
  }
}

describe("tool schema snapshots", () => {
  let repo: RunningRepository;
  let defaults: ListedTool[];
  let all: ListedTool[];

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    defaults = await listTools(repo, []);
    all = await listTools(repo, ["--toolsets", "all", "--download-dir", tmpdir()]);
  });
  afterAll(() => repo?.close());

  it("lists every default tool identically when all toolsets are on", () => {
    const byName = new Map(all.map((t) => [t.name, t]));
    for (const t of defaults) expect(byName.get(t.name), t.name).toEqual(t);
  });

  it("matches the snapshot of every tool", () => {
    mkdirSync(DIR, { recursive: true });
    const problems: string[] = [];
    for (const tool of all) {
      const file = `${DIR}${tool.name}.json`;
      const text = snapshotText(tool);
      if (UPDATE) {
        if (!existsSync(file) || readFileSync(file, "utf8") !== text) writeFileSync(file, text);
        continue;
      }
      if (!existsSync(file)) {
        problems.push(`${tool.name}: no snapshot (a new tool?)`);
        continue;
      }
      const saved = readFileSync(file, "utf8");
      if (saved !== text) {
        // The structural diff shows what changed; the message says what to do about it.
        expect(
          JSON.parse(text),
          `${tool.name} changed: review, then refresh with UPDATE_TOOLSNAPS=1`,
        ).toEqual(JSON.parse(saved));
        problems.push(`${tool.name}: differs only in formatting`);
      }
    }
    const listed = new Set(all.map((t) => `${t.name}.json`));
    for (const file of readdirSync(DIR).filter((f) => f.endsWith(".json"))) {
      if (listed.has(file)) continue;
      if (UPDATE) rmSync(`${DIR}${file}`);
      else problems.push(`${file}: snapshot of a tool that is no longer listed (renamed or removed?)`);
    }
    expect(
      problems,
      "refresh with UPDATE_TOOLSNAPS=1 npx vitest run test/tools/toolsnaps.test.ts, review the diff, commit",
    ).toEqual([]);
  });
});
