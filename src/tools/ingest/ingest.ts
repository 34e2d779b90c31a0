import { z } from "zod";
import { planPackage } from "../../local/packaging.js";
import { LocalPathError, resolveLocalPath } from "../../local/roots.js";
import type { ToolContext } from "../context.js";
import { CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { ADDITIVE } from "../support/hints.js";
import { createdLines, ingestOutcome, namedOut } from "../support/job-results.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { byteMeter } from "../support/meter.js";
import { clip, formatBytes, lines, plural } from "../support/text.js";

/**
 * Takes a local file, folder or ready package into a folder of the repository. Only paths inside the
 * folders the person allowed (PRESERVATION_INGEST_ROOTS) are read; a folder or file is zipped on the fly
 * and streamed to the service, which answers with a job handle (its progress token) as soon as it has the
 * package; the ingest itself runs in the service, followed with `job_status`.
 */

const PROGRESS_EVERY = 4 * 1024 * 1024;

const input = z.object({
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe("Local file, folder or ready package (.zip, OPEX/XIP folder), inside the allowed folders"),
  folder: refParam("Folder to ingest into; find it with `search` or `browse`"),
  title: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe("Title of the new folder or asset (default: its name)"),
  description: z.string().max(4000).optional().describe("Description of the new folder or asset"),
});

const output = z.object({
  ...jobFields,
  folder: z.object({ ref: z.string(), title: z.string() }),
  source: z.string(),
  kind: z.enum(["package", "folder", "file"]),
  package: z.string(),
  files: z.number(),
  bytes: z.number(),
  contentBytes: z.number(),
  skipped: z.array(z.string()).optional(),
  /** What a finished ingest created (it finished within the wait). */
  created: z.array(namedOut).optional(),
  moreCreated: z.number().optional(),
  folders: z.array(namedOut).optional(),
});

export default defineTool({
  name: "ingest",
  title: "Ingest local files",
  description:
    "Ingest a local file, folder (becomes a new folder) or ready package (.zip, OPEX/XIP folder) into a repository folder. Only paths inside the allowed local folders. Uploads, waits briefly and names what it created; a longer ingest returns a job handle to follow with `job_status`.",
  toolset: "ingest",
  requiredRoles: CURATOR_ROLES,
  requires: "local-ingest",
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: ADDITIVE,
  async handler(args, ctx: ToolContext) {
    const roots = ctx.config.ingestRoots;
    const local = await resolveLocalPath(roots, args.path);
    const folder = await loadEntity(ctx, args.folder, {
      expect: ["SO"],
      wrongKind: () => "Ingest goes into a folder: pass a folder ref (find one with `browse`).",
    });
    const plan = await planPackage(
      local,
      {
        roots,
        ...(args.title !== undefined ? { title: args.title } : {}),
        ...(args.description !== undefined ? { description: args.description } : {}),
      },
      ctx.signal,
    );
    const total = plan.size;
    const { meter, bytes: sent } = byteMeter(
      PROGRESS_EVERY,
      (n) => void ctx.progress(n, total, `uploaded ${formatBytes(n)} of ${formatBytes(total)}`),
    );
    const source = plan.open();
    let sourceFailure: unknown;
    source.on("error", (err) => {
      sourceFailure = err;
      meter.destroy(err);
    });
    const body = source.pipe(meter);
    let job: string;
    try {
      job = await ctx.api.ingest.uploadPackage(folder.ref, body, {
        filename: plan.filename,
        length: total,
        signal: ctx.signal,
      });
    } catch (err) {
      source.destroy();
      // A local file refused when its turn came (swapped for a link after the walk): say that, not "upload failed".
      if (sourceFailure instanceof LocalPathError) throw sourceFailure;
      if (ctx.signal.aborted) {
        throw new UserInputError(
          `The upload was cancelled after ${formatBytes(sent())}; the service keeps nothing of a cut-off upload. Nothing was ingested.`,
        );
      }
      throw err;
    }
    await ctx.progress(total, total, "uploaded; the service is ingesting");
    const what =
      plan.kind === "package"
        ? `package ${plan.filename}`
        : plan.kind === "folder"
          ? plan.readyFolder
            ? `ready package folder ${local.path} (${plural(plan.files, "file")}, ${formatBytes(plan.contentBytes)})`
            : `folder ${local.path} (${plural(plan.files, "file")}, ${formatBytes(plan.contentBytes)})`
          : `file ${local.path} (${plan.contentBytes} bytes)`;
    const settled = await settleJob(ctx, job);
    const result = settled.finished ? await ingestOutcome(ctx, job) : {};
    return {
      structured: {
        ...jobState(settled),
        folder: { ref: folder.ref, title: folder.title },
        source: local.path,
        kind: plan.kind,
        package: plan.filename,
        files: plan.files,
        bytes: total,
        contentBytes: plan.contentBytes,
        ...(plan.skipped.length ? { skipped: plan.skipped.slice(0, 50) } : {}),
        ...result,
      },
      text: lines(
        `Uploaded ${what} as ${plan.filename} (${total} bytes) into folder "${clip(folder.title, 80)}" (${folder.ref}).`,
        `The ingest: ${jobOutcome(settled)}`,
        ...createdLines(result),
        plan.skipped.length > 0 &&
          `Left out: ${plan.skipped.slice(0, 5).join(", ")}${plan.skipped.length > 5 ? `, and ${plan.skipped.length - 5} more` : ""}.`,
      ),
      audit: { targets: [{ ref: folder.ref, title: folder.title }], job, jobFinished: settled.finished },
    };
  },
});
