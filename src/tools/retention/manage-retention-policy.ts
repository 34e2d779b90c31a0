import { z } from "zod";
import type { PeriodUnit, PolicyInput, RetentionPolicy } from "../../api/retention.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { clip, lines } from "../support/text.js";
import { absentTarget, changesPlan } from "../support/writes.js";
import { periodText, policyLine, policyParam, policyShape, policyView, resolvePolicy } from "./params.js";

/**
 * Retention policies made, changed and deleted from the assistant (managers and administrators, as the
 * service allows). Every action shows what it will do and is confirmed first; the service records a
 * retention event for each, and the audit log names the policy.
 */

const input = z.object({
  action: z.enum(["create", "update", "delete"]).describe("delete: only a policy no asset is assigned to"),
  policy: policyParam.optional().describe("update, delete: policy name or ref (`list_retention_policies`)"),
  name: z.string().trim().min(1).max(255).optional().describe("create: its name; update: a new name"),
  description: z.string().trim().max(2000).optional().describe("What it is for"),
  period: z
    .number()
    .int()
    .min(0)
    .max(100_000)
    .optional()
    .describe("How long it keeps an asset, in `unit`s; 0 = indefinitely (create's default)"),
  unit: z.enum(["DAYS", "WEEKS", "MONTHS", "YEARS"]).optional().describe("Default YEARS"),
  from: z
    .enum(["creation", "assignment"])
    .optional()
    .describe("Count the period from the asset's creation or from the assignment (create's default)"),
  expiryAction: z.string().trim().min(1).max(100).optional().describe("At expiry, e.g. REVIEW or DELETE"),
  securityTag: z.string().trim().min(1).max(200).optional().describe("Who may see the policy; default open"),
  assignable: z.boolean().optional().describe("Whether it may be assigned now; default true"),
});
type Args = z.infer<typeof input>;

const output = z.object({
  action: z.string(),
  policy: policyShape,
  /** update: what it said before. */
  previous: policyShape.optional(),
});

const FIELD_ARGS = [
  "name",
  "description",
  "period",
  "unit",
  "from",
  "expiryAction",
  "securityTag",
  "assignable",
];

function inputOf(p: RetentionPolicy): PolicyInput {
  const { ref: _ref, ...rest } = p;
  return rest;
}

/** The policy the arguments describe, on top of `base` (an update) or of the defaults (a create). */
function merged(args: Args, base: PolicyInput | undefined): PolicyInput {
  const b: PolicyInput = base ?? {
    name: "",
    description: "",
    securityTag: "open",
    restriction: "DELETE",
    assignable: true,
  };
  const out: PolicyInput = { ...b };
  if (args.name !== undefined) out.name = args.name;
  if (args.description !== undefined) out.description = args.description;
  if (args.securityTag !== undefined) out.securityTag = args.securityTag;
  if (args.expiryAction !== undefined) out.expiryAction = args.expiryAction;
  if (args.assignable !== undefined) out.assignable = args.assignable;
  if (args.period !== undefined) {
    if (args.period === 0) {
      delete out.period;
      delete out.periodUnit;
    } else out.period = args.period;
  }
  if (out.period !== undefined) out.periodUnit = (args.unit ?? b.periodUnit ?? "YEARS") as PeriodUnit;
  else if (args.unit !== undefined)
    throw new UserInputError("A unit needs a period: give `period` (0 = indefinitely). Nothing was changed.");
  if (args.from === "creation") out.startDateField = "xip.created";
  else if (args.from === "assignment") delete out.startDateField;
  return out;
}

type Examined =
  | { kind: "create"; after: PolicyInput }
  | { kind: "update"; before: RetentionPolicy; after: PolicyInput; changes: string[] }
  | { kind: "delete"; before: RetentionPolicy };

/** A policy not yet made, as the list shows one (no ref). */
const shown = (p: PolicyInput) => policyLine(policyView({ ...p, ref: "" }));

