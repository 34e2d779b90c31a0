import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { READ_ONLY } from "../support/hints.js";
import { clip, lines, plural } from "../support/text.js";
import { assetRef, assignmentLine, assignmentShape, assignmentsOf, loadAsset } from "./params.js";

export default defineTool({
  name: "get_retention",
  title: "Get an asset's retention",
  description:
    "The retention policies assigned to an asset: policy name, period, start and expiry dates, whether expired, what happens at expiry. An unexpired assignment keeps the asset from being deleted.",
  toolset: "retention",
  inputSchema: z.object({ ref: assetRef }),
  outputSchema: z.object({
    asset: z.object({ ref: z.string(), title: z.string() }),
    assignments: z.array(assignmentShape),
    total: z.number().int(),
  }),
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const asset = await loadAsset(ctx, args.ref);
    const { items, total } = await assignmentsOf(ctx, asset.ref);
    const text = lines(
      `Asset "${clip(asset.title, 100)}" ${asset.ref}: ${total === 0 ? "no retention assignments" : plural(total, "retention assignment")}`,
      ...items.map((a) => `- ${assignmentLine(a)}`),
      total > items.length && `… and ${total - items.length} more`,
    );
    return { structured: { asset: { ref: asset.ref, title: asset.title }, assignments: items, total }, text };
  },
});
