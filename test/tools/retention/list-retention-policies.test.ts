import { beforeAll, describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
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
  const mcp = useMcp({ seed: "none", user: "reader", flags: ["--toolsets", "all"] });

  it("says there are none", async () => {
    const res = await mcp.raw("list_retention_policies", {});
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({ policies: [], total: 0 });
    expect(textOf(res)).toMatch(/No retention policies/);
  });
});

describe.each(ERAS)("list_retention_policies (%s)", (era) => {
  let seven: string;
  let forever: string;
  const repo = useRepository({ seed: "none" });
  beforeAll(async () => {
    seven = await createPolicy(repo, {
      name: "Financial records",
      period: 7,
      unit: "YEARS",
      startDateField: "xip.created",
      expiryAction: "DELETE",
    });
    forever = await createPolicy(repo, { name: "Permanent", assignable: false });
    // A reader may list policies: the tool is read-only and open to every role.
  });
  const mcp = useMcp({ user: "reader", flags: ["--toolsets", "all"], repo, era });

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
