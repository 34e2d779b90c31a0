import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { binRefs, exists, makeTree, settle } from "./support.js";

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("review_deletion (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const curator = useMcp({ user: "curator", flags: FLAGS, repo, era });

  async function submit(ref: string, comment = "no longer needed"): Promise<string> {
    // approve: false: the manager leaves it awaiting approval (review_deletion's subject).
    const p = await mcp.call<Preview>("delete_entity", { ref, comment, approve: false });
    const a = await mcp.call<{ job: string }>("delete_entity", {
      ref,
      comment,
      approve: false,
      confirmation: p.confirmationRequired.token,
    });
    expect(await settle(repo, a.job)).toBe("PENDING");
    return a.job;
  }

  it("delete → pending → approve → in the recycle bin → recover → back", async () => {
    const t = makeTree(repo, "Minutes 1850–1899");
    const job = await submit(t.folder.ref, "Duplicate of the bound set");

    const p = await mcp.call<Preview>("review_deletion", { job, decision: "approve" });
    expect(p.confirmationRequired.summary).toBe(
      "Approve deleting folder “Minutes 1850–1899” and everything in it (1 folder and 2 assets) to the recycle bin",
    );
    expect(p.confirmationRequired.details.join("\n")).toMatch(
      `Deletion job ${job}, submitted by manager on `,
    );
    expect(p.confirmationRequired.details.join("\n")).toMatch(
      "“Duplicate of the bound set”; 4 entities in all",
    );
    // The preview changed nothing.
    expect(await settle(repo, job)).toBe("PENDING");
    expect(await exists(repo, "structural-objects", t.folder.ref)).toBe(true);

    const res = await mcp.raw("review_deletion", {
      job,
      decision: "approve",
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      job,
      decision: "approve",
      entity: { ref: t.folder.ref, title: "Minutes 1850–1899" },
      submittedBy: "manager",
    });
    expect(textOf(res)).toMatch(/^Approved: folder “Minutes 1850–1899” .* goes to the recycle bin/);
    expect(await settle(repo, job)).toBe("COMPLETED");
    expect(await exists(repo, "structural-objects", t.folder.ref)).toBe(false);
    expect(await exists(repo, "information-objects", t.a2.ref)).toBe(false);

    const bin = await mcp.call<{ items: { ref: string; job: string; entities?: number; title?: string }[] }>(
      "recycle_bin",
      { limit: 100 },
    );
    expect(bin.items).toContainEqual(
      expect.objectContaining({ ref: t.folder.ref, job, entities: 4, title: "Minutes 1850–1899" }),
    );

    const rec = await mcp.call<{ job: string; deletion: string }>("recover_entity", { ref: t.folder.ref });
    expect(rec.deletion).toBe(job);
    expect(await settle(repo, rec.job)).toBe("COMPLETED");
    expect(await exists(repo, "structural-objects", t.folder.ref)).toBe(true);
    expect(await exists(repo, "information-objects", t.a2.ref)).toBe(true);
    expect(await binRefs(repo)).not.toContain(t.folder.ref);
  });

  it("rejects without confirmation and deletes nothing", async () => {
    const t = makeTree(repo, "Keep me");
    const job = await submit(t.a1.ref);
    const res = await mcp.raw("review_deletion", { job, decision: "reject", comment: "Still in use" });
    expect(res.isError).toBeFalsy();
    expect(textOf(res)).toMatch(`Rejected the deletion of asset “Keep me — asset 1” ${t.a1.ref}`);
    expect(textOf(res)).toMatch(/nothing was deleted\.$/);
    expect(await settle(repo, job)).toBe("CANCELLED");
    expect(await exists(repo, "information-objects", t.a1.ref)).toBe(true);
    // Decided once: a second decision is refused, saying why.
    const again = await mcp.raw("review_deletion", { job, decision: "approve" });
    expect(textOf(again)).toBe(
      `Deletion job ${job} was rejected, so it awaits no decision. Nothing was changed.`,
    );
    const unknown = await mcp.raw("review_deletion", {
      job: "11111111-2222-4333-8444-555555555555",
      decision: "reject",
    });
    expect(textOf(unknown)).toMatch(/^No deletion has job handle 11111111-2222-4333-8444-555555555555/);
  });

  it("refuses an approval when the entity changed since the preview", async () => {
    const t = makeTree(repo, "Changing folder");
    const job = await submit(t.folder.ref);
    const p = await mcp.call<Preview>("review_deletion", { job, decision: "approve" });
    repo.svc.db.prepare("UPDATE entities SET title = ? WHERE ref = ?").run("Changed title", t.folder.ref);
    const res = await mcp.raw("review_deletion", {
      job,
      decision: "approve",
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/nothing (was|has been) changed/i);
    expect(await settle(repo, job)).toBe("PENDING");
  });

  it("is hidden from a curator", async () => {
    const names = (await curator.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("review_deletion");
  });
});
