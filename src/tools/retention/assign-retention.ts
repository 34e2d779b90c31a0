import { z } from "zod";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { ARRANGE } from "../support/hints.js";
import * as many from "../support/targets.js";
import { clip, lines } from "../support/text.js";
import {
  assetRef,
  assignmentLine,
  assignmentShape,
  assignmentsOf,
  assignmentView,
  loadAsset,
  periodText,
  policyParam,
  resolvePolicy,
} from "./params.js";

const input = z.object({ ref: assetRef.optional(), ...many.manyParams, policy: policyParam });

/** Many assets: each gets the policy unless it has it already; the policy must be assignable. */
async function planAssignments(args: z.infer<typeof input>, ctx: ToolContext) {
  const policy = await resolvePolicy(ctx, args.policy);
  if (!policy.assignable)
    throw new UserInputError(
      `Retention policy "${clip(policy.name, 100)}" (${policy.ref}) is not assignable at present; a manager can make it assignable, or choose another policy (\`list_retention_policies\`). Nothing was changed.`,
    );
  const plan: many.ManyPlan<string> = await many.planMany<string>(ctx, args, {
    expect: ["IO"],
    permission: "Update Metadata",
    async examine(e) {
      const { items } = await assignmentsOf(ctx, e.ref);
      if (items.some((a) => a.policyRef === policy.ref)) return { unchanged: "has it already" };
      return {
        change: policy.ref,
        line: `keeps ${periodText(policy)}`,
        fingerprint: fingerprint(items.map((a) => a.apiId).sort()),
      };
    },
  });
  return { plan, policy };
}

export default defineTool({
  name: "assign_retention",
  title: "Assign a retention policy",
  description:
    "Put an asset, or many (`refs`, or a `folder`'s assets), under a retention policy (by name or ref): while the assignment is unexpired the asset cannot be deleted. Answers the start and expiry dates. Assets that have the policy already are left alone; many ask for confirmation first.",
  toolset: "retention",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: z.object({
    asset: z.object({ ref: z.string(), title: z.string() }).optional(),
    assignment: assignmentShape.optional(),
    alreadyAssigned: z.boolean().optional(),
    /** Many assets: each one's outcome. */
    results: z.array(many.resultShape).optional(),
  }),
  annotations: ARRANGE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (!many.isMany(args)) return undefined;
    const { plan, policy } = await planAssignments(args, ctx);
    return many.manyConfirmPlan(
      plan,
      `Assign retention policy "${clip(policy.name, 100)}" to ${plan.changes.length} (${plan.from}); while in force they cannot be deleted`,
    );
  },
  async handler(args, ctx: ToolContext) {
    if (many.isMany(args)) {
      const { plan, policy } = await planAssignments(args, ctx);
      const run = await many.runMany(ctx, "assign_retention", plan, async (e) => {
        await ctx.api.retention.assign(e.ref, policy.ref, ctx.signal);
        return undefined;
      });
      return {
        structured: { results: run.results },
        ...many.manyAnswer(`Retention policy "${clip(policy.name, 100)}"`, plan, run),
      };
    }
    const asset = await loadAsset(ctx, args.ref as string);
    const policy = await resolvePolicy(ctx, args.policy);
    const name = `"${clip(policy.name, 100)}"`;
    const title = `"${clip(asset.title, 100)}"`;
    const existing = (await assignmentsOf(ctx, asset.ref)).items.find((a) => a.policyRef === policy.ref);
    const target = { ref: asset.ref, title: asset.title };
    if (existing) {
      return {
        structured: { asset: target, assignment: existing, alreadyAssigned: true },
        text: lines(
          `Asset ${title} ${asset.ref} already has retention policy ${name}; nothing changed.`,
          `- ${assignmentLine(existing)}`,
        ),
        audit: { targets: [target] },
      };
    }
    if (!policy.assignable) {
      throw new UserInputError(
        `Retention policy ${name} (${policy.ref}) is not assignable at present; a manager can make it assignable, or choose another policy (\`list_retention_policies\`). Nothing was changed.`,
      );
    }
    const made = assignmentView(await ctx.api.retention.assign(asset.ref, policy.ref, ctx.signal), policy);
    return {
      structured: { asset: target, assignment: made, alreadyAssigned: false },
      text: lines(
        `Assigned retention policy ${name} to asset ${title} ${asset.ref}.`,
        `- ${assignmentLine(made)}`,
        !made.expired && "Until it expires the asset cannot be deleted.",
      ),
      audit: { targets: [target] },
    };
  },
});