/** Field by field, what an update changes: `period: 7 years from … → 10 years from …`. */
function changesOf(before: PolicyInput, after: PolicyInput): string[] {
  const said = (p: PolicyInput): Record<string, string> => ({
    name: `"${clip(p.name, 100)}"`,
    description: `"${clip(p.description, 200)}"`,
    period: periodText(p),
    "at expiry": p.expiryAction ?? "nothing",
    "security tag": p.securityTag,
    assignable: p.assignable ? "yes" : "no",
  });
  const b = said(before);
  const a = said(after);
  return Object.keys(a)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k}: ${b[k]} → ${a[k]}`);
}

async function examine(args: Args, ctx: ToolContext): Promise<Examined> {
  if (args.action === "create") {
    if (args.policy)
      throw new UserInputError("create takes `name`, not `policy` (which names an existing policy).");
    if (!args.name) throw new UserInputError("create needs a `name`. Nothing was changed.");
    const { known } = await ctx.api.retention.findPolicy(args.name, ctx.signal);
    const same = known.find((p) => p.name.toLowerCase() === args.name?.toLowerCase());
    if (same)
      throw new UserInputError(
        `A retention policy named "${clip(same.name, 100)}" exists already (${same.ref}); change it with action update. Nothing was changed.`,
      );
    return { kind: "create", after: merged(args, undefined) };
  }
  if (!args.policy)
    throw new UserInputError(
      `${args.action} needs \`policy\`: its name or ref (\`list_retention_policies\`). Nothing was changed.`,
    );
  const before = await resolvePolicy(ctx, args.policy);
  if (args.action === "delete") {
    const extra = FIELD_ARGS.filter((k) => args[k as keyof Args] !== undefined);
    if (extra.length > 0)
      throw new UserInputError(`delete takes only \`policy\`; leave out ${extra.join(", ")}.`);
    return { kind: "delete", before };
  }
  const after = merged(args, inputOf(before));
  const changes = changesOf(inputOf(before), after);
  if (changes.length === 0)
    throw new UserInputError(
      `Retention policy "${clip(before.name, 100)}" already says that; nothing to change. Give the fields to change (name, description, period, unit, from, expiryAction, securityTag, assignable).`,
    );
  return { kind: "update", before, after, changes };
}

function policyFingerprint(p: RetentionPolicy): string {
  return fingerprint(inputOf(p));
}

export default defineTool({
  name: "manage_retention_policy",
  title: "Create, change or delete a retention policy",
  description:
    "Create a retention policy (name, period and from when it counts, action at expiry), change one (only the fields given), or delete one no asset is assigned to. Asks for confirmation first.",
  toolset: "retention",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  // A deleted policy is gone; a change overwrites what the policy said.
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const e = await examine(args, ctx);
    if (e.kind === "create")
      return {
        summary: `Create retention policy ${shown(e.after)}`,
        details: [
          "Nothing is assigned to it yet: assign it with `assign_retention`.",
          "While an assignment is in force, the asset cannot be deleted.",
        ],
        targets: [absentTarget("policy", e.after.name)],
      };
    const target = { ref: e.before.ref, title: e.before.name, fingerprint: policyFingerprint(e.before) };
    if (e.kind === "update")
      return changesPlan(
        `Change retention policy "${clip(e.before.name, 100)}" ${e.before.ref}`,
        e.changes,
        "Assignments made already keep their start dates; their expiry follows the new period.",
        target,
      );
    return {
      summary: `Delete retention policy ${policyLine(policyView(e.before))}`,
      details: [
        "The service refuses while any asset is assigned to it (remove those with `remove_retention` first).",
      ],
      targets: [target],
    };
  },
  async handler(args, ctx: ToolContext) {
    const e = await examine(args, ctx);
    const api = ctx.api.retention;
    if (e.kind === "create") {
      const made = await api.createPolicy(e.after, ctx.signal);
      // Read back: the service's answer to a create may carry only the ref.
      const policy = policyView(await api.policy(made.ref, ctx.signal));
      return {
        structured: { action: args.action, policy },
        text: lines(`Created retention policy ${policyLine(policy)}`, "Assign it with `assign_retention`."),
        audit: { targets: [{ ref: policy.ref, title: policy.name }] },
      };
    }
    if (e.kind === "update") {
      await api.updatePolicy(e.before.ref, e.after, ctx.signal);
      const policy = policyView(await api.policy(e.before.ref, ctx.signal));
      return {
        structured: { action: args.action, policy, previous: policyView(e.before) },
        text: lines(
          `Changed retention policy "${clip(e.before.name, 100)}" ${e.before.ref}:`,
          ...e.changes.map((c) => `  ${c}`),
        ),
        audit: { targets: [{ ref: policy.ref, title: policy.name }] },
      };
    }
    await api.deletePolicy(e.before.ref, ctx.signal);
    const policy = policyView(e.before);
    return {
      structured: { action: args.action, policy },
      text: `Deleted retention policy "${clip(e.before.name, 100)}" ${e.before.ref}.`,
      audit: { targets: [{ ref: policy.ref, title: policy.name }] },
    };
  },
});
