import { beforeAll, describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { assignedPolicies, assignmentsOnWire, createPolicy, newAsset } from "./fixtures.js";

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
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all"], repo, era });

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
});
