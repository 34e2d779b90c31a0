import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { ADDITIVE } from "../support/hints.js";
import { packageLine, packageOut, savePackage } from "../support/job-results.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { spoken } from "../support/kinds.js";
import { clip, lines } from "../support/text.js";

/**
 * Exports a folder or asset (an OPEX package, written by the service). A small export is ready within the
 * brief wait every job-starting tool makes (support/job-wait.ts), and its package is saved into the download
 * folder at once, verified; a larger one answers with the job handle, and `job_status` saves it when ready.
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
  ...jobFields,
  entity: z.object({ ref: z.string(), type: z.enum(["folder", "asset"]), title: z.string() }),
  downloadDir: z.string(),
  /** Saved when the export was ready within the wait. */
  package: packageOut.optional(),
});

export default defineTool({
  name: "export",
  title: "Export a folder or asset",
  description:
    "Export a folder or asset (with everything below it) as an OPEX package. A small export is saved into the download folder at once, verified; a larger one returns a job handle, and `job_status` saves it when ready.",
  toolset: "export",
  requires: "local-downloads",
  localOnly: true,
  // It may save the package: a whole file, exempt from the per-call deadline like every download.
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: ADDITIVE,
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
    const settled = await settleJob(ctx, job);
    const ready = settled.state === "COMPLETED" || settled.state === "FINISHED_MIXED_OUTCOME";
    // The export is made either way: a package that could not be saved is said, and `job_status` retries.
    const saving = ready
      ? await savePackage(ctx, job).then(
          (saved) => ({ saved }),
          (err: unknown) => ({ failure: (err as Error).message }),
        )
      : undefined;
    const pkg = saving && "saved" in saving ? saving.saved : undefined;
    return {
      structured: {
        ...jobState(settled),
        entity: {
          ref: e.ref,
          type: type === "SO" ? ("folder" as const) : ("asset" as const),
          title: e.title,
        },
        downloadDir: dir,
        ...(pkg ? { package: pkg } : {}),
      },
      text: lines(
        `Export of ${spoken(type)} "${clip(e.title, 80)}" (${e.ref}): ${jobOutcome(settled)}`,
        pkg
          ? packageLine(pkg)
          : !settled.finished && `When it is complete, \`job_status\` saves the package in ${dir}.`,
      ),
      ...(pkg
        ? {
            links: [
              {
                uri: pathToFileURL(pkg.path).href,
                name: `export-${job}.zip`,
                mimeType: "application/zip",
                description: `The exported package, ${pkg.bytes} bytes`,
              },
            ],
          }
        : {}),
      audit: { targets: [{ ref: e.ref, title: e.title }], job, jobFinished: settled.finished },
    };
  },
});
