import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { type McpHarness, startMcp } from "../helpers/mcp.js";
import { startTestRepository } from "../helpers/repository.js";

/**
 * Every answer stays bounded at the largest settings a model may ask for: under 40,000 characters
 * (10,000 tokens at characters/4) for text and structured content together, on a store large enough that
 * every list is full (3,000 synthetic entities in folders of 50–200).
 */
const BOUND = 40_000;

type Item = { ref: string; type: string };

describe("answers at the largest settings", () => {
  let repo: RunningRepository;
  let mcp: McpHarness;
  let bigFolder: string;
  let asset: string;
  const sizes: Record<string, number> = {};

  async function measure(name: string, tool: string, args: Record<string, unknown>) {
    const res = await mcp.raw(tool, args);
    expect(res.isError, `${tool} failed: ${JSON.stringify(res.content)}`).toBeFalsy();
    const size = JSON.stringify({ content: res.content, structuredContent: res.structuredContent }).length;
    sizes[name] = size;
    expect(size, `${name}: ${size} characters`).toBeLessThan(BOUND);
    return res.structuredContent as Record<string, unknown>;
  }

  beforeAll(async () => {
    repo = await startTestRepository({ seed: 3000 });
    mcp = await startMcp({ user: "manager", repo });
    // Walk down until a folder with a full page of children, and take an asset from it.
    let folder: string | undefined;
    let items = (await mcp.call<{ children: Item[] }>("browse", { limit: 200 })).children;
    for (let depth = 0; depth < 6; depth++) {
      folder = items.find((c) => c.type === "folder")?.ref;
      if (!folder) break;
      const page = await mcp.call<{ children: Item[]; total: number }>("browse", { ref: folder, limit: 200 });
      items = page.children;
      const a = items.find((c) => c.type === "asset");
      if (a && page.total >= 50) {
        bigFolder = folder;
        asset = a.ref;
        break;
      }
    }
    if (!bigFolder || !asset) throw new Error("no folder with 50+ children in the synthetic store");
  }, 120_000);

  afterAll(async () => {
    console.log(
      "largest answers (characters):",
      Object.entries(sizes)
        .map(([k, v]) => `${k} ${v}`)
        .join(", "),
    );
    await mcp?.close();
    await repo?.close();
  });

  it("browse, 200 children", async () => {
    await measure("browse", "browse", { ref: bigFolder, limit: 200 });
  });

  it("search, 100 hits with fields and facets: a page cut short says so and the cursor loses nothing", async () => {
    const args = {
      limit: 100,
      metadata: ["xip.title", "xip.description", "xip.identifier", "oai_dc.subject", "oai_dc.creator"],
      facets: ["xip.document_type", "xip.security_descriptor", "oai_dc.subject", "oai_dc.creator"],
    };
    const out = await measure("search", "search", args);
    const hits = out.hits as Item[];
    expect(hits.length).toBeLessThan(100);
    expect(out.hasMore).toBe(true);
    const res = await mcp.raw("search", args);
    expect(JSON.stringify(res.content)).toMatch(/stops \d+ early to keep the answer short/);
    // The pages that follow the cursor give exactly the refs that small pages give: nothing skipped.
    const big: string[] = hits.map((h) => h.ref);
    const next = await mcp.call<{ hits: Item[] }>("search", { ...args, cursor: out.nextCursor });
    big.push(...next.hits.map((h) => h.ref));
    const small: string[] = [];
    let cursor: string | undefined;
    while (small.length < big.length) {
      const page: { hits: Item[]; nextCursor?: string } = await mcp.call("search", {
        limit: 20,
        metadata: args.metadata,
        ...(cursor ? { cursor } : {}),
      });
      small.push(...page.hits.map((h) => h.ref));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(small.slice(0, big.length)).toEqual(big);
  });

  it("list_changes, 200 entities", async () => {
    await measure("list_changes", "list_changes", { since: "2000-01-01", limit: 200 });
  });

  it("list_events, 100 events", async () => {
    await measure("list_events", "list_events", { limit: 100 });
  });

  it("get_entity with everything included", async () => {
    await measure("get_entity", "get_entity", {
      ref: asset,
      include: ["identifiers", "metadata", "files", "links", "events"],
    });
  });

  it("read_metadata as XML", async () => {
    await measure("read_metadata", "read_metadata", { ref: asset, format: "xml" });
  });

  it("get_file at the largest text size", async () => {
    await measure("get_file", "get_file", { ref: asset, maxBytes: 65536 });
  });
});
