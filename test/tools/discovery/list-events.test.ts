import { beforeAll, describe, expect, it } from "vitest";
import { type McpHarness, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { DEMO, entity } from "./demo-facts.js";

interface Row {
  eventRef: string;
  type: string;
  date: string;
  user: string;
  workflow?: string;
  action?: string;
  entityRef?: string;
  touched?: Touched[];
  touchedMore?: number;
}
interface Touched {
  ref: string;
  type: string;
  title: string;
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
    const a = await mcp.call<Answer>("list_events", {
      ...args,
      ...(args.event ? { detail: "full" } : {}),
      ...(cursor ? { cursor } : {}),
    });
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
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });
  let all: Row[];
  beforeAll(async () => {
    all = (await everyEvent(mcp, { limit: 100 })).rows;
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

  it("names what each event touched, by kind and title, bounded with a count of the rest", async () => {
    const res = await mcp.raw("list_events", { types: ["Modified"], limit: 5 });
    const a = res.structuredContent as unknown as Answer;
    for (const ev of a.events) {
      const acted = await everyEvent(mcp, { event: ev.eventRef, limit: 100 });
      const touched = ev.touched ?? [];
      expect(touched.length).toBe(Math.min(3, acted.total));
      expect(ev.touchedMore ?? 0).toBe(acted.total - touched.length);
      for (const t of touched) {
        const e = entity(t.ref);
        expect(t).toEqual({
          ref: e.ref,
          type: { SO: "folder", IO: "asset", CO: "content_object" }[e.type],
          title: e.title,
        });
        expect(textOf(res)).toContain(`"${e.title}" ${e.ref}`);
      }
      if (ev.touchedMore) expect(textOf(res)).toMatch(new RegExp(`and ${ev.touchedMore} more entit`));
    }
    // One event's own actions: each entity named in the row and the text.
    const link = a.events.find((e) => e.touched?.some((t) => t.ref === DEMO.refs.mapNorthQuay1856));
    const actions = await mcp.raw("list_events", { event: link?.eventRef, limit: 100, detail: "full" });
    const rows = (actions.structuredContent as unknown as Answer).events;
    expect(rows.every((r) => r.touched?.[0]?.ref === r.entityRef && r.touched?.[0]?.title)).toBe(true);
    expect(textOf(actions)).toContain(
      `on asset "${entity(DEMO.refs.mapNorthQuay1856).title}" ${DEMO.refs.mapNorthQuay1856}`,
    );
  });

  it("says what one ingest brought in compactly by default: the event once, each entity once", async () => {
    const ingest = all.find((e) => e.type === "Ingest");
    const full = await mcp.raw("list_events", { event: ingest?.eventRef, detail: "full" });
    const compact = await mcp.raw("list_events", { event: ingest?.eventRef });
    const f = full.structuredContent as unknown as Answer;
    const c = compact.structuredContent as unknown as Answer & {
      event: { eventRef: string; type: string; user: string };
      entities: { ref: string; title: string; type: string; action?: string }[];
    };
    expect(c.event).toMatchObject({ eventRef: ingest?.eventRef, type: "Ingest", user: ingest?.user });
    expect(c.entities.map((e) => e.ref)).toEqual(f.events.map((r) => r.entityRef));
    for (const e of c.entities) {
      expect(e.title).toBe(entity(e.ref).title);
      expect(textOf(compact)).toContain(`"${e.title}" ${e.ref}`);
    }
    expect(textOf(compact).split("\n")[0]).toContain(`Ingest by ${ingest?.user} on ${ingest?.date}`);
    // The same facts in well under two thirds of the characters (text and structured content together).
    const size = (r: typeof full) => textOf(r).length + JSON.stringify(r.structuredContent).length;
    expect(size(compact)).toBeLessThan(size(full) * 0.66);
  });

  it("points from an asset's history to its files' integrity checks", async () => {
    const ref = DEMO.refs.mapNorthQuay1856;
    const res = await mcp.raw("list_events", { ref, types: ["IntegrityCheck"] });
    expect(res.structuredContent).toMatchObject({ total: 0 });
    const cos = DEMO.entities.filter((e) => e.type === "CO" && e.parentRef === ref);
    expect(cos.length).toBeGreaterThan(0);
    const hint = textOf(res).match(
      /Its files' events \(integrity checks, characterisation\) are recorded on its content objects: (.*); pass one as ref\./,
    );
    expect(hint, textOf(res)).not.toBeNull();
    for (const co of cos) expect(hint?.[1]).toContain(co.ref);
    // And following the pointer finds them.
    const checks = await mcp.call<Answer>("list_events", { ref: cos[0]?.ref, types: ["IntegrityCheck"] });
    expect(checks.total).toBeGreaterThan(0);
  });

  it("after a date range with no events, says the dates that do hold events", async () => {
    const dates = all.map((e) => e.date);
    const res = await mcp.raw("list_events", { from: "2099-01" });
    expect(res.structuredContent).toMatchObject({ events: [], total: 0 });
    expect(textOf(res)).toContain(
      `Events you may see run from ${dates.at(-1)} to ${dates[0]} (${all.length} in all); ask about a window inside that.`,
    );
    const ref = DEMO.refs.mapNorthQuay1856;
    const own = await mcp.raw("list_events", { ref, to: "2001" });
    expect(textOf(own)).toMatch(/Its events you may see run from 2\d{3}-.* to 2\d{3}-.* \(2 in all\)/);
    // A range that holds events says nothing of the kind.
    expect(textOf(await mcp.raw("list_events", { from: "2025" }))).not.toMatch(/you may see run from/);
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

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("list_events", { ref: DEMO.refs.byeLaw1858 });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "1 event on asset "Bye-laws for the regulation of the Market 1858" a26e292a-febc-41a7-9778-da83cc81b45a, newest first:
      - 2023-03-17T09:31:31.000Z Ingest (command_create) by curator, Ingest Harbour Town Archives (XIP) event 93cecd8e-ac76-4f37-9ea2-58673f8c17c4
      Its files' events (integrity checks, characterisation) are recorded on its content objects: 8fdaf3b5-1be0-4e8d-803d-989260ac8037 "bye-laws-for-the-regulation-of-the-market-1858.pdf" (5 events), 4cb1c86a-3fb0-4cd5-9d8b-dd7fb2d032ab "bye-laws-for-the-regulation-of-the-market-1858.xml" (5 events); pass one as ref."
    `);
  });
});
