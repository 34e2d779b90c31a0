import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpHarness, startMcp, textOf } from "../../helpers/mcp.js";
import { DEMO, entity } from "./demo-facts.js";

interface Row {
  eventRef: string;
  type: string;
  date: string;
  user: string;
  workflow?: string;
  action?: string;
  entityRef?: string;
}
interface Answer {
  events: Row[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

async function everyEvent(
  mcp: McpHarness,
  args: Record<string, unknown>,
): Promise<{ rows: Row[]; total: number }> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  let total: number | undefined;
  for (let i = 0; i < 50; i++) {
    const a = await mcp.call<Answer>("list_events", { ...args, ...(cursor ? { cursor } : {}) });
    total ??= a.total;
    expect(a.total).toBe(total);
    rows.push(...a.events);
    cursor = a.nextCursor;
    if (!cursor) break;
  }
  return { rows, total: total ?? 0 };
}

const TYPES = ["Ingest", "Characterise", "Modified", "IntegrityCheck"];

describe("list_events", () => {
  let mcp: McpHarness;
  let reader: McpHarness;
  let all: Row[];
  beforeAll(async () => {
    mcp = await startMcp({ user: "manager" });
    reader = await startMcp({ user: "reader", repo: mcp.repo });
    all = (await everyEvent(mcp, { limit: 100 })).rows;
  });
  afterAll(async () => {
    await reader.close();
    await mcp.close();
  });

  it("lists every event of the repository newest first, paging to the end with stable totals", async () => {
    expect(all).toHaveLength(DEMO.counts.events);
    expect(new Set(all.map((e) => e.eventRef)).size).toBe(DEMO.counts.events);
    const dates = all.map((e) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const small = await everyEvent(mcp, { limit: 7 });
    expect(small.rows.map((e) => e.eventRef)).toEqual(all.map((e) => e.eventRef));
    const oldest = await everyEvent(mcp, { limit: 9, newestFirst: false });
    expect(oldest.rows.map((e) => e.eventRef)).toEqual([...all].reverse().map((e) => e.eventRef));
  });

  it("filters by type: each type's events, and together all of them", async () => {
    let sum = 0;
    for (const type of TYPES) {
      const { rows, total } = await everyEvent(mcp, { types: [type], limit: 100 });
      expect(rows.every((r) => r.type === type)).toBe(true);
      expect(rows.map((r) => r.eventRef).sort()).toEqual(
        all
          .filter((e) => e.type === type)
          .map((e) => e.eventRef)
          .sort(),
      );
      sum += total;
    }
    expect(sum).toBe(DEMO.counts.events);
  });

  it("filters by dates (a bare `to` day is inclusive) and by user", async () => {
    const day = all.find((e) => e.type === "IntegrityCheck")?.date.slice(0, 10) as string;
    const month = day.slice(0, 7);
    const { rows } = await everyEvent(mcp, { from: month, to: day, limit: 100 });
    const expected = all.filter((e) => e.date >= `${month}-01` && e.date.slice(0, 10) <= day);
    expect(rows.map((r) => r.eventRef)).toEqual(expected.map((e) => e.eventRef));
    expect(rows.some((r) => r.date.startsWith(day))).toBe(true);

    const curator = await everyEvent(mcp, { user: "curator", limit: 100 });
    expect(curator.rows.map((r) => r.eventRef)).toEqual(
      all.filter((e) => e.user === "curator").map((e) => e.eventRef),
    );
  });

  it("gives one entity's history, and filters it too", async () => {
    const ref = DEMO.refs.mapNorthQuay1856;
    const a = await mcp.call<Answer>("list_events", { ref });
    expect(a.events.map((e) => e.action)).toEqual(["AddLink", "command_create"]);
    expect(a.events.every((e) => e.entityRef === undefined)).toBe(true);
    const res = await mcp.raw("list_events", { ref });
    expect(textOf(res).split("\n")[0]).toBe(`2 events on asset "${entity(ref).title}" ${ref}, newest first:`);
    const ingest = await mcp.call<Answer>("list_events", { ref, types: ["ingest"] });
    expect(ingest.events.map((e) => [e.type, e.action])).toEqual([["Ingest", "command_create"]]);
    expect(ingest.total).toBe(1);
    const none = await mcp.call<Answer>("list_events", { ref, user: "nobody" });
    expect(none).toMatchObject({ events: [], total: 0, hasMore: false });
  });

  it("matches types and users whatever their case, and says how they are spelt when nothing matches", async () => {
    // The service compares exactly; "modified" and "Curator" are what people type.
    const modified = await everyEvent(mcp, { types: ["modified"], limit: 100 });
    expect(modified.rows.map((r) => r.eventRef)).toEqual(
      all.filter((e) => e.type === "Modified").map((e) => e.eventRef),
    );
    const res = await mcp.raw("list_events", { types: ["modified"], user: "CURATOR" });
    expect(textOf(res)).toMatch(
      /^\d+ events matching in the repository \(matched as Modified, curator\), newest first:/,
    );

    const none = await mcp.raw("list_events", { types: ["Deleted"] });
    expect(none.structuredContent).toMatchObject({ events: [], total: 0 });
    const seen = [...new Set(all.map((e) => e.type))];
    const hint = textOf(none).match(
      /Types and users are matched as spelt; recent events have types: (.*); users: (.*)\.$/,
    );
    expect(hint, textOf(none)).not.toBeNull();
    expect(hint?.[1]?.split(", ").sort()).toEqual(seen.sort());

    // One entity's history is filtered here: a user in another case matches too.
    const ref = DEMO.refs.mapNorthQuay1856;
    const mine = await mcp.call<Answer>("list_events", { ref, user: "CURATOR" });
    const exact = await mcp.call<Answer>("list_events", { ref, user: "curator" });
    expect(mine.total).toBe(exact.total);
    expect(mine.total).toBeGreaterThan(0);
    const nobody = await mcp.raw("list_events", { ref, user: "nobody" });
    expect(textOf(nobody)).toMatch(/Types and users are matched as spelt; its events have types: .*Ingest/);
  });

  it("lists the entities one event acted on", async () => {
    const link = all.find(
      (e) => e.type === "Modified" && e.date === all.filter((x) => x.type === "Modified")[0]?.date,
    );
    const { rows, total } = await everyEvent(mcp, { event: link?.eventRef, limit: 100 });
    expect(total).toBe(rows.length);
    expect(rows.every((r) => r.eventRef === link?.eventRef && r.entityRef && entity(r.entityRef))).toBe(true);
    expect(rows.map((r) => r.entityRef)).toContain(DEMO.refs.mapNorthQuay1856);
  });

  it("hides from a reader the events that touched only what they may not see", async () => {
    const theirs = await everyEvent(reader, { limit: 100 });
    expect(theirs.total).toBeLessThan(DEMO.counts.events);
    expect(theirs.rows.every((r) => all.some((e) => e.eventRef === r.eventRef))).toBe(true);
    const closed = await reader.raw("list_events", { ref: DEMO.refs.closedAsset });
    expect(textOf(closed)).toMatch(/^You do not have permission/);
  });

  it("explains conflicting or malformed arguments", async () => {
    const both = await mcp.raw("list_events", { ref: DEMO.refs.pdfAsset, event: all[0]?.eventRef });
    expect(textOf(both)).toMatch(/either ref .* or event .*, not both/);
    const filtered = await mcp.raw("list_events", { event: all[0]?.eventRef, user: "curator" });
    expect(textOf(filtered)).toMatch(/Filters apply to lists of events/);
    const date = await mcp.raw("list_events", { from: "2025-02-30" });
    expect(textOf(date)).toMatch(/from "2025-02-30" is not a real date/);
    const cursor = await mcp.call<Answer>("list_events", { limit: 2 });
    const reuse = await mcp.raw("list_events", { types: ["Ingest"], cursor: cursor.nextCursor });
    expect(textOf(reuse)).toMatch(/different question/);
  });
});
