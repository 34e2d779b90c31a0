import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

const FLAGS = ["--toolsets", "all"];

interface Listing {
  instances: { id: string; state: string; context?: string; creator?: string; job?: string }[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

// Nothing here writes: both eras read one repository.
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("workflows (%s)", (era) => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const reader = useMcp({ user: "reader", flags: FLAGS, repo, era });

  it("lists instances newest first, pages them, and filters", async () => {
    const first = await mcp.call<Listing>("workflows", { limit: 3 });
    expect(first.total).toBeGreaterThanOrEqual(7);
    const ids = first.instances.map((i) => Number(i.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(first.hasMore).toBe(true);
    const second = await mcp.call<Listing>("workflows", { limit: 3, cursor: first.nextCursor });
    expect(Number(second.instances[0]?.id)).toBeLessThan(Math.min(...ids));

    const failed = await mcp.raw("workflows", { state: "Failed", creator: "curator" });
    const f = failed.structuredContent as unknown as Listing;
    expect(f.total).toBe(1);
    expect(f.instances[0]).toMatchObject({ state: "Failed", creator: "curator", context: "Ingest" });
    expect(textOf(failed)).toMatch(/^1 workflow instances match/);

    const jan = await mcp.call<Listing>("workflows", { from: "2026-01-19", to: "2026-01-20" });
    expect(jan.total).toBe(2);
    const none = await mcp.call<Listing>("workflows", { context: "Integrity Check", from: "2099" });
    expect(none.total).toBe(0);
  });

  it("reads one instance with its failed items, and the contexts", async () => {
    const f = await mcp.call<Listing>("workflows", { state: "Failed" });
    const res = await mcp.raw("workflows", { id: f.instances[0]?.job ?? "" });
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toMatch(/Failed items:\n {2}✗ .*harbour-regatta-1911\.png/);
    const c = await mcp.raw("workflows", { contexts: true });
    expect(textOf(c)).toMatch(/Integrity Check \(DataManagement\): startable with `control_workflow`/);
  });

  it("refuses an unknown context by name, listing the known ones", async () => {
    const res = await mcp.raw("workflows", { context: "Polish" });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/No workflow context is named “Polish”; known: .*Integrity Check/);
  });

  it("is listed for a reader, who sees only their own instances", async () => {
    expect((await reader.client.listTools()).tools.map((t) => t.name)).toContain("workflows");
    const l = await reader.call<Listing>("workflows", {});
    expect(l.instances.every((i) => i.creator === "reader")).toBe(true);
  });
});
