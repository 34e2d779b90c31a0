import { describe, expect, it } from "vitest";
import { textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { assetNode, DEMO, entity, nodeOf } from "./demo-facts.js";

interface Answer {
  entities: { ref: string; type: string; title: string }[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

describe("find_by_identifier", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });

  it("finds an asset by its reference code, with or without the identifier type", async () => {
    const code = assetNode("byeLaw1858").code;
    const expected = { ref: DEMO.refs.byeLaw1858, type: "asset", title: entity(DEMO.refs.byeLaw1858).title };
    expect(await mcp.call<Answer>("find_by_identifier", { value: code })).toMatchObject({
      entities: [expected],
      total: 1,
      hasMore: false,
    });
    expect((await mcp.call<Answer>("find_by_identifier", { value: code, type: "code" })).entities).toEqual([
      expected,
    ]);
    expect((await mcp.call<Answer>("find_by_identifier", { value: code, type: "isbn" })).total).toBe(0);
  });

  it("says when the value is there under another identifier type than the one guessed", async () => {
    const accession = assetNode("interviewDoyle").identifiers?.find(
      ([t]) => t === "accession",
    )?.[1] as string;
    const res = await mcp.raw("find_by_identifier", { value: accession, type: "accession number" });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ entities: [], total: 0 });
    expect(textOf(res)).toBe(
      `No identifier of type "accession number" has the value "${accession}", but 1 entity carries it under another type: call again without \`type\`.`,
    );
    const untyped = await mcp.call<Answer>("find_by_identifier", { value: accession });
    expect(untyped.entities.map((e) => e.ref)).toEqual([DEMO.refs.interviewDoyle]);
  });

  it("finds a folder by its code and a publication by its ISBN", async () => {
    const folder = nodeOf("photographs");
    const byCode = await mcp.call<Answer>("find_by_identifier", { value: folder.node.code });
    expect(byCode.entities.map((e) => [e.ref, e.type])).toEqual([[folder.ref, "folder"]]);
    const isbn = assetNode("historyOfHarbourTown").identifiers?.find(([t]) => t === "isbn")?.[1] as string;
    const byIsbn = await mcp.call<Answer>("find_by_identifier", { value: isbn, type: "isbn" });
    expect(byIsbn.entities.map((e) => e.ref)).toEqual([DEMO.refs.historyOfHarbourTown]);
  });

  it("finds nothing a reader may not see, and says how to search more loosely", async () => {
    const code = assetNode("letterAdmiralty1869").code;
    expect((await mcp.call<Answer>("find_by_identifier", { value: code })).total).toBe(1);
    const res = await reader.raw("find_by_identifier", { value: code });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ entities: [], total: 0 });
    expect(textOf(res)).toMatch(
      /^No entity you may see has identifier ".+"\. Values match exactly; try `search`/,
    );
  });

  it("pages when many entities share a value", async () => {
    const db = mcp.repo.svc.db;
    const { addIdentifier } = await import("../../../repository/store/entities/write.js");
    const shared = DEMO.entities.filter((e) => e.type === "IO").slice(0, 5);
    for (const e of shared) addIdentifier(db, e.ref, "batch", "BATCH-2025-07");
    const first = await mcp.call<Answer>("find_by_identifier", { value: "BATCH-2025-07", limit: 2 });
    expect(first).toMatchObject({ total: 5, hasMore: true });
    const refs = [...first.entities.map((e) => e.ref)];
    let cursor = first.nextCursor;
    while (cursor) {
      const next = await mcp.call<Answer>("find_by_identifier", { value: "BATCH-2025-07", limit: 2, cursor });
      expect(next.total).toBe(5);
      refs.push(...next.entities.map((e) => e.ref));
      cursor = next.nextCursor;
    }
    expect(refs.sort()).toEqual(shared.map((e) => e.ref).sort());
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("find_by_identifier", { value: assetNode("byeLaw1858").code });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "1 entity with identifier "HTA/HTC/3/1858":
      - asset "Bye-laws for the regulation of the Market 1858" a26e292a-febc-41a7-9778-da83cc81b45a"
    `);
  });
});
