import { beforeAll, describe, expect, it } from "vitest";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { assignedPolicies, createPolicy, newAsset, newFolder } from "./fixtures.js";

describe.each(ERAS)("assign_retention (%s)", (era) => {
  let seven: string;
  let locked: string;
  const repo = useRepository({ seed: "none" });
  beforeAll(async () => {
    seven = await createPolicy(repo, {
      name: "Seven years",
      period: 7,
      unit: "YEARS",
      startDateField: "xip.created",
    });
    locked = await createPolicy(repo, { name: "Locked", assignable: false });
  });
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all"], repo, era });
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], repo, era });

  it("assigns by name: the assignment really appears, with its dates in the answer", async () => {
    const asset = newAsset(repo, "Minute book", "2021-06-01T00:00:00.000Z");
    const res = await mcp.raw("assign_retention", { ref: asset.ref, policy: "seven YEARS" });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      asset: { ref: asset.ref, title: "Minute book" },
      alreadyAssigned: false,
      assignment: {
        policyRef: seven,
        policyName: "Seven years",
        startDate: "2021-06-01T00:00:00.000Z",
        expires: "2028-06-01T00:00:00.000Z",
        expired: false,
      },
    });
    const text = textOf(res);
    expect(text).toContain(`Assigned retention policy "Seven years" to asset "Minute book" ${asset.ref}.`);
    expect(text).toContain("2021-06-01 → 2028-06-01, in force");
    expect(text).toContain("cannot be deleted");
    expect(await assignedPolicies(repo, asset.ref)).toEqual([seven]);
  });

  it("assigns by ref, and a second call changes nothing", async () => {
    const asset = newAsset(repo, "Letter book");
    await mcp.call("assign_retention", { ref: asset.ref, policy: seven });
    const again = await mcp.raw("assign_retention", { ref: asset.ref, policy: seven });
    expect(again.isError).toBeFalsy();
    expect(again.structuredContent).toMatchObject({ alreadyAssigned: true });
    expect(textOf(again)).toMatch(/already has retention policy "Seven years"; nothing changed/);
    expect(await assignedPolicies(repo, asset.ref)).toEqual([seven]);
  });

  it("refuses an unknown policy naming the ones there are, and a policy that is not assignable", async () => {
    const asset = newAsset(repo, "Day book");
    const unknown = await mcp.raw("assign_retention", { ref: asset.ref, policy: "Forever and a day" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(
      /No retention policy "Forever and a day"\. The policies are: .*"Seven years"/,
    );
    const unknownRef = await mcp.raw("assign_retention", { ref: asset.ref, policy: crypto.randomUUID() });
    expect(unknownRef.isError).toBe(true);
    expect(textOf(unknownRef)).toMatch(/No retention policy/);
    const notAssignable = await mcp.raw("assign_retention", { ref: asset.ref, policy: locked });
    expect(notAssignable.isError).toBe(true);
    expect(textOf(notAssignable)).toMatch(/"Locked" .* is not assignable.*Nothing was changed/);
    expect(await assignedPolicies(repo, asset.ref)).toEqual([]);
  });

  it("refuses an unknown asset and a folder clearly", async () => {
    const missing = await mcp.raw("assign_retention", { ref: crypto.randomUUID(), policy: seven });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/Nothing with ref .* exists/);
    const folder = newFolder(repo, "Series");
    const wrong = await mcp.raw("assign_retention", { ref: folder.ref, policy: seven });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong)).toMatch(/Retention is assigned to assets only/);
  });

  it("assigns to a folder's assets with one preview and one confirmation; its folders are not selected, assets that have it are left alone", async () => {
    const box = newFolder(repo, `Personnel files ${era}`);
    const put = (title: string, type: "IO" | "SO" = "IO") =>
      insertEntity(repo.svc.db, { type, title, securityTag: "open", parentRef: box.ref });
    const files = ["File A. Brown", "File C. Dunn"].map((t) => put(t));
    const had = put("File E. Finch");
    await mcp.call("assign_retention", { ref: had.ref, policy: "Seven years" });
    put("Leavers", "SO"); // a folder: not selected, a policy is for assets
    const args = { folder: box.ref, policy: "Seven years" };
    const p = await mcp.call<{ confirmationRequired: { summary: string; details: string[]; token: string } }>(
      "assign_retention",
      args,
    );
    expect(p.confirmationRequired.summary).toBe(
      `Assign retention policy "Seven years" to 2 (folder “Personnel files ${era}”); while in force they cannot be deleted`,
    );
    expect(p.confirmationRequired.details).toEqual([
      ...files.map((f) => `  asset “${f.title}” ${f.ref}: keeps 7 years from the asset's creation`),
      "Already so (1, left alone):",
      `  asset “File E. Finch” ${had.ref}: has it already`,
    ]);
    for (const f of files) expect(await assignedPolicies(repo, f.ref)).toEqual([]);
    const res = await mcp.raw("assign_retention", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res).split("\n")[0]).toBe(
      `Retention policy "Seven years" (folder “Personnel files ${era}”): 2 done, 1 already so.`,
    );
    for (const f of [...files, had]) expect(await assignedPolicies(repo, f.ref)).toEqual([seven]);
  });

  it("is not listed for a reader, who still sees the read-only retention tools", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["list_retention_policies", "get_retention"]));
    expect(names).not.toContain("assign_retention");
    expect(names).not.toContain("remove_retention");
  });
});
