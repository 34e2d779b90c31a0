import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { spoken } from "../support/kinds.js";
import { clip, lines } from "../support/text.js";

/**
 * Starts an export of a folder or asset (an OPEX package, written by the service) and returns the job
 * handle at once. `job_status` downloads the package into the download folder once it is ready, verified.
 * Nothing in the repository changes (the service records the export as an action).
 */

const input = z.object({
  ref: refParam("Folder or asset to export; find it with `search` or `browse`"),
  content: z.boolean().default(true).describe("Include the files (false: manifests and metadata only)"),
  metadata: z
    .enum(["Metadata", "NoMetadata", "MetadataWithEvents"])
    .default("Metadata")
    .describe("Descriptive metadata, none, or with the event history"),
  generations: z
    .enum(["LatestActive", "AllActive", "All"])
    .default("LatestActive")
    .describe("Which generations of each file"),
  parentHierarchy: z.boolean().default(false).describe("Enclose it in the folders above it"),
});

const output = z.object({
  job: z.string(),
  entity: z.object({ ref: z.string(), type: z.enum(["folder", "asset"]), title: z.string() }),
  downloadDir: z.string(),
});

export default defineTool({
  name: "export",
  title: "Export a folder or asset",
  description:
    "Export a folder or asset (with everything below it) as an OPEX package. Returns a job handle at once; `job_status` downloads the package into the download folder when ready, verified.",
  toolset: "export",
  requires: "local-downloads",
  localOnly: true,
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx: ToolContext) {
    const e = await loadEntity(ctx, args.ref, {
      expect: ["SO", "IO"],
      wrongKind: (x) =>
        x.parentRef ? `Export its asset instead (${x.parentRef}).` : "Export its asset or folder instead.",
    });
    const type = e.type === "SO" ? "SO" : "IO";
    const job = await ctx.api.export.start(
      e.ref,
      type,
      {
        content: args.content,
        metadata: args.metadata,
        generations: args.generations,
        parentHierarchy: args.parentHierarchy,
      },
      ctx.signal,
    );
    const dir = ctx.config.downloadDir ?? "";
    return {
      structured: {
        job,
        entity: {
          ref: e.ref,
          type: type === "SO" ? ("folder" as const) : ("asset" as const),
          title: e.title,
        },
        downloadDir: dir,
      },
      text: lines(
        `Export of ${spoken(type)} "${clip(e.title, 80)}" (${e.ref}) started as job ${job}; follow it with \`job_status\`.`,
        `When it is complete, \`job_status\` saves the package in ${dir}.`,
      ),
      audit: { targets: [{ ref: e.ref, title: e.title }], job },
    };
  },
});
