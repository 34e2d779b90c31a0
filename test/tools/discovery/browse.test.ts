import { describe, expect, it } from "vitest";
import { textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { ancestorsOf, childrenOf, DEMO, entity, readerSees } from "./demo-facts.js";

interface Item {
  ref: string;
  type: string;
  title: string;
}
interface Answer {
  folder?: { ref: string; title: string };
  breadcrumbs: { ref: string; title: string }[];
  breadcrumbsComplete: boolean;
  children: Item[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

const KIND: Record<string, string> = { SO: "folder", IO: "asset", CO: "content_object" };

describe("browse", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });

  it("lists the top-level folders in order without a ref, with no breadcrumbs", async () => {
    const a = await mcp.call<Answer>("browse");
    expect(a.children.map((c) => [c.ref, c.type, c.title])).toEqual(
      DEMO.rootFolders.map((f) => [f.ref, "folder", f.title]),
    );
    expect(a).toMatchObject({ breadcrumbs: [], breadcrumbsComplete: true, total: DEMO.rootFolders.length });
    expect(a.folder).toBeUndefined();
    expect(a.hasMore).toBe(false);
  });

  it("shows a reader only the top-level folders they may read", async () => {
    const a = await reader.call<Answer>("browse");
    expect(a.children.map((c) => c.ref)).toEqual(
      DEMO.rootFolders.filter((f) => f.securityTag === "open").map((f) => f.ref),
    );
    const closed = DEMO.rootFolders.find((f) => f.securityTag === "closed");
    const res = await reader.raw("browse", { ref: closed?.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/permission/);
  });

  it("gives breadcrumbs from the top down to the folder, and its children", async () => {
    const folder = entity(DEMO.refs.councilMinutes1851).parentRef as string;
    const a = await mcp.call<Answer>("browse", { ref: folder });
    expect(a.folder).toEqual({ ref: folder, title: entity(folder).title });
    expect(a.breadcrumbs).toEqual(ancestorsOf(folder));
    expect(a.breadcrumbs.length).toBeGreaterThanOrEqual(2);
    expect(a.breadcrumbsComplete).toBe(true);
    expect(a.children.map((c) => [c.ref, c.type, c.title])).toEqual(
      childrenOf(folder).map((e) => [e.ref, KIND[e.type], e.title]),
    );
    const res = await mcp.raw("browse", { ref: folder });
    const path = [...ancestorsOf(folder), entity(folder)].map((c) => c.title).join("/");
    expect(textOf(res).split("\n")[0]).toBe(`/${path}: ${a.total} items in folder ${folder}`);
  });

  it("pages the largest folder to the end with a cursor, the total stable and every child once", async () => {
    const counts = new Map<string, number>();
    for (const e of DEMO.entities)
      if (e.parentRef && e.type !== "CO") counts.set(e.parentRef, (counts.get(e.parentRef) ?? 0) + 1);
    const [largest, size] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] as [string, number];
    expect(size).toBeGreaterThan(6);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const a = await mcp.call<Answer>("browse", { ref: largest, limit: 3, ...(cursor ? { cursor } : {}) });
      expect(a.total).toBe(size);
      seen.push(...a.children.map((c) => c.ref));
      cursor = a.nextCursor;
      if (!cursor) {
        expect(a.hasMore).toBe(false);
        break;
      }
    }
    expect(seen).toEqual(childrenOf(largest).map((e) => e.ref));
  });

  it("leaves hidden children out of a reader's listing and its total", async () => {
    // The confidential 1866 minutes are closed inside an open folder.
    const folder = entity(DEMO.refs.councilMinutes1866Confidential).parentRef as string;
    expect(entity(folder).securityTag).toBe("open");
    const visible = childrenOf(folder).filter(readerSees);
    expect(visible.length).toBeLessThan(childrenOf(folder).length);
    const a = await reader.call<Answer>("browse", { ref: folder, limit: 200 });
    expect(a.children.map((c) => c.ref)).toEqual(visible.map((c) => c.ref));
    expect(a.total).toBe(visible.length);
  });

  it("turns an asset ref, an unknown ref and a malformed ref into advice", async () => {
    const asset = await mcp.raw("browse", { ref: DEMO.refs.pdfAsset });
    expect(asset.isError).toBe(true);
    expect(textOf(asset)).toBe(
      `${DEMO.refs.pdfAsset} is an asset ("${entity(DEMO.refs.pdfAsset).title}"), not a folder. Assets hold files, not children: use \`get_entity\` with include files, or \`get_file\`.`,
    );
    const unknown = await mcp.raw("browse", { ref: "00000000-0000-4000-8000-000000000000" });
    expect(textOf(unknown)).toMatch(
      /^Nothing with ref 00000000-0000-4000-8000-000000000000 exists.*`search` or `browse`/,
    );
    const malformed = await mcp.raw("browse", { ref: "/Harbour Town Council" });
    expect(textOf(malformed)).toMatch(/is not a ref; refs are UUIDs/);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("browse", { ref: DEMO.refs.photographs });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "/Photographs: 3 items in folder 93951a69-2b7f-4d19-bccb-04b90e50cb4b
      - folder "Harbour and Shipping" 9f33e32b-2bf1-4a93-8c63-eb2da5e52557
      - folder "Street Scenes" 0216ef7b-0182-4406-a815-3041cf9f00f6
      - folder "People and Events" f2d0a769-61b0-466a-9c08-5f4287e13748
      All 3 shown."
    `);
  });
});
