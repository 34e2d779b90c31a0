import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_RETENTION_POLICIES } from "../../../repository/seed/retention.js";
import type { RunningRepository } from "../../../repository/server.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { confirmed, type Preview } from "../../helpers/preview.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "../admin/support.js";
import { newAsset } from "./fixtures.js";

interface Answer {
  action: string;
  policy: { ref: string; name: string; period: string; expiryAction?: string; assignable: boolean };
  previous?: { period: string };
}

/** The policy as the service has it now (its XML), or undefined when it is gone. */
async function policyOnWire(repo: RunningRepository, ref: string): Promise<string | undefined> {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  const res = await get(`/api/entity/retention-policies/${ref}`);
  return res.status === 404 ? undefined : res.text();
}

describe.each(ERAS)("manage_retention_policy (%s)", (era) => {
  const auditLog = join(tempDir("retention-audit-"), "audit.jsonl");

  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: [...FLAGS, "--audit-log", auditLog], era, repo });

  /** Calls with the arguments, checks the preview changed nothing, then confirms. */
  const confirm = (args: Record<string, unknown>, check?: (p: Preview) => Promise<void> | void) =>
    confirmed<Answer>(mcp, "manage_retention_policy", args, check);

  it("creates a policy after a preview that changes nothing; it is listed and assignable at once, and audited", async () => {
    const name = `Grant records — 10 years (${era})`;
    const args = {
      action: "create",
      name,
      description: "Grant applications and awards",
      period: 10,
      from: "creation",
      expiryAction: "REVIEW",
    };
    const { answer, text } = await confirm(args, async (p) => {
      expect(p.confirmationRequired.summary).toBe(
        `Create retention policy "${name}": keeps 10 years from the asset's creation; at expiry REVIEW; restricts DELETE. Grant applications and awards`,
      );
      const listed = await mcp.call<{ policies: { name: string }[] }>("list_retention_policies");
      expect(listed.policies.map((x) => x.name)).not.toContain(name);
    });
    expect(answer.policy).toMatchObject({
      name,
      period: "10 years from the asset's creation",
      expiryAction: "REVIEW",
      assignable: true,
    });
    expect(text).toContain(`Created retention policy "${name}" ${answer.policy.ref}: keeps 10 years`);
    expect(await policyOnWire(repo, answer.policy.ref)).toContain("<retention:Period>10</retention:Period>");

    const asset = newAsset(repo, `Grant file ${era}`);
    const assigned = await mcp.raw("assign_retention", { ref: asset.ref, policy: name });
    expect(assigned.isError, textOf(assigned)).toBeFalsy();

    const logged = readFileSync(auditLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(logged).toContainEqual(
      expect.objectContaining({
        tool: "manage_retention_policy",
        outcome: "done",
        targets: [{ ref: answer.policy.ref, title: name }],
      }),
    );
  });

  it("changes only the fields given, showing before → after; 0 makes a policy keep indefinitely", async () => {
    const name = `Minutes draft (${era})`;
    const made = await confirm({ action: "create", name, period: 5, unit: "MONTHS" });
    const { answer, preview } = await confirm({
      action: "update",
      policy: name,
      period: 0,
      assignable: false,
    });
    expect(preview.confirmationRequired.details).toEqual([
      "  period: 5 months from the assignment → indefinitely",
      "  assignable: yes → no",
      "Assignments made already keep their start dates; their expiry follows the new period.",
    ]);
    expect(answer.previous?.period).toBe("5 months from the assignment");
    expect(answer.policy).toMatchObject({
      ref: made.answer.policy.ref,
      name,
      period: "indefinitely",
      assignable: false,
    });
    const wire = await policyOnWire(repo, made.answer.policy.ref);
    expect(wire).not.toContain("Period>");
    expect(wire).toContain("<retention:Assignable>false</retention:Assignable>");
  });

  it("refuses a stale confirmation: the policy changed after the preview", async () => {
    const name = `Stale (${era})`;
    const made = await confirm({ action: "create", name, period: 3 });
    const p = await mcp.call<Preview>("manage_retention_policy", { action: "delete", policy: name });
    await confirm({ action: "update", policy: name, description: "changed meanwhile" });
    const res = await mcp.raw("manage_retention_policy", {
      action: "delete",
      policy: name,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toContain("changed since the preview; nothing was changed");
    expect(await policyOnWire(repo, made.answer.policy.ref)).toBeDefined();
  });

  it("deletes an unused policy; the service's refusal of a used one reaches the model, nothing deleted", async () => {
    const name = `Short lived (${era})`;
    const made = await confirm({ action: "create", name, period: 1 });
    const { text } = await confirm({ action: "delete", policy: made.answer.policy.ref });
    expect(text).toBe(`Deleted retention policy "${name}" ${made.answer.policy.ref}.`);
    expect(await policyOnWire(repo, made.answer.policy.ref)).toBeUndefined();

    const used = `Used (${era})`;
    const kept = await confirm({ action: "create", name: used, period: 2 });
    const asset = newAsset(repo, `Kept file ${era}`);
    await mcp.call("assign_retention", { ref: asset.ref, policy: used });
    const p = await mcp.call<Preview>("manage_retention_policy", { action: "delete", policy: used });
    const res = await mcp.raw("manage_retention_policy", {
      action: "delete",
      policy: used,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/still used by 1 assignment/);
    expect(await policyOnWire(repo, kept.answer.policy.ref)).toBeDefined();
  });

  it("says what to do with bad input, changing nothing", async () => {
    const existing = DEMO_RETENTION_POLICIES[0]?.name ?? "";
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ action: "create", name: existing }, /exists already .*action update/],
      [{ action: "create" }, /create needs a `name`/],
      [
        { action: "update", policy: "No such policy" },
        /No retention policy "No such policy"\. The policies are: "Board minutes — permanent"/,
      ],
      [{ action: "update", policy: existing }, /already says that; nothing to change/],
      [{ action: "delete", policy: existing, period: 3 }, /delete takes only `policy`/],
      [{ action: "create", name: "Unit only", unit: "DAYS" }, /A unit needs a period/],
    ];
    for (const [args, message] of cases) {
      const res = await mcp.raw("manage_retention_policy", args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(res)).toMatch(message);
    }
  });

  it("is neither listed for nor run by a curator", async () => {
    await expectHiddenFromCurator(repo, era, "manage_retention_policy", { action: "create", name: "X" });
  });
});
