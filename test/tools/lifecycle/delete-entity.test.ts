import { describe, expect, it } from "vitest";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { findPolicy } from "../../../repository/store/retention/read.js";
import { assignPolicy, createPolicy } from "../../../repository/store/retention/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { binRefs, exists, makeTree, settle } from "./support.js";

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("delete_entity (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const curator = useMcp({ user: "curator", flags: FLAGS, repo, era });
  const reader = useMcp({ user: "reader", flags: FLAGS, repo, era });

  it("previews a folder's deletion with its contents and changes nothing", async () => {
    const t = makeTree(repo, "Estate papers");
    const p = await mcp.call<Preview>("delete_entity", { ref: t.folder.ref });
    const c = p.confirmationRequired;
    expect(c.summary).toBe(
      "Delete folder “Estate papers” and everything in it (1 folder and 2 assets) to the recycle bin (submitted and approved by you: one confirmation for both)",
    );
    expect(c.details.join("\n")).toMatch(/In it: .*“Estate papers — sub”/);
    expect(c.details.join("\n")).toMatch(/Retention: none on the 2 assets checked/);
    expect(c.targets).toEqual([{ ref: t.folder.ref, title: "Estate papers" }]);
    expect(c.preview).toMatchObject({ folders: 1, assets: 2, complete: true });
    // Nothing changed: still there, nothing pending, not in the bin.
    expect(await exists(repo, "structural-objects", t.folder.ref)).toBe(true);
    expect(await binRefs(repo)).not.toContain(t.folder.ref);
    const pending = await mcp.call<{ items: { ref: string }[] }>("recycle_bin", {
      pending: true,
      limit: 100,
    });
    expect(pending.items.map((i) => i.ref)).not.toContain(t.folder.ref);
  });

  it("words what a folder holds as moves and re-tags do: no count of nothing", async () => {
    const t = makeTree(repo, "Loose letters");
    const p = await mcp.call<Preview>("delete_entity", { ref: t.sub.ref });
    expect(p.confirmationRequired.summary).toBe(
      "Delete folder “Loose letters — sub” and everything in it (1 asset) to the recycle bin (submitted and approved by you: one confirmation for both)",
    );
    expect(p.confirmationRequired.preview).toMatchObject({ folders: 0, assets: 1, complete: true });
  });

  it("a manager's one confirmation submits and approves: the asset is in the recycle bin when it answers", async () => {
    const t = makeTree(repo, "Once only");
    const p = await mcp.call<Preview>("delete_entity", { ref: t.a1.ref });
    expect(p.confirmationRequired.summary).toBe(
      "Delete asset “Once only — asset 1” to the recycle bin (submitted and approved by you: one confirmation for both)",
    );
    const res = await mcp.raw("delete_entity", { ref: t.a1.ref, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    const a = res.structuredContent as {
      job: string;
      awaitingApproval: boolean;
      approval: { state: string };
    };
    expect(a).toMatchObject({ awaitingApproval: false, approval: { state: "COMPLETED" } });
    expect(textOf(res)).toMatch(`submitted as job ${a.job} and approved by you in the same confirmation`);
    // No review_deletion, no second preview: it is in the bin already.
    expect(await binRefs(repo)).toContain(t.a1.ref);
  });

  it("with approve: false, submits the confirmed deletion, which waits for a manager's approval", async () => {
    const t = makeTree(repo, "Duplicate volume");
    const p = await mcp.call<Preview>("delete_entity", {
      ref: t.a1.ref,
      comment: "Duplicate of the 1871 volume",
      approve: false,
    });
    expect(p.confirmationRequired.summary).toBe(
      "Delete asset “Duplicate volume — asset 1” to the recycle bin, after a manager approves",
    );
    const res = await mcp.raw("delete_entity", {
      ref: t.a1.ref,
      comment: "Duplicate of the 1871 volume",
      approve: false,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as {
      job: string;
      entity: { ref: string; title: string };
      awaitingApproval: boolean;
    };
    expect(a).toMatchObject({
      entity: { ref: t.a1.ref, title: "Duplicate volume — asset 1", type: "asset" },
      awaitingApproval: true,
      path: "/Duplicate volume",
    });
    expect(textOf(res)).toMatch(`submitted as job ${a.job}`);
    expect(textOf(res)).toMatch(/waits for a manager's approval \(`review_deletion`/);
    expect(await settle(repo, a.job)).toBe("PENDING");
    expect(await exists(repo, "information-objects", t.a1.ref)).toBe(true);
    const pending = await mcp.call<{
      items: { ref: string; job: string; comment?: string; title?: string }[];
    }>("recycle_bin", { pending: true, limit: 100 });
    expect(pending.items).toContainEqual(
      expect.objectContaining({
        ref: t.a1.ref,
        job: a.job,
        title: "Duplicate volume — asset 1",
        comment: "Duplicate of the 1871 volume",
      }),
    );
    // A token is single-use.
    const again = await mcp.raw("delete_entity", {
      ref: t.a1.ref,
      comment: "Duplicate of the 1871 volume",
      approve: false,
      confirmation: p.confirmationRequired.token,
    });
    expect(again.isError).toBe(true);
  });

  it("refuses a deletion that retention blocks, naming the asset and the policy, before anything is sent", async () => {
    const t = makeTree(repo, "Statutory records");
    const db = repo.svc.db;
    const actor = { username: "manager", date: new Date().toISOString() };
    const policyRef = createPolicy(
      db,
      {
        name: `Keep 10 years ${era}`,
        description: "Statutory",
        securityTag: "open",
        startDateField: null,
        period: 10,
        periodUnit: "YEAR",
        expiryAction: null,
        expiryActionParameters: null,
        restriction: null,
        assignable: true,
      },
      actor,
    );
    assignPolicy(
      db,
      t.a2.ref,
      findPolicy(db, policyRef) as NonNullable<ReturnType<typeof findPolicy>>,
      null,
      actor,
    );
    const res = await mcp.raw("delete_entity", { ref: t.folder.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      `asset “Statutory records — asset 2” ${t.a2.ref} is under retention policy “Keep 10 years ${era}” ${policyRef}`,
    );
    expect(textOf(res)).toMatch(/Nothing was deleted\.$/);
    expect(await exists(repo, "structural-objects", t.folder.ref)).toBe(true);
  });

  it("passes on the service's own refusal when retention sits beyond the assets the preview checks", async () => {
    const db = repo.svc.db;
    const folder = insertEntity(db, { type: "SO", title: `Large series ${era}`, securityTag: "open" });
    let last = "";
    for (let i = 1; i <= 52; i++)
      last = insertEntity(db, {
        type: "IO",
        title: `Item ${i}`,
        securityTag: "open",
        parentRef: folder.ref,
      }).ref;
    const actor = { username: "manager", date: new Date().toISOString() };
    const policyRef = createPolicy(
      db,
      {
        name: `Permanent ${era}`,
        description: "Never expires",
        securityTag: "open",
        startDateField: null,
        period: null,
        periodUnit: null,
        expiryAction: null,
        expiryActionParameters: null,
        restriction: null,
        assignable: true,
      },
      actor,
    );
    assignPolicy(
      db,
      last,
      findPolicy(db, policyRef) as NonNullable<ReturnType<typeof findPolicy>>,
      null,
      actor,
    );
    const p = await mcp.call<Preview>("delete_entity", { ref: folder.ref });
    expect(p.confirmationRequired.details.join("\n")).toMatch(
      "Retention: none on the 50 assets checked (the first 50; the service checks the rest).",
    );
    const res = await mcp.raw("delete_entity", {
      ref: folder.ref,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      /^The service refused this as it stands \(HTTP 409\)\. The service said: ".*retention.*Nothing was changed\.$/,
    );
    expect(textOf(res)).toMatch(`Permanent ${era}`);
    expect(await exists(repo, "structural-objects", folder.ref)).toBe(true);
  });

  it("explains a content object and a missing ref", async () => {
    const t = makeTree(repo, "Odd requests");
    const co = insertEntity(repo.svc.db, {
      type: "CO",
      title: "scan.tif",
      securityTag: "open",
      parentRef: t.a1.ref,
    });
    const coRes = await mcp.raw("delete_entity", { ref: co.ref });
    expect(textOf(coRes)).toMatch(`delete the asset ${t.a1.ref} instead. Nothing was deleted.`);
    const missing = await mcp.raw("delete_entity", { ref: "11111111-2222-4333-8444-555555555555" });
    expect(textOf(missing)).toMatch(/^Nothing with ref 11111111-2222-4333-8444-555555555555 exists/);
  });

  it("is not listed for a reader, and the Delete tools are not listed for a curator", async () => {
    const readerNames = (await reader.client.listTools()).tools.map((t) => t.name);
    for (const n of ["delete_entity", "review_deletion", "final_delete", "recover_entity", "replace_content"])
      expect(readerNames).not.toContain(n);
    // This service gives Delete (deleting, recovering) to managers only: a curator sees none of those tools.
    const names = (await curator.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("recycle_bin");
    for (const n of ["delete_entity", "recover_entity", "review_deletion", "final_delete"]) {
      expect(names).not.toContain(n);
    }
  });
});
