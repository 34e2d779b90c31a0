import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { deleteToBin, makeTree } from "./support.js";

const FLAGS = ["--toolsets", "all"];

interface Bin {
  pending: boolean;
  items: {
    ref: string;
    type?: string;
    title?: string;
    job: string;
    entities?: number;
    deletedBy?: string;
    deletedAt?: string;
  }[];
  total: number;
  hasMore: boolean;
  nextCursor?: string;
}

describe.each(ERAS)("recycle_bin (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });

  it("says when the bin is empty, then lists deletions newest first with paging", async () => {
    const empty = await mcp.raw("recycle_bin", {});
    expect(textOf(empty)).toBe("The recycle bin is empty.");
    const a = makeTree(repo, "First deleted");
    const b = makeTree(repo, "Second deleted");
    const jobA = await deleteToBin(mcp, repo, a.folder.ref);
    const jobB = await deleteToBin(mcp, repo, b.a1.ref);
    const page1 = await mcp.raw("recycle_bin", { limit: 1 });
    const p1 = page1.structuredContent as unknown as Bin;
    expect(p1).toMatchObject({ pending: false, total: 2, hasMore: true });
    expect(p1.items).toEqual([
      expect.objectContaining({
        ref: b.a1.ref,
        type: "asset",
        title: "Second deleted — asset 1",
        job: jobB,
        entities: 1,
        deletedBy: "manager",
      }),
    ]);
    expect(textOf(page1)).toMatch(`- asset “Second deleted — asset 1” ${b.a1.ref}; deleted `);
    expect(textOf(page1)).toMatch(`job ${jobB}`);
    const p2 = await mcp.call<Bin>("recycle_bin", { limit: 1, cursor: p1.nextCursor });
    expect(p2.items).toEqual([
      expect.objectContaining({ ref: a.folder.ref, type: "folder", job: jobA, entities: 4 }),
    ]);
    expect(p2.hasMore).toBe(false);
    const text = textOf(await mcp.raw("recycle_bin", {}));
    expect(text).toMatch(`folder “First deleted” ${a.folder.ref} and the 3 entities deleted with it`);
  });

  it("lists deletions awaiting approval with pending: true", async () => {
    const t = makeTree(repo, "Awaiting approval");
    const p = await mcp.call<{ confirmationRequired: { token: string } }>("delete_entity", {
      ref: t.a2.ref,
      comment: "gone",
      approve: false,
    });
    const { job } = await mcp.call<{ job: string }>("delete_entity", {
      ref: t.a2.ref,
      comment: "gone",
      approve: false,
      confirmation: p.confirmationRequired.token,
    });
    const res = await mcp.raw("recycle_bin", { pending: true });
    const bin = res.structuredContent as unknown as Bin;
    expect(bin.pending).toBe(true);
    expect(bin.items).toContainEqual(
      expect.objectContaining({ ref: t.a2.ref, job, title: "Awaiting approval — asset 2", type: "asset" }),
    );
    expect(textOf(res)).toMatch(`asset “Awaiting approval — asset 2” ${t.a2.ref}; job ${job}; by manager`);
    expect(textOf(res)).toMatch(/decide with `review_deletion`/);
  });
});
