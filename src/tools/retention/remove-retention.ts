import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import type { RetentionPolicy } from "../../api/retention.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { OVERWRITE } from "../support/hints.js";
import * as many from "../support/targets.js";
import { clip, lines } from "../support/text.js";
import {
  type AssignmentView,
  assetRef,
  assignmentLine,
  assignmentShape,
  assignmentSpan,
  assignmentsOf,
  loadAsset,
  policyParam,
  resolvePolicy,
} from "./params.js";

interface Found {
  asset: Entity;
  policy: RetentionPolicy;
  assignment: AssignmentView;
  /** The asset's other assignments still in force after this one goes. */
  othersInForce: AssignmentView[];
}

/** The service refuses to remove an assignment of a policy that is not assignable (409): said before asking. */
function notAssignable(policy: RetentionPolicy): UserInputError {
  return new UserInputError(
    `Retention policy "${clip(policy.name, 100)}" is not assignable at present, and the service allows neither assigning nor removing it until a manager makes it assignable again. Nothing was changed.`,
  );
}

/** The asset's assignment of `policy` (undefined when it has none) and all its assignments. */
async function assignmentOn(ctx: ToolContext, asset: Entity, policy: RetentionPolicy) {
  const { items } = await assignmentsOf(ctx, asset.ref);
  const assignment = items.find((a) => a.policyRef === policy.ref);
  const found: Found | undefined = assignment && {
    asset,
    policy,
    assignment,
    othersInForce: items.filter((a) => a.apiId !== assignment.apiId && !a.expired),
  };
  return { found, items };
}

/** The assignment the arguments name; UserInputError (nothing changed) when there is none or it cannot go. */
async function findAssignment(ctx: ToolContext, ref: string, policyName: string): Promise<Found> {
  const asset = await loadAsset(ctx, ref);
  const policy = await resolvePolicy(ctx, policyName);
  const { found, items } = await assignmentOn(ctx, asset, policy);
  if (!found) {
    const has = items.map((a) => `"${clip(a.policyName || a.policyRef, 60)}"`);
    throw new UserInputError(
      `Asset "${clip(asset.title, 100)}" ${asset.ref} has no assignment of retention policy "${clip(policy.name, 100)}"; ${
        has.length ? `its policies are ${has.join(", ")}` : "it has no retention assignments"
      } (see \`get_retention\`). Nothing was changed.`,
    );
  }
  if (!policy.assignable) throw notAssignable(policy);
  return found;
}

/** The assignment as the plan saw it: its policy, dates and state. */
function assignmentFingerprint(f: Found): string {
  const a = f.assignment;
  return fingerprint(a.apiId, a.policyRef, a.startDate, a.expires, a.expired, a.period);
}

/** One asset's line of many: its dates, and whether anything still protects it once this goes. */
function removalLine(f: Found): string {
  const after = f.assignment.expired
    ? ""
    : f.othersInForce.length === 0
      ? "; no other retention in force, so it becomes deletable"
      : `; ${f.othersInForce.length} other assignment(s) in force still protect it`;
  return `${assignmentSpan(f.assignment)}${after}`;
}

const input = z.object({ ref: assetRef.optional(), ...many.manyParams, policy: policyParam });

/**
 * Many assets: each one's assignment of the policy goes; assets without one are left alone (a folder mixes
 * them). The policy must be assignable, as for one asset, or the service would refuse every removal.
 */
async function planRemovals(args: z.infer<typeof input>, ctx: ToolContext) {
  const policy = await resolvePolicy(ctx, args.policy);
  if (!policy.assignable) throw notAssignable(policy);
  const plan = await many.planMany<AssignmentView>(ctx, args, {
    expect: ["IO"],
    permission: "Update Metadata",
    async examine(asset) {
      const { found } = await assignmentOn(ctx, asset, policy);
      if (!found) return { unchanged: "has no assignment of it" };
      return {
        change: found.assignment,
        line: removalLine(found),
        fingerprint: assignmentFingerprint(found),
      };
    },
  });
  return { plan, policy };
}

export default defineTool({
  name: "remove_retention",
  title: "Remove a retention assignment",
  description:
    "Take a retention policy (by name or ref) off an asset, or many (`refs`, or a `folder`'s assets). Shows the assignments' dates and asks the person to confirm first; assets without the policy are left alone. Once no unexpired assignment remains an asset can be deleted.",
  toolset: "retention",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: z.object({
    asset: z.object({ ref: z.string(), title: z.string() }).optional(),
    removed: assignmentShape.optional(),
    remainingInForce: z.number().int().optional(),
    /** Many assets: each one's outcome. */
    results: z.array(many.resultShape).optional(),
  }),
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (many.isMany(args)) {
      const { plan, policy } = await planRemovals(args, ctx);
      return many.manyConfirmPlan(
        plan,
        `Remove retention policy "${clip(policy.name, 100)}" from ${plan.changes.length} (${plan.from})`,
      );
    }
    const f = await findAssignment(ctx, args.ref as string, args.policy);
    const a = f.assignment;
    return {
      summary: `Remove retention policy "${clip(f.policy.name, 100)}" from asset "${clip(f.asset.title, 100)}" ${f.asset.ref}`,
      details: [
        `Assignment: ${assignmentLine(a)}`,
        a.expired
          ? "It has already expired, so it no longer protects the asset."
          : f.othersInForce.length === 0
            ? "It is in force: after its removal no retention keeps this asset from being deleted."
            : `It is in force; ${f.othersInForce.length} other assignment(s) in force still protect the asset.`,
      ],
      targets: [{ ref: f.asset.ref, title: f.asset.title, fingerprint: assignmentFingerprint(f) }],
      preview: {
        policy: f.policy.name,
        policyRef: f.policy.ref,
        apiId: a.apiId,
        ...(a.startDate ? { startDate: a.startDate } : {}),
        ...(a.expires ? { expires: a.expires } : {}),
        expired: a.expired,
      },
    };
  },
  async handler(args, ctx: ToolContext) {
    if (many.isMany(args)) {
      const { plan, policy } = await planRemovals(args, ctx);
      const run = await many.runMany(ctx, "remove_retention", plan, async (asset, assignment) => {
        await ctx.api.retention.removeAssignment(asset.ref, assignment.apiId, ctx.signal);
        return undefined;
      });
      return {
        structured: { results: run.results },
        ...many.manyAnswer(`Removing retention policy "${clip(policy.name, 100)}"`, plan, run),
      };
    }
    const f = await findAssignment(ctx, args.ref as string, args.policy);
    await ctx.api.retention.removeAssignment(f.asset.ref, f.assignment.apiId, ctx.signal);
    const target = { ref: f.asset.ref, title: f.asset.title };
    return {
      structured: { asset: target, removed: f.assignment, remainingInForce: f.othersInForce.length },
      text: lines(
        `Removed retention policy "${clip(f.policy.name, 100)}" from asset "${clip(f.asset.title, 100)}" ${f.asset.ref}.`,
        `- was: ${assignmentLine(f.assignment)}`,
        f.othersInForce.length === 0
          ? "No retention assignment in force remains on the asset."
          : `${f.othersInForce.length} other assignment(s) in force remain (see \`get_retention\`).`,
      ),
      audit: { targets: [target] },
    };
  },
});
