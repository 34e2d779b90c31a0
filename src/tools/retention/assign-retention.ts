import { z } from "zod";
import type { ToolContext } from "../context.js";
import { CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { clip, lines } from "../support/text.js";
import {
  assetRef,
  assignmentLine,
  assignmentShape,
  assignmentsOf,
  assignmentView,
  loadAsset,
  policyParam,
  resolvePolicy,
} from "./get-retention.js";

export default defineTool({
  name: "assign_retention",
  title: "Assign a retention policy",
  description:
    "Put an asset under a retention policy (by name or ref): while the assignment is unexpired the asset cannot be deleted. Answers the start and expiry dates. Assigning a policy the asset already has changes nothing.",
  toolset: "retention",
  requiredRoles: CURATOR_ROLES,
  inputSchema: z.object({ ref: assetRef, policy: policyParam }),
  outputSchema: z.object({
    asset: z.object({ ref: z.string(), title: z.string() }),
    assignment: assignmentShape,
    alreadyAssigned: z.boolean(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx: ToolContext) {
    const asset = await loadAsset(ctx, args.ref);
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
