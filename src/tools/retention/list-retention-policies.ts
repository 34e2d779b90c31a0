import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { mapLimit } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { lines, plural } from "../support/text.js";
import { policyLine, policyShape, policyView } from "./params.js";

/** Policies read in full per call; a repository rarely has more. */
const MAX_POLICIES = 50;

export default defineTool({
  name: "list_retention_policies",
  title: "List retention policies",
  description:
    "The repository's retention policies: name, ref, description, how long they keep an asset (period and from when), what happens at expiry, what they restrict, whether they can be assigned. Assign one with `assign_retention`.",
  toolset: "retention",
  inputSchema: z.object({}),
  outputSchema: z.object({
    policies: z.array(policyShape),
    total: z.number().int(),
    omitted: z.number().int().optional(),
  }),
  annotations: READ_ONLY,
  async handler(_args, ctx: ToolContext) {
    const page = await ctx.api.retention.allPolicies(MAX_POLICIES, ctx.signal);
    const policies = (await mapLimit(page.items, 4, (p) => ctx.api.retention.policy(p.ref, ctx.signal))).map(
      policyView,
    );
    const omitted = page.total - policies.length;
    const text = lines(
      page.total === 0
        ? "No retention policies (a manager creates them with `manage_retention_policy`)."
        : `${plural(page.total, "retention policy", "retention policies")}:`,
      ...policies.map((p) => `- ${policyLine(p)} (security tag ${p.securityTag})`),
      omitted > 0 && `… and ${omitted} more (not shown)`,
    );
    return {
      structured: { policies, total: page.total, ...(omitted > 0 ? { omitted } : {}) },
      text,
    };
  },
});
