import { z } from "zod";
import type { ToolContext } from "../context.js";
import { CURATOR_ROLES, defineTool } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { ADDITIVE } from "../support/hints.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { clip, lines } from "../support/text.js";
import { bytes, localFile, localPath, uploadStream } from "./params.js";

const input = z.object({
  ref: refParam("Asset to add the access copy to; find it with `search` or `browse`"),
  path: localPath,
  name: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .optional()
    .describe('Name of the representation (default "Access")'),
});

const output = z.object({
  ...jobFields,
  asset: z.object({ ref: z.string(), title: z.string() }),
  representation: z.string(),
  file: z.object({ filename: z.string(), size: z.number().int(), sha256: z.string() }),
});

export default defineTool({
  name: "add_representation",
  title: "Add an access representation",
  description:
    "Add an access copy (a new Access representation holding one file) to an asset from a local file in the allowed ingest folders; the preservation files are untouched. Returns the job.",
  toolset: "lifecycle",
  requiredRoles: CURATOR_ROLES,
  requires: "local-ingest",
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: ADDITIVE,
  async handler(args, ctx: ToolContext) {
    const asset = await loadEntity(ctx, args.ref, {
      expect: ["IO"],
      wrongKind: () => "Representations belong to assets; give an asset ref. Nothing was changed.",
    });
    const local = await localFile(ctx, args.path);
    const name = args.name ?? "Access";
    const job = await ctx.api.lifecycle
      .addAccessRepresentation(asset.ref, {
        body: uploadStream(ctx, local),
        size: local.size,
        filename: local.filename,
        name,
        fixity: { algorithm: "SHA-256", value: local.sha256 },
        signal: ctx.signal,
      })
      .finally(() => local.close());
    const settled = await settleJob(ctx, job);
    return {
      structured: {
        ...jobState(settled),
        asset: { ref: asset.ref, title: asset.title },
        representation: name,
        file: { filename: local.filename, size: local.size, sha256: local.sha256 },
      },
      text: lines(
        `Adding access representation “${clip(name, 120)}” to asset “${clip(asset.title, 120)}” ${asset.ref} from ${local.filename} (${bytes(local.size)}, SHA-256 ${local.sha256}): ${jobOutcome(settled)}`,
      ),
      audit: { targets: [{ ref: asset.ref, title: asset.title }], job, jobFinished: settled.finished },
    };
  },
});
