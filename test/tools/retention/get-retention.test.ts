import { beforeAll, describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { createPolicy, newAsset, newFolder } from "./fixtures.js";

interface Answer {
  asset: { ref: string; title: string };
  assignments: {
    apiId: string;
    policyRef: string;
    policyName: string;
    period: string;
    startDate?: string;
    expires?: string;
    expired: boolean;
    expiryAction?: string;
  }[];
  total: number;
}

describe.each(ERAS)("get_retention (%s)", (era) => {
  let seven: string;
  let short: string;
  const repo = useRepository({ seed: "none" });
  beforeAll(async () => {
    seven = await createPolicy(repo, {
      name: "Seven years",
      period: 7,
      unit: "YEARS",
      startDateField: "xip.created",
    });
    short = await createPolicy(repo, {
      name: "Two days",
      period: 2,
      unit: "DAYS",
      startDateField: "xip.created",
    });
  });
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all"], repo, era });

  it("shows an asset's assignments with policy names, start and expiry dates, expired or not", async () => {
    const asset = newAsset(repo, "Ledger 1901", "2020-01-15T09:00:00.000Z");
    await mcp.call("assign_retention", { ref: asset.ref, policy: "Seven years" });
    await mcp.call("assign_retention", { ref: asset.ref, policy: short });
    const res = await mcp.raw("get_retention", { ref: asset.ref });
    const a = res.structuredContent as unknown as Answer;
    expect(a.asset).toEqual({ ref: asset.ref, title: "Ledger 1901" });
    expect(a.total).toBe(2);
    expect(a.assignments).toEqual([
      expect.objectContaining({
        policyRef: seven,
        policyName: "Seven years",
        period: "7 years from the asset's creation",
        startDate: "2020-01-15T09:00:00.000Z",
        expires: "2027-01-15T09:00:00.000Z",
        expired: false,
        expiryAction: "REVIEW",
      }),
      expect.objectContaining({
        policyRef: short,
        policyName: "Two days",
        expires: "2020-01-17T09:00:00.000Z",
        expired: true,
      }),
    ]);
    const text = textOf(res);
    expect(text).toContain(`Asset "Ledger 1901" ${asset.ref}: 2 retention assignments`);
    expect(text).toContain(
      `"Seven years" (policy ${seven}): 7 years from the asset's creation, 2020-01-15 → 2027-01-15, in force`,
    );
    expect(text).toContain("2020-01-15 → 2020-01-17, expired");
    expect(text).toContain(a.assignments[0]?.apiId);
  });

  it("says when an asset has none", async () => {
    const asset = newAsset(repo, "Bare asset");
    const res = await mcp.raw("get_retention", { ref: asset.ref });
    expect(res.structuredContent).toMatchObject({ total: 0, assignments: [] });
    expect(textOf(res)).toContain("no retention assignments");
  });

  it("refuses a folder, saying retention is on assets, and an unknown ref clearly", async () => {
    const folder = newFolder(repo, "A folder");
    const res = await mcp.raw("get_retention", { ref: folder.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      /is a folder \("A folder"\), not an asset\. Retention is assigned to assets only/,
    );
    const missing = await mcp.raw("get_retention", { ref: crypto.randomUUID() });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/Nothing with ref .* exists/);
    const bad = await mcp.raw("get_retention", { ref: "Ledger 1901" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/is not a ref/);
  });
});
