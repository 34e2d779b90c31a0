import { describe, expect, it } from "vitest";
import { type McpHarness, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { assetNode, DEMO, descendantsOf, entity, readerSees } from "./demo-facts.js";

interface Hit {
  ref: string;
  type: string;
  title: string;
  parentRef?: string;
  fields?: Record<string, string | string[]>;
}
interface Answer {
  hits: Hit[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
  facets?: { field: string; values: { value: string; count: number }[]; more?: number }[];
}

/** Every hit of a search, following cursors; checks the total is the same on every page. */
async function everyHit(
  mcp: McpHarness,
  args: Record<string, unknown>,
): Promise<{ hits: Hit[]; total: number }> {
  const hits: Hit[] = [];
  let cursor: string | undefined;
  let total: number | undefined;
  for (let pages = 0; pages < 50; pages++) {
    const a = await mcp.call<Answer>("search", { ...args, ...(cursor ? { cursor } : {}) });
    total ??= a.total;
    expect(a.total).toBe(total);
    hits.push(...a.hits);
    expect(a.hasMore).toBe(a.nextCursor !== undefined);
    if (!a.nextCursor) break;
    cursor = a.nextCursor;
  }
  return { hits, total: total ?? 0 };
}

const foldersAndAssets = DEMO.entities.filter((e) => e.type !== "CO");

describe("search", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });

  it("pages through every asset with a cursor, totals stable, each asset once, in our terms", async () => {
    const { hits, total } = await everyHit(mcp, { type: "asset", limit: 40 });
    expect(total).toBe(DEMO.counts.byType.IO);
    expect(hits).toHaveLength(total);
    expect(new Set(hits.map((h) => h.ref)).size).toBe(total);
    for (const h of hits) {
      const e = entity(h.ref);
      expect([h.type, h.title, h.parentRef]).toEqual(["asset", e.title, e.parentRef]);
    }
  });

  it("lists folders and assets (not content objects) by default, 20 a page, and reports more", async () => {
    const a = await mcp.call<Answer>("search", {});
    expect(a.total).toBe(foldersAndAssets.length);
    expect(a.hits).toHaveLength(20);
    expect(a.hasMore).toBe(true);
    const last = await mcp.call<Answer>("search", { type: "content_object", limit: 100 });
    expect(last.total).toBe(DEMO.counts.byType.CO);
    expect(last.hits.every((h) => h.type === "content_object")).toBe(true);
  });

  it("finds words in titles, with facet counts that add up to the total", async () => {
    const title = entity(DEMO.refs.harbourMasterJournal1852).title;
    const a = await mcp.call<Answer>("search", { query: title, facets: ["xip.document_type"] });
    expect(a.hits.map((h) => h.ref)).toContain(DEMO.refs.harbourMasterJournal1852);
    const facet = a.facets?.find((f) => f.field === "xip.document_type");
    expect(facet?.values.reduce((n, v) => n + v.count, 0)).toBe(a.total);
  });

  it("never shows a reader closed or staff material, even when searching for its exact title", async () => {
    const closed = entity(DEMO.refs.closedAsset);
    const own = await mcp.call<Answer>("search", { query: `"${closed.title}"` });
    expect(own.hits.map((h) => h.ref)).toContain(closed.ref);
    const theirs = await reader.call<Answer>("search", { query: `"${closed.title}"` });
    expect(theirs.hits.map((h) => h.ref)).not.toContain(closed.ref);
    const all = await everyHit(reader, { limit: 100 });
    expect(all.total).toBe(foldersAndAssets.filter(readerSees).length);
    expect(all.hits.every((h) => readerSees(entity(h.ref)))).toBe(true);
  });

  it("quotes the query once, even a phrase that brings its own quotes", async () => {
    const res = await mcp.raw("search", { query: '"Custom House"' });
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toMatch(/^\d+ match(es)? for "Custom House":/);
    expect(textOf(res)).not.toContain('""');
  });

  it("searches within a folder's whole subtree", async () => {
    const folder = DEMO.refs.councilMinutesSeries;
    const expected = descendantsOf(folder)
      .map((e) => e.ref)
      .sort();
    const { hits, total } = await everyHit(mcp, { within: folder, limit: 100 });
    expect(total).toBe(expected.length);
    expect(hits.map((h) => h.ref).sort()).toEqual(expected);
  });

  it("filters by security tag and by created dates (whole days inclusive)", async () => {
    const closed = await mcp.call<Answer>("search", { securityTag: "closed", limit: 1 });
    expect(closed.total).toBe(foldersAndAssets.filter((e) => e.securityTag === "closed").length);

    const day = entity(DEMO.refs.byeLaw1858).created.slice(0, 10);
    const sameDay = foldersAndAssets.filter((e) => e.created.startsWith(day));
    const { hits } = await everyHit(mcp, { createdFrom: day, createdTo: day, limit: 100 });
    expect(hits.map((h) => h.ref).sort()).toEqual(sameDay.map((e) => e.ref).sort());

    const year = day.slice(0, 4);
    const before = await mcp.call<Answer>("search", { createdTo: `${Number(year) - 1}`, limit: 1 });
    expect(before.total).toBe(foldersAndAssets.filter((e) => e.created < year).length);
  });

  it("filters by indexed fields, with exclude, and returns requested fields per hit", async () => {
    const node = assetNode("byeLaw1858");
    const subject = node.subjects[0] as string;
    const a = await mcp.call<Answer>("search", {
      type: "asset",
      fields: [{ field: "oai_dc.subject", values: [subject] }],
      metadata: ["oai_dc.subject", "oai_dc.date"],
      limit: 100,
    });
    const hit = a.hits.find((h) => h.ref === DEMO.refs.byeLaw1858);
    expect(hit?.fields?.["oai_dc.date"]).toEqual([node.date]);
    expect(hit?.fields?.["oai_dc.subject"]).toEqual(node.subjects);
    for (const h of a.hits) expect(h.fields?.["oai_dc.subject"]).toContain(subject);

    const without = await mcp.call<Answer>("search", {
      type: "asset",
      fields: [{ field: "oai_dc.subject", values: [subject], exclude: true }],
      limit: 1,
    });
    expect(without.total + a.total).toBe(DEMO.counts.byType.IO);
  });

  it("explains a field name that does not exist, with the near one", async () => {
    const res = await mcp.raw("search", { fields: [{ field: "oai_dc.subjects", values: ["x"] }] });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      /"oai_dc\.subjects" \(in fields\) is not an indexed field\. Did you mean oai_dc\.subject\?/,
    );
    const facet = await mcp.raw("search", { facets: ["subject"] });
    expect(textOf(facet)).toMatch(/not an indexed field.*oai_dc\.subject/);
  });

  it("refuses a cursor from another question and a garbled one", async () => {
    const first = await mcp.call<Answer>("search", { type: "asset", limit: 5 });
    const other = await mcp.raw("search", { type: "folder", cursor: first.nextCursor });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toMatch(/different question/);
    const garbled = await mcp.raw("search", { cursor: "not-a-cursor" });
    expect(textOf(garbled)).toMatch(/not one this tool returned/);
    // The page size may change between pages: the cursor stays valid.
    const second = await mcp.call<Answer>("search", { type: "asset", limit: 7, cursor: first.nextCursor });
    expect(second.hits[0]?.ref).not.toBe(first.hits[0]?.ref);
  });

  it("says what is wrong with a bad ref, a wrong kind of ref, and bad dates", async () => {
    const bad = await mcp.raw("search", { within: "Council Minutes" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/"Council Minutes" is not a ref; refs are UUIDs.*`search` or `browse`/);
    const asset = await mcp.raw("search", { within: DEMO.refs.pdfAsset });
    expect(textOf(asset)).toMatch(/is an asset \(".+"\), not a folder\. `within` takes a folder/);
    const date = await mcp.raw("search", { createdFrom: "last tuesday" });
    expect(textOf(date)).toMatch(/createdFrom "last tuesday" is not a date; use a date like 2025/);
    const upside = await mcp.raw("search", { createdFrom: "2025", createdTo: "2024" });
    expect(textOf(upside)).toMatch(/createdFrom is after createdTo/);
  });

  it("answers nothing found in words that suggest what to try", async () => {
    const res = await mcp.raw("search", { query: "zzqqxx" });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ hits: [], total: 0, hasMore: false });
    expect(textOf(res)).toMatch(/^No matches for "zzqqxx"\. Try/);
  });

  it("on a miss, lists the values a small-vocabulary field holds, unless the value exists", async () => {
    const groups = await mcp.call<Answer>("search", { facets: ["xip.format_group"], limit: 1 });
    const values = groups.facets?.[0]?.values ?? [];
    expect(values.length).toBeGreaterThan(1);
    const res = await mcp.raw("search", { fields: [{ field: "xip.format_group", values: ["Image"] }] });
    expect(res.structuredContent).toMatchObject({ hits: [], total: 0 });
    expect(textOf(res)).toContain(
      `xip.format_group holds these values: ${values.map((v) => `${v.value} (${v.count})`).join(", ")}.`,
    );
    // The value exists (format groups belong to assets): the miss is the kind's doing, so no list.
    const existing = values[0]?.value as string;
    const kind = await mcp.raw("search", {
      type: "content_object",
      fields: [{ field: "xip.format_group", values: [existing.toLowerCase()] }],
    });
    expect(textOf(kind)).toMatch(/^No matches/);
    expect(textOf(kind)).not.toMatch(/holds these values/);
  });

  it("says created dates are repository dates when a range of record dates finds nothing", async () => {
    const res = await mcp.raw("search", { query: "minutes", createdFrom: "1850", createdTo: "1859" });
    expect(res.structuredContent).toMatchObject({ total: 0 });
    expect(textOf(res)).toMatch(
      /createdFrom\/createdTo are when items were added to the repository; for the record's own date filter fields \[\{field: "oai_dc.date", values: \["1851%"\]\}\]/,
    );
    // And the way it suggests works.
    const byRecordDate = await mcp.call<Answer>("search", {
      query: "minutes",
      fields: [{ field: "oai_dc.date", values: ["185%"] }],
    });
    expect(byRecordDate.total).toBeGreaterThan(0);
  });

  it("after a miss below a folder, says whether the same search finds anything elsewhere", async () => {
    const journals = DEMO.entities.filter((e) => /journal/i.test(e.title) && e.type !== "CO");
    expect(journals.length).toBeGreaterThan(0);
    const res = await mcp.raw("search", { query: "journal", within: DEMO.refs.photographs });
    expect(res.structuredContent).toMatchObject({ total: 0 });
    const everywhere = await mcp.call<Answer>("search", { query: "journal", limit: 1 });
    expect(textOf(res)).toContain(
      `the same search finds ${everywhere.total} ${everywhere.total === 1 ? "match" : "matches"} elsewhere in the repository: search again without \`within\`.`,
    );
    // Rewording is not the advice then: the words were fine, the folder was not.
    expect(textOf(res)).not.toMatch(/Try fewer or shorter words/);
    const nowhere = await mcp.raw("search", { query: "zzqqxx", within: DEMO.refs.photographs });
    expect(textOf(nowhere)).toMatch(
      /Try fewer or shorter words.*\n.*whole subtree was searched.*finds nothing elsewhere either\./,
    );
  });

  it("tells the model of xip.format_group where field filters are described, and the filter works", async () => {
    const { tools } = await mcp.client.listTools();
    const schema = JSON.stringify(tools.find((t) => t.name === "search")?.inputSchema);
    expect(schema).toMatch(/xip\.format_group \(files: pdf, png, tiff…\)/);
    const images = await mcp.call<Answer>("search", {
      fields: [{ field: "xip.format_group", values: ["png"] }],
    });
    expect(images.total).toBeGreaterThan(0);
  });

  it("finds content objects below a folder when asked for by type", async () => {
    const folder = DEMO.refs.photographs;
    const below = new Set(descendantsOf(folder).map((e) => e.ref));
    const cos = DEMO.entities.filter((e) => e.type === "CO" && e.parentRef && below.has(e.parentRef));
    expect(cos.length).toBeGreaterThan(0);
    const { hits, total } = await everyHit(mcp, { within: folder, type: "content_object", limit: 100 });
    expect(total).toBe(cos.length);
    expect(hits.map((h) => h.ref).sort()).toEqual(cos.map((c) => c.ref).sort());
  });

  it("names each hit's folder by title in the text", async () => {
    const res = await mcp.raw("search", { query: "harbour", type: "asset", limit: 5 });
    const a = res.structuredContent as unknown as Answer;
    for (const h of a.hits) {
      const parent = entity(h.parentRef as string);
      expect(textOf(res)).toContain(`${h.ref}, in "${parent.title}" ${parent.ref}`);
    }
  });

  it("after a created-date miss, says when items were added", async () => {
    const created = DEMO.entities
      .filter((e) => e.type !== "CO")
      .map((e) => e.created)
      .sort();
    const res = await mcp.raw("search", { createdFrom: "2099" });
    expect(textOf(res)).toContain(
      `Items you may see were added between ${created[0]} and ${created.at(-1)}.`,
    );
  });

  it("keeps a default answer compact", async () => {
    const res = await mcp.raw("search", { query: "harbour", facets: ["oai_dc.subject"] });
    expect(textOf(res).length).toBeLessThan(6000);
    expect(textOf(res)).toMatch(/Showing 1–20 of \d+; for more, call again with cursor "/);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("search", { query: "harbour master" });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "25 matches for "harbour master":
      - folder "Harbour Master's Journals" 1bcdc103-98c3-4998-80a5-dc3dbb112160, in "Harbour Board" c4fe59a2-5dcb-4dfd-a358-475273c1432d
      - asset "Personnel file: Thomas Kettering, Harbour Master" ab43ab67-ea9a-4e25-9086-db8a4f5d5501, in "Personnel Files" 5e044dbe-a03e-4238-8243-c240232445ad
      - asset "Personnel file: Arthur Penrose, Harbour Master" 22cad7b9-6615-4383-9144-b10a38910abe, in "Personnel Files" 5e044dbe-a03e-4238-8243-c240232445ad
      - asset "Harbour Master's journal 1852" e4490e85-51ec-4227-a858-7011400354b1, in "Harbour Master's Journals" 1bcdc103-98c3-4998-80a5-dc3dbb112160
      - asset "Harbour Master's journal 1853" fddbbbfa-076d-4cc4-8be5-733004559f4b, in "Harbour Master's Journals" 1bcdc103-98c3-4998-80a5-dc3dbb112160
      - asset "Harbour Master's journal 1854" f1d6f803-e772-4e21-a815-267ed9c825b4, in "Harbour Master's Journals" 1bcdc103-98c3-4998-80a5-dc3dbb112160
      - asset "Letter from the Town Clerk to the Harbour Master, 1931" 21a9cd12-eef8-4a4a-a0d9-e4ed376af30a, in "Letters of the Town Clerk" 16ae68bf-7fb2-4bc0-9d72-c19c3541721a
      - asset "Harbour Board minutes 1854" 89cf49e3-0ec1-45b8-9588-c6fe19a3023b, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Register of harbour dues 1858" 76c0ef85-e848-40c5-8c24-089eac3297c1, in "Registers of Harbour Dues" 0cb9520f-5ee2-4bcd-969a-f144f832bf21
      - asset "Register of harbour dues 1859" e3455e3b-1865-4a6e-937f-bc6a0b2aba45, in "Registers of Harbour Dues" 0cb9520f-5ee2-4bcd-969a-f144f832bf21
      - asset "Register of harbour dues 1855" a7e71cb5-9e11-4d3f-a3ac-69f827798bc0, in "Registers of Harbour Dues" 0cb9520f-5ee2-4bcd-969a-f144f832bf21
      - asset "Register of harbour dues 1856" bf82084c-8eb6-44f3-b3e9-883f5aa3ff04, in "Registers of Harbour Dues" 0cb9520f-5ee2-4bcd-969a-f144f832bf21
      - asset "Register of harbour dues 1857" 648fe4b5-87fd-44ee-97ec-8b7f4744ff06, in "Registers of Harbour Dues" 0cb9520f-5ee2-4bcd-969a-f144f832bf21
      - asset "Harbour Board minutes 1850" 5b0c2e8a-bac6-4b83-9f39-de8aa4b9b4c3, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Harbour Board minutes 1859" 05fa205b-c18c-4c92-947c-5a480e46c5a6, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Harbour Board minutes 1852" 15ee8927-3311-4f50-ba25-9f8cbc234ea3, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Harbour Board minutes 1857" 9dcd889f-c4fb-4864-be1a-5e784f070911, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Harbour Board minutes 1853" 5f2f426f-2951-402b-9da9-a71e25e8814f, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Harbour Board minutes 1856" 6c06b63e-6e7f-4587-a6d5-2ca782452131, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      - asset "Harbour Board minutes 1851" 83dd9742-65d7-4530-8b55-0eece8dc2cee, in "Harbour Board Minutes" 39615f7b-0bb6-433b-8630-82a6886536ca
      Showing 1–20 of 25; for more, call again with cursor "<cursor>"."
    `);
  });
});
