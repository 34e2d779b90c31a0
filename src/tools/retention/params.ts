import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { type RetentionAssignment, type RetentionPolicy, retentionExpiry } from "../../api/retention.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity, mapLimit } from "../support/entities.js";
import { clip, plural } from "../support/text.js";

/**
 * What the retention tools share: their parameters, how a policy and an assignment read (structured and in
 * a line), finding the asset and the policy a person names, and an asset's assignments with their policies.
 */

/** Assignments shown per asset; an asset rarely has more than a few. */
const MAX_ASSIGNMENTS = 50;

export const assetRef = refParam("Asset ref; find it with `search` or `browse`");
export const policyParam = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .describe("Policy name or ref; see `list_retention_policies`");

/** "7 years from the asset's creation", "indefinitely". */
export function periodText(p: Pick<RetentionPolicy, "period" | "periodUnit" | "startDateField">): string {
  if (p.period === undefined) return "indefinitely";
  const unit = (p.periodUnit ?? "YEARS").toLowerCase().replace(/s$/, "");
  const from =
    p.startDateField === "xip.created"
      ? "the asset's creation"
      : p.startDateField
        ? p.startDateField
        : "the assignment";
  return `${plural(p.period, unit)} from ${from}`;
}

export const assignmentShape = z.object({
  apiId: z.string(),
  policyRef: z.string(),
  policyName: z.string(),
  period: z.string(),
  startDate: z.string().optional(),
  expires: z.string().optional(),
  expired: z.boolean(),
  expiryAction: z.string().optional(),
});
export type AssignmentView = z.infer<typeof assignmentShape>;

export function assignmentView(a: RetentionAssignment, p: RetentionPolicy | undefined): AssignmentView {
  const expires = p ? retentionExpiry(a.startDate, p) : undefined;
  return {
    apiId: a.apiId,
    policyRef: a.policyRef,
    policyName: p?.name ?? "",
    period: p ? periodText(p) : "unknown",
    ...(a.startDate ? { startDate: a.startDate } : {}),
    ...(expires ? { expires } : {}),
    expired: a.expired,
    ...(p?.expiryAction ? { expiryAction: p.expiryAction } : {}),
  };
}

/** When it runs and whether it holds: `2020-01-01 → 2027-01-01, in force`. */
export function assignmentSpan(a: AssignmentView): string {
  const span = `${a.startDate ? a.startDate.slice(0, 10) : "start not reported"} → ${
    a.expires ? a.expires.slice(0, 10) : a.period === "indefinitely" ? "no end" : "end not known"
  }`;
  return `${span}, ${a.expired ? "expired" : "in force"}`;
}

/** One line: `"Financial records" (policy …): 7 years from …, 2020-01-01 → 2027-01-01, in force; assignment …`. */
export function assignmentLine(a: AssignmentView): string {
  const name = a.policyName ? `"${clip(a.policyName, 80)}"` : "a policy";
  return `${name} (policy ${a.policyRef}): ${a.period}, ${assignmentSpan(a)}${a.expiryAction ? `; at expiry ${a.expiryAction}` : ""}; assignment ${a.apiId}`;
}

/** The asset `ref` names; a folder or content object is refused with what to do instead. */
export function loadAsset(ctx: ToolContext, ref: string): Promise<Entity> {
  return loadEntity(ctx, ref, {
    expect: ["IO"],
    wrongKind: (e) =>
      e.type === "SO"
        ? "Retention is assigned to assets only; `browse` the folder for its assets."
        : `Retention is assigned to assets; use its asset ${e.parentRef ?? ""}.`.replace(" .", "."),
  });
}

/** The policy a person names (name or ref); UserInputError listing the policies there are when none matches. */
export async function resolvePolicy(ctx: ToolContext, nameOrRef: string): Promise<RetentionPolicy> {
  const { policy, known } = await ctx.api.retention.findPolicy(nameOrRef, ctx.signal);
  if (policy) return policy;
  const names = known.slice(0, 20).map((p) => `"${clip(p.name, 60)}"`);
  throw new UserInputError(
    known.length === 0
      ? `No retention policy "${clip(nameOrRef, 80)}": the repository has no retention policies (a manager creates them with \`manage_retention_policy\`).`
      : `No retention policy "${clip(nameOrRef, 80)}". The policies are: ${names.join(", ")}${known.length > 20 ? ` and ${known.length - 20} more` : ""}; see \`list_retention_policies\`.`,
  );
}

/** An asset's assignments with their policies read (once per policy). */
export async function assignmentsOf(
  ctx: ToolContext,
  assetRef: string,
): Promise<{ items: AssignmentView[]; total: number }> {
  const page = await ctx.api.retention.assignments(assetRef, { max: MAX_ASSIGNMENTS, signal: ctx.signal });
  const policyRefs = [...new Set(page.items.map((a) => a.policyRef))];
  const policies = new Map<string, RetentionPolicy>();
  await mapLimit(policyRefs, 4, async (ref) => {
    try {
      policies.set(ref, await ctx.api.retention.policy(ref, ctx.signal));
    } catch {
      // a policy that cannot be read still leaves the assignment worth showing
    }
  });
  return {
    items: page.items.map((a) => assignmentView(a, policies.get(a.policyRef))),
    total: page.total,
  };
}

export const policyShape = z.object({
  ref: z.string(),
  name: z.string(),
  description: z.string().optional(),
  period: z.string(),
  expiryAction: z.string().optional(),
  restriction: z.string().optional(),
  assignable: z.boolean(),
  securityTag: z.string(),
});

export function policyView(p: RetentionPolicy): z.infer<typeof policyShape> {
  return {
    ref: p.ref,
    name: p.name,
    ...(p.description ? { description: p.description } : {}),
    period: periodText(p),
    ...(p.expiryAction ? { expiryAction: p.expiryAction } : {}),
    ...(p.restriction ? { restriction: p.restriction } : {}),
    assignable: p.assignable,
    securityTag: p.securityTag,
  };
}

/** `"Name" ref: keeps 7 years from …; at expiry REVIEW; restricts DELETE. Description` */
export function policyLine(p: z.infer<typeof policyShape>): string {
  return [
    `"${clip(p.name, 100)}"${p.ref ? ` ${p.ref}` : ""}: keeps ${p.period}`,
    p.expiryAction && `; at expiry ${p.expiryAction}`,
    p.restriction && `; restricts ${p.restriction}`,
    p.assignable ? "" : "; not assignable",
    p.description && `. ${clip(p.description, 200)}`,
  ]
    .filter(Boolean)
    .join("");
}
