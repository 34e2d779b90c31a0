import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { ERAS, type McpHarness, startMcp, textOf } from "../../helpers/mcp.js";
import { startTestRepository } from "../../helpers/repository.js";
import { createPolicy } from "./fixtures.js";

interface Answer {
  policies: {
    ref: string;
    name: string;
    description?: string;
    period: string;
    expiryAction?: string;
    restriction?: string;
    assignable: boolean;
  }[];
  total: number;
}

describe("list_retention_policies on an empty repository", () => {
  it("says there are none", async () => {
    const repo = await startTestRepository({ seed: "none" });
    const mcp = await startMcp({ user: "reader", flags: ["--toolsets", "all"], repo });
    try {
      const res = await mcp.raw("list_retention_policies", {});
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toEqual({ policies: [], total: 0 });
      expect(textOf(res)).toMatch(/No retention policies/);
    } finally {
      await mcp.close();
      await repo.close();
    }
  });
});

describe.each(ERAS)("list_retention_policies (%s)", (era) => {
  let repo: RunningRepository;
  let mcp: McpHarness;
  let seven: string;
  let forever: string;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    seven = await createPolicy(repo, {
      name: "Financial records",
      period: 7,
      unit: "YEARS",
      startDateField: "xip.created",
      expiryAction: "DELETE",
    });
    forever = await createPolicy(repo, { name: "Permanent", assignable: false });
    // A reader may list policies: the tool is read-only and open to every role.
    mcp = await startMcp({ user: "reader", flags: ["--toolsets", "all"], repo, era });
  });
  afterAll(async () => {
    await mcp?.close();
    await repo?.close();
  });

  it("lists every policy with period, expiry action and assignability, in text too", async () => {
    const res = await mcp.raw("list_retention_policies", {});
    const a = res.structuredContent as unknown as Answer;
    expect(a.total).toBe(2);
    expect(a.policies).toEqual([
      {
        ref: seven,
        name: "Financial records",
        description: "About Financial records",
        period: "7 years from the asset's creation",
        expiryAction: "DELETE",
        restriction: "DELETE",
        assignable: true,
        securityTag: "open",
      },
      {
        ref: forever,
        name: "Permanent",
        description: "About Permanent",
        period: "indefinitely",
        expiryAction: "REVIEW",
        restriction: "DELETE",
        assignable: false,
        securityTag: "open",
      },
    ]);
    const text = textOf(res);
    expect(text).toContain(
      `"Financial records" ${seven}: keeps 7 years from the asset's creation; at expiry DELETE`,
    );
    expect(text).toContain(`"Permanent" ${forever}: keeps indefinitely`);
    expect(text).toContain("not assignable");
  });

  it("refuses unknown arguments", async () => {
    const res = await mcp.raw("list_retention_policies", { name: "x" });
    expect(res.isError).toBe(true);
  });
});
