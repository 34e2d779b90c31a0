import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { itemOut, toItem } from "../support/kinds.js";
import { lines } from "../support/text.js";
import { counts, inPlace, placeOf } from "../support/writes.js";
import { deletionPlace, deletionSample, examineDeletion, MAX_RETENTION_CHECKS, whatGoes } from "./params.js";

const input = z.object({
  ref: refParam("Asset or folder to delete; find it with `search` or `browse`"),
  comment: z.string().trim().max(1000).optional().describe("Why it goes; recorded with the deletion"),
  approve: z
    .boolean()
    .default(true)
    .describe(
      "When you may approve deletions (managers): the one confirmation also approves it (default true); false leaves it awaiting approval",
    ),
});

const output = z.object({
  job: z.string(),
  entity: itemOut,
  /** Where it was: the title path of its folder. */
  path: z.string(),
  awaitingApproval: z.boolean(),
  /** The approval step, when the caller's one confirmation also approved it. */
  approval: z.object({ ...jobFields }).optional(),
});

/** Whether this caller may approve deletions (the service's approval step, as `review_deletion` guards it). */
function mayApprove(ctx: ToolContext, args: { approve: boolean }): boolean {
  return (
    args.approve &&
    (ctx.access.audience.roles ?? []).some((r) => (MANAGER_ROLES as readonly string[]).includes(r))
  );
}

function load(ctx: ToolContext, ref: string): Promise<Entity> {
  return loadEntity(ctx, ref, {
    expect: ["IO", "SO"],
    wrongKind: (e) =>
      `A content object is deleted with its asset; delete the asset ${e.parentRef ?? ""} instead. Nothing was deleted.`,
  });
}

export default defineTool({
  name: "delete_entity",
  title: "Delete to the recycle bin",
  description:
    "Delete an asset, or a folder with everything in it, to the recycle bin. Always shows a preview (what goes, retention that blocks it) and needs confirmation; a caller who may approve deletions approves it with the same confirmation (approve: false leaves it for `review_deletion`), otherwise it waits for a manager's approval.",
  toolset: "lifecycle",
  // The service grants Delete (which deleting and recovering need) to managers and administrators only.
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const e = await load(ctx, args.ref);
    const { path, scope } = await examineDeletion(ctx, e);
    const checked = scope.retentionChecked;
    const retention =
      checked === undefined
        ? "Retention: could not be read here; the service checks it when the deletion is submitted."
        : `Retention: none on the ${checked === 1 ? "asset" : `${checked} assets`} checked${scope.assets > MAX_RETENTION_CHECKS ? ` (the first ${MAX_RETENTION_CHECKS}; the service checks the rest)` : ""}.`;
    return {
      summary: mayApprove(ctx, args)
        ? `Delete ${whatGoes(e, scope)} to the recycle bin (submitted and approved by you: one confirmation for both)`
        : `Delete ${whatGoes(e, scope)} to the recycle bin, after a manager approves`,
      details: [
        deletionPlace(e, path),
        ...deletionSample(scope),
        retention,
        mayApprove(ctx, args)
          ? "You may approve deletions, so this confirmation also approves it (the service's approval step still runs, and the audit says so); `recover_entity` brings it back from the recycle bin."
          : "Nothing changes until a manager approves; afterwards `recover_entity` brings it back from the recycle bin.",
      ],
      targets: [
        {
          ref: e.ref,
          title: e.title,
          fingerprint: fingerprint(
            e.parentRef,
            e.title,
            e.securityTag,
            scope.folders,
            scope.assets,
            scope.complete,
          ),
        },
      ],
      preview: { ...counts(scope), path },
    };
  },
  async handler(args, ctx: ToolContext) {
    const e = await load(ctx, args.ref);
    const path = await placeOf(ctx, e);
    const job = await ctx.api.lifecycle.deleteEntity(
      e.ref,
      e.type as "SO" | "IO",
      args.comment ?? "",
      ctx.signal,
    );
    const which = `${whatGoes(e, undefined)}${e.type === "SO" ? " and everything in it" : ""} (${e.ref}, ${inPlace(path)})`;
    if (mayApprove(ctx, args)) {
      // One confirmation covered both: the deletion waits for approval (PENDING) before it can be approved.
      const submitted = await settleJob(ctx, job);
      if (submitted.state === "PENDING") {
        const approvalJob = await ctx.api.lifecycle.decideDeletion(job, true, args.comment ?? "", ctx.signal);
        const approved = await settleJob(ctx, approvalJob);
        return {
          structured: {
            job,
            entity: toItem(e),
            path,
            awaitingApproval: false,
            approval: jobState(approved),
          },
          text: lines(
            `Deletion of ${which} submitted as job ${job} and approved by you in the same confirmation; to the recycle bin: ${jobOutcome(approved)}`,
            "`recover_entity` brings it back.",
          ),
          audit: {
            targets: [{ ref: e.ref, title: e.title }],
            job: approvalJob,
            jobFinished: approved.finished,
            note: `submitted as job ${job} and approved in the same confirmation (approval job ${approvalJob})`,
          },
        };
      }
    }
    const text = lines(
      `Deletion of ${which} submitted as job ${job}.`,
      `It waits for a manager's approval (\`review_deletion\` with job ${job}); nothing has changed yet. Follow it with \`job_status\`; once deleted, \`recover_entity\` brings it back.`,
    );
    return {
      structured: { job, entity: toItem(e), path, awaitingApproval: true },
      text,
      audit: { targets: [{ ref: e.ref, title: e.title }], job },
    };
  },
});
