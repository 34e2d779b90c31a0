import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import type { RetentionPolicy } from "../../api/retention.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { OVERWRITE } from "../support/hints.js";
import { clip, lines } from "../support/text.js";
import {
  type AssignmentView,
  assetRef,
  assignmentLine,
  assignmentShape,
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

/** The assignment the arguments name; UserInputError (nothing changed) when there is none or it cannot go. */
async function findAssignment(ctx: ToolContext, ref: string, policyName: string): Promise<Found> {
  const asset = await loadAsset(ctx, ref);
  const policy = await resolvePolicy(ctx, policyName);
  const { items } = await assignmentsOf(ctx, asset.ref);
  const assignment = items.find((a) => a.policyRef === policy.ref);
  const title = `"${clip(asset.title, 100)}"`;
  if (!assignment) {
    const has = items.map((a) => `"${clip(a.policyName || a.policyRef, 60)}"`);
    throw new UserInputError(
      `Asset ${title} ${asset.ref} has no assignment of retention policy "${clip(policy.name, 100)}"; ${
        has.length ? `its policies are ${has.join(", ")}` : "it has no retention assignments"
      } (see \`get_retention\`). Nothing was changed.`,
    );
  }
  if (!policy.assignable) {
    throw new UserInputError(
      `Retention policy "${clip(policy.name, 100)}" is not assignable at present, and the service allows neither assigning nor removing it until a manager makes it assignable again. Nothing was changed.`,
    );
  }
  const othersInForce = items.filter((a) => a.apiId !== assignment.apiId && !a.expired);
  return { asset, policy, assignment, othersInForce };
}

/** The assignment as the plan saw it: its policy, dates and state. */
function assignmentFingerprint(f: Found): string {
  const a = f.assignment;
  return fingerprint(a.apiId, a.policyRef, a.startDate, a.expires, a.expired, a.period);
}

const input = z.object({ ref: assetRef, policy: policyParam });

export default defineTool({
  name: "remove_retention",
  title: "Remove a retention assignment",
  description:
    "Take a retention policy (by name or ref) off an asset. Shows the assignment's dates and asks the person to confirm first; once no unexpired assignment remains the asset can be deleted.",
  toolset: "retention",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: z.object({
    asset: z.object({ ref: z.string(), title: z.string() }),
    removed: assignmentShape,
    remainingInForce: z.number().int(),
  }),
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const f = await findAssignment(ctx, args.ref, args.policy);
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
    const f = await findAssignment(ctx, args.ref, args.policy);
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
