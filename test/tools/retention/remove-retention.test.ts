import { beforeAll, describe, expect, it } from "vitest";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { auditLines, tempAuditLog } from "../metadata/support.js";
import {
  assignedPolicies,
  assignmentsOnWire,
  createPolicy,
  newAsset,
  newFolder,
  setAssignable,
} from "./fixtures.js";

interface Results {
  results: { ref: string; title?: string; outcome: string; detail?: string }[];
}

describe.each(ERAS)("remove_retention (%s)", (era) => {
  let seven: string;
  let other: string;
  const repo = useRepository({ seed: "none" });
  beforeAll(async () => {
    seven = await createPolicy(repo, {
      name: "Seven years",
      period: 7,
      unit: "YEARS",
      startDateField: "xip.created",
    });
    other = await createPolicy(repo, { name: "Other" });
  });
  const auditLog = tempAuditLog();
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all", "--audit-log", auditLog], repo, era });
  const readOnly = useMcp({ user: "curator", flags: ["--toolsets", "all", "--read-only"], repo, era });
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], repo, era });
  /** Assets of their own, each under the policies given. */
  const assigned = async (title: string, ...policies: string[]) => {
    const a = newAsset(repo, `${title} ${era}`, "2020-05-01T00:00:00.000Z");
    for (const policy of policies) await mcp.call("assign_retention", { ref: a.ref, policy });
    return a;
  };

  it("previews without changing anything, then removes exactly that assignment once confirmed", async () => {
    const asset = newAsset(repo, "Rate book", "2022-03-01T00:00:00.000Z");
    await mcp.call("assign_retention", { ref: asset.ref, policy: seven });
    await mcp.call("assign_retention", { ref: asset.ref, policy: other });
    const before = await assignmentsOnWire(repo, asset.ref);

    const args = { ref: asset.ref, policy: "Seven years" };
    const p = await mcp.call<Preview>("remove_retention", args);
    const plan = p.confirmationRequired;
    expect(plan.summary).toBe(`Remove retention policy "Seven years" from asset "Rate book" ${asset.ref}`);
    expect(plan.details.join("\n")).toContain("2022-03-01 → 2029-03-01, in force");
    expect(plan.details.join("\n")).toMatch(/1 other assignment\(s\) in force still protect the asset/);
    expect(plan.targets).toEqual([{ ref: asset.ref, title: "Rate book" }]);
    expect(plan.preview).toMatchObject({
      policy: "Seven years",
      policyRef: seven,
      expires: "2029-03-01T00:00:00.000Z",
    });
    expect(await assignmentsOnWire(repo, asset.ref)).toBe(before);

    const done = await mcp.raw("remove_retention", { ...args, confirmation: plan.token });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({
      asset: { ref: asset.ref, title: "Rate book" },
      removed: { policyRef: seven, policyName: "Seven years", expired: false },
      remainingInForce: 1,
    });
    expect(textOf(done)).toContain(
      `Removed retention policy "Seven years" from asset "Rate book" ${asset.ref}.`,
    );
    expect(await assignedPolicies(repo, asset.ref)).toEqual([other]);

    // The token is single-use.
    const replay = await mcp.raw("remove_retention", { ...args, confirmation: plan.token });
    expect(replay.isError).toBe(true);
    expect(await assignedPolicies(repo, asset.ref)).toEqual([other]);
  });

  it("refuses the confirmed call when the assignment changed since the preview", async () => {
    const asset = newAsset(repo, "Tithe map");
    await mcp.call("assign_retention", { ref: asset.ref, policy: other });
    const args = { ref: asset.ref, policy: other };
    const p = await mcp.call<Preview>("remove_retention", args);
    // Someone else removes and re-assigns it meanwhile: a different assignment now.
    const direct = await mcp.call<Preview>("remove_retention", args);
    await mcp.call("remove_retention", { ...args, confirmation: direct.confirmationRequired.token });
    await mcp.call("assign_retention", args);
    const stale = await mcp.raw("remove_retention", { ...args, confirmation: p.confirmationRequired.token });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/nothing/i);
    expect(await assignedPolicies(repo, asset.ref)).toEqual([other]);
  });

  it("says clearly when the asset has no such assignment, or the policy or asset is unknown", async () => {
    const asset = newAsset(repo, "Plan chest");
    await mcp.call("assign_retention", { ref: asset.ref, policy: other });
    const none = await mcp.raw("remove_retention", { ref: asset.ref, policy: seven });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toMatch(
      /Asset "Plan chest" .* has no assignment of retention policy "Seven years"; its policies are "Other".*Nothing was changed/,
    );
    const unknown = await mcp.raw("remove_retention", { ref: asset.ref, policy: "Nope" });
    expect(textOf(unknown)).toMatch(/No retention policy "Nope"/);
    const missing = await mcp.raw("remove_retention", { ref: crypto.randomUUID(), policy: other });
    expect(textOf(missing)).toMatch(/Nothing with ref .* exists/);
    expect(await assignedPolicies(repo, asset.ref)).toEqual([other]);
  });

  it("takes the policy off several assets with one preview and one confirmation, answering and auditing each", async () => {
    const a = await assigned("Rate book 1", seven);
    const b = await assigned("Rate book 2", seven, other);
    const args = { refs: [a.ref, b.ref], policy: "Seven years" };
    const p = await mcp.call<Preview>("remove_retention", args);
    const plan = p.confirmationRequired;
    expect(plan.summary).toBe(`Remove retention policy "Seven years" from 2 (2 refs)`);
    expect(plan.details).toEqual([
      `  asset “${a.title}” ${a.ref}: 2020-05-01 → 2027-05-01, in force; no other retention in force, so it becomes deletable`,
      `  asset “${b.title}” ${b.ref}: 2020-05-01 → 2027-05-01, in force; 1 other assignment(s) in force still protect it`,
    ]);
    expect(plan.targets).toEqual([
      { ref: a.ref, title: a.title },
      { ref: b.ref, title: b.title },
    ]);
    expect(await assignedPolicies(repo, a.ref)).toEqual([seven]);

    const res = await mcp.raw("remove_retention", { ...args, confirmation: plan.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res).split("\n").slice(0, 2)).toEqual([
      `Removing retention policy "Seven years" (2 refs): 2 done.`,
      "Done (2):",
    ]);
    expect((res.structuredContent as unknown as Results).results).toEqual([
      expect.objectContaining({ ref: a.ref, title: a.title, outcome: "done" }),
      expect.objectContaining({ ref: b.ref, title: b.title, outcome: "done" }),
    ]);
    expect(await assignedPolicies(repo, a.ref)).toEqual([]);
    expect(await assignedPolicies(repo, b.ref)).toEqual([other]);
    expect(auditLines(auditLog)).toContainEqual(
      expect.objectContaining({
        tool: "remove_retention",
        targets: [
          { ref: a.ref, title: a.title },
          { ref: b.ref, title: b.title },
        ],
      }),
    );
  });

  it("takes it off a folder's assets; assets without it and sub-folders are left alone, not an error", async () => {
    const box = newFolder(repo, `Rates ${era}`);
    const put = (title: string, type: "IO" | "SO" = "IO") =>
      insertEntity(repo.svc.db, { type, title, securityTag: "open", parentRef: box.ref });
    const withIt = [put("Rate 1870"), put("Rate 1871")];
    const without = put("Rate 1872");
    for (const x of withIt) await mcp.call("assign_retention", { ref: x.ref, policy: seven });
    await mcp.call("assign_retention", { ref: without.ref, policy: other });
    put("Receipts", "SO");
    const args = { folder: box.ref, policy: seven };
    const p = await mcp.call<Preview>("remove_retention", args);
    expect(p.confirmationRequired.summary).toBe(
      `Remove retention policy "Seven years" from 2 (folder “Rates ${era}”)`,
    );
    expect(p.confirmationRequired.details.slice(-2)).toEqual([
      "Already so (1, left alone):",
      `  asset “Rate 1872” ${without.ref}: has no assignment of it`,
    ]);
    expect(p.confirmationRequired.targets.map((t) => t.ref)).toEqual(withIt.map((x) => x.ref));

    const res = await mcp.raw("remove_retention", { ...args, confirmation: p.confirmationRequired.token });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res).split("\n")[0]).toBe(
      `Removing retention policy "Seven years" (folder “Rates ${era}”): 2 done, 1 already so.`,
    );
    expect(textOf(res)).toContain(`  asset “Rate 1872” ${without.ref}: has no assignment of it`);
    expect((res.structuredContent as unknown as Results).results.map((r) => r.outcome)).toEqual([
      "done",
      "done",
      "unchanged",
    ]);
    for (const x of withIt) expect(await assignedPolicies(repo, x.ref)).toEqual([]);
    expect(await assignedPolicies(repo, without.ref)).toEqual([other]);

    // Nothing left to take off: answered at once, nothing asked, nothing changed.
    const again = await mcp.raw("remove_retention", args);
    expect(again.isError, textOf(again)).toBeFalsy();
    expect(textOf(again).split("\n")[0]).toBe(
      `Removing retention policy "Seven years" (folder “Rates ${era}”): 0 done, 3 already so.`,
    );
  });

  it("refuses the whole confirmed call when one previewed assignment changed since; nothing is removed", async () => {
    const a = await assigned("Poor book 1", other);
    const b = await assigned("Poor book 2", other);
    const args = { refs: [a.ref, b.ref], policy: other };
    const p = await mcp.call<Preview>("remove_retention", args);
    // Someone takes b's assignment off and puts it back meanwhile: another assignment now.
    const one = await mcp.call<Preview>("remove_retention", { ref: b.ref, policy: other });
    await mcp.call("remove_retention", {
      ref: b.ref,
      policy: other,
      confirmation: one.confirmationRequired.token,
    });
    await mcp.call("assign_retention", { ref: b.ref, policy: other });
    const stale = await mcp.raw("remove_retention", { ...args, confirmation: p.confirmationRequired.token });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toContain(
      `“${b.title}” (${b.ref}) changed since the preview; nothing was changed.`,
    );
    expect(await assignedPolicies(repo, a.ref)).toEqual([other]);
    expect(await assignedPolicies(repo, b.ref)).toEqual([other]);
  });

  it("refuses a policy that is not assignable with the same message for one asset and many", async () => {
    const frozen = await createPolicy(repo, { name: `Frozen ${era}` });
    const a = await assigned("Vestry book", frozen);
    await setAssignable(repo, frozen, false);
    const message = `Retention policy "Frozen ${era}" is not assignable at present, and the service allows neither assigning nor removing it until a manager makes it assignable again. Nothing was changed.`;
    for (const target of [{ ref: a.ref }, { refs: [a.ref] }]) {
      const res = await mcp.raw("remove_retention", { ...target, policy: frozen });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toBe(message);
    }
    const both = await mcp.raw("remove_retention", { ref: a.ref, refs: [a.ref], policy: frozen });
    expect(textOf(both)).toBe("Give exactly one of `ref`, `refs` or `folder`. Nothing was changed.");
    expect(await assignedPolicies(repo, a.ref)).toEqual([frozen]);
  });

  it("is hidden in read-only mode and from a reader; a call from either is refused, nothing changed", async () => {
    const a = await assigned("Churchwardens' accounts", other);
    for (const [who, why] of [
      [readOnly, /is not offered to you: read-only mode is on/],
      [reader, /is not offered to you: it needs the curator role/],
    ] as const) {
      expect((await who.client.listTools()).tools.map((t) => t.name)).not.toContain("remove_retention");
      const res = await who.raw("remove_retention", { refs: [a.ref], policy: other });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(why);
    }
    expect(await assignedPolicies(repo, a.ref)).toEqual([other]);
  });
});
