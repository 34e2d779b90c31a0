import { z } from "zod";
import type { DeletedEntity } from "../../api/lifecycle.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES } from "../define.js";
import { refParam } from "../discovery/params.js";
import { OVERWRITE } from "../support/hints.js";
import { jobOutcome, settleJob } from "../support/job-wait.js";
import { lines } from "../support/text.js";
import { binEntry, binLine, binOut, binOutcome } from "./params.js";

const input = z.object({
  ref: refParam("Ref of an entity in the recycle bin; find it with `recycle_bin`"),
});

const output = z.object(binOut);

function inBin(ctx: ToolContext, ref: string): Promise<DeletedEntity> {
  return binEntry(
    ctx,
    ref,
    "only deleted entities can be deleted for good, and `recycle_bin` lists them. Nothing was deleted.",
  );
}

export default defineTool({
  name: "final_delete",
  title: "Delete for good",
  description:
    "Permanently delete an entry of the recycle bin with everything deleted with it: metadata, files no other entity shares, identifiers, links. Cannot be undone; always asks for confirmation. Managers only.",
  toolset: "lifecycle",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const b = await inBin(ctx, args.ref);
    return {
      summary: `Delete ${binLine(b)} for good: this cannot be undone`,
      details: [
        `In the recycle bin since ${b.deletedAt ?? "?"}${b.deletedBy ? `, deleted by ${b.deletedBy}` : ""}; deletion job ${b.deletion}.`,
        "Its metadata, identifiers, links and files (those no other entity shares) are removed; its events stay as history. It can no longer be recovered.",
      ],
      targets: [
        { ref: b.ref, title: b.title, fingerprint: fingerprint(b.deletion, b.entities, b.deletedAt) },
      ],
      preview: { entities: b.entities ?? null, deletion: b.deletion },
    };
  },
  async handler(args, ctx: ToolContext) {
    const b = await inBin(ctx, args.ref);
    const job = await ctx.api.lifecycle.finalDelete({ deletions: [b.deletion] }, ctx.signal);
    const settled = await settleJob(ctx, job);
    return {
      structured: binOutcome(settled, b),
      text: lines(
        `Deleting ${binLine(b)} for good (cannot be undone): ${jobOutcome(settled, { serviceMessage: true })}`,
        `Deletion ${b.deletion}; \`job_status\` says how many entities and files were removed.`,
      ),
      audit: { targets: [{ ref: b.ref, title: b.title }], job, jobFinished: settled.finished },
    };
  },
});
