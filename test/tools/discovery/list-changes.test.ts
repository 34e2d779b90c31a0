import { describe, expect, it } from "vitest";
import { type McpHarness, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { DEMO, entity, readerSees } from "./demo-facts.js";

interface Answer {
  since: string;
  until?: string;
  entities: { ref: string; type: string; title: string }[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

async function everyChange(mcp: McpHarness, args: Record<string, unknown>) {
  const refs: string[] = [];
  let cursor: string | undefined;
  let total: number | undefined;
  for (let i = 0; i < 50; i++) {
    const a = await mcp.call<Answer>("list_changes", { ...args, ...(cursor ? { cursor } : {}) });
    total ??= a.total;
    expect(a.total).toBe(total);
    refs.push(...a.entities.map((e) => e.ref));
    cursor = a.nextCursor;
    if (!cursor) break;
  }
  return { refs, total: total ?? 0 };
}

describe("list_changes", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });

  it("lists everything changed since long ago, paging to the end, each entity once", async () => {
    const { refs, total } = await everyChange(mcp, { since: "1900", limit: 200 });
    expect(total).toBe(DEMO.counts.total);
    expect(new Set(refs).size).toBe(DEMO.counts.total);
    const theirs = await everyChange(reader, { since: "1900", limit: 200 });
    expect(theirs.total).toBe(DEMO.entities.filter(readerSees).length);
    expect(theirs.refs).not.toContain(DEMO.refs.closedAsset);
  });

  it("splits cleanly into windows: a bare `until` day is inclusive, `since` the next day starts after it", async () => {
    const created = entity(DEMO.refs.photographs).created;
    const day = created.slice(0, 10);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const before = await everyChange(mcp, { since: "1900", until: day, limit: 200 });
    const after = await everyChange(mcp, { since: next, limit: 200 });
    expect(before.total + after.total).toBe(DEMO.counts.total);
    expect(before.refs).toContain(DEMO.refs.photographs);
    expect(after.refs).not.toContain(DEMO.refs.photographs);
  });

  it("finds an asset in the window of a later change to it, not after", async () => {
    // The 1856 map was changed when the links were added: the newest Modified event that touched it.
    const events = await mcp.call<{ events: { date: string; action?: string }[] }>("list_events", {
      ref: DEMO.refs.mapNorthQuay1856,
    });
    const changed = events.events.find((e) => e.action === "AddLink")?.date as string;
    const day = changed.slice(0, 10);
    const during = await mcp.call<Answer>("list_changes", { since: day, until: day, limit: 200 });
    expect(during.entities).toContainEqual({
      ref: DEMO.refs.mapNorthQuay1856,
      type: "asset",
      title: entity(DEMO.refs.mapNorthQuay1856).title,
    });
    expect(during).toMatchObject({ since: `${day}T00:00:00.000Z`, until: `${day}T23:59:59.999Z` });
    const later = await mcp.call<Answer>("list_changes", {
      since: `${changed.slice(0, 19)}.001Z`,
      limit: 200,
    });
    expect(later.entities.map((e) => e.ref)).not.toContain(DEMO.refs.mapNorthQuay1856);
  });

  it("after an empty window, says the dates the repository's history does span", async () => {
    // The demo's newest event is 2026-01-15: "what changed last week" must not end at "nothing".
    type Events = { events: { date: string }[]; total: number };
    const newest = await mcp.call<Events>("list_events", { limit: 1 });
    const oldest = await mcp.call<Events>("list_events", { limit: 1, newestFirst: false });
    expect(newest.total).toBe(DEMO.counts.events);
    const res = await mcp.raw("list_changes", { since: "2099-01-01" });
    expect(textOf(res)).toContain(
      `Events you may see run from ${oldest.events[0]?.date} to ${newest.events[0]?.date} (${DEMO.counts.events} in all); ask about a window inside that.`,
    );
    // A window that holds changes says nothing of the kind.
    const some = await mcp.raw("list_changes", { since: "2025-01" });
    expect(textOf(some)).not.toMatch(/Events you may see run from/);
  });

  it("says plainly when nothing changed, and explains bad dates", async () => {
    const res = await mcp.raw("list_changes", { since: "2099-01-01" });
    expect(res.structuredContent).toMatchObject({ entities: [], total: 0, hasMore: false });
    expect(textOf(res).split("\n")[0]).toBe(
      "Nothing you may see changed from 2099-01-01T00:00:00.000Z onwards.",
    );
    const bad = await mcp.raw("list_changes", { since: "yesterday" });
    expect(textOf(bad)).toMatch(/since "yesterday" is not a date/);
    // "What changed last month?": the answer gives today's date, so the model can work out the window.
    const relative = await mcp.raw("list_changes", { since: "last month" });
    const today = new Date().toISOString().slice(0, 10);
    expect(textOf(relative)).toMatch(new RegExp(`is not a date; use .* \\(today is ${today}\\)\\.$`));
    const upside = await mcp.raw("list_changes", { since: "2025-02", until: "2025-01" });
    expect(textOf(upside)).toMatch(/since is after until/);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("list_changes", { since: "2025-01", limit: 3 });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "45 entities changed from 2025-01-01T00:00:00.000Z onwards:
      - asset "Interview with Albert Rowe, lifeboat coxswain" 2adb2c7c-4e17-4e99-b020-b1207e6b9530
      - asset "Interview with Edith Hocking, shopkeeper" 2ddc640a-abf2-410c-ab1c-4320b8c7bb2e
      - asset "Interview with Walter Jago, docker" 3253f19e-538b-4f8b-beb9-d2af16392334
      Showing 1–3 of 45; for more, call again with cursor "<cursor>"."
    `);
  });
});
