import { z } from "zod";
import type { Entity, EntityType } from "../../api/entity.js";
import { isNotFound } from "../../api/errors.js";
import type { DeletionAction } from "../../api/lifecycle.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { itemOut, toItem } from "../support/kinds.js";
import { clip, lines } from "../support/text.js";
import { counts } from "../support/writes.js";
import { deletionPlace, deletionSample, examineDeletion, named, whatGoes } from "./params.js";

const input = z.object({
  job: refParam("The deletion's job handle, from `delete_entity` or `recycle_bin` (pending: true)"),
  decision: z
    .enum(["approve", "reject"])
    .describe("approve: it goes to the recycle bin; reject: nothing is deleted"),
  comment: z.string().trim().max(1000).optional().describe("Why; recorded with the decision"),
});

const output = z.object({
  job: z.string(),
  decision: z.enum(["approve", "reject"]),
  entity: itemOut,
  submittedBy: z.string().optional(),
});

interface Pending {
  d: DeletionAction;
  e: Entity;
}

/** The pending deletion and the entity it would delete; refuses, changing nothing, anything else. */
async function pending(ctx: ToolContext, job: string): Promise<Pending> {
  let d: DeletionAction;
  try {
    d = await ctx.api.lifecycle.deletion(job, ctx.signal);
  } catch (err) {
    if (isNotFound(err))
      throw new UserInputError(
        `No deletion has job handle ${job}; \`recycle_bin\` with pending: true lists those awaiting approval. Nothing was changed.`,
      );
    throw err;
  }
  if (d.status !== "PENDING") {
    const state =
      d.status === "CANCELLED"
        ? "was rejected"
        : d.status === "COMPLETED"
          ? "is done (the entity is in the recycle bin)"
          : `is ${d.status}`;
    throw new UserInputError(`Deletion job ${job} ${state}, so it awaits no decision. Nothing was changed.`);
  }
  if (!d.entityRef)
    throw new UserInputError(`Deletion job ${job} does not say what it deletes; nothing was changed.`);
  let e: Entity;
  try {
    e = await ctx.entity.get(d.entityRef, (d.entityType as EntityType | undefined) ?? undefined, ctx.signal);
  } catch (err) {
    if (isNotFound(err))
      throw new UserInputError(
        `The entity deletion job ${job} would delete (${d.entityRef}) no longer exists; reject it. Nothing was changed.`,
      );
    throw err;
  }
  return { d, e };
}

function submitted(d: DeletionAction): string {
  return `submitted by ${d.user ?? "someone"}${d.created ? ` on ${d.created}` : ""}${d.comment ? `: “${clip(d.comment, 200)}”` : ""}`;
}

export default defineTool({
  name: "review_deletion",
  title: "Approve or reject a deletion",
  description:
    "A manager's decision on a deletion awaiting approval (the job from `delete_entity`): approve moves it and everything below it to the recycle bin (asks for confirmation first); reject deletes nothing.",
  toolset: "lifecycle",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (args.decision === "reject") return undefined;
    const { d, e } = await pending(ctx, args.job);
    const { path, scope } = await examineDeletion(ctx, e);
    return {
      summary: `Approve deleting ${whatGoes(e, scope)} to the recycle bin`,
      details: [
        deletionPlace(e, path),
        `Deletion job ${d.id}, ${submitted(d)}${d.total !== undefined ? `; ${d.total} entities in all` : ""}.`,
        ...deletionSample(scope),
        "`recover_entity` can bring it back from the recycle bin.",
      ],
      targets: [
        {
          ref: e.ref,
          title: e.title,
          fingerprint: fingerprint(
            d.id,
            d.status,
            d.total,
            e.parentRef,
            e.title,
            e.securityTag,
            scope.folders,
            scope.assets,
          ),
        },
      ],
      preview: { ...counts(scope), path },
    };
  },
  async handler(args, ctx: ToolContext) {
    const { d, e } = await pending(ctx, args.job);
    const approve = args.decision === "approve";
    const job = await ctx.api.lifecycle.decideDeletion(d.id, approve, args.comment ?? "", ctx.signal);
    const text = approve
      ? lines(
          `Approved: ${named(e)} ${e.ref}${e.type === "SO" ? " and everything in it" : ""} goes to the recycle bin (${submitted(d)}).`,
          `Job ${job}; follow it with \`job_status\`. \`recover_entity\` brings it back.`,
        )
      : `Rejected the deletion of ${named(e)} ${e.ref} (job ${job}, ${submitted(d)}); nothing was deleted.`;
    return {
      structured: {
        job,
        decision: args.decision,
        entity: toItem(e),
        ...(d.user ? { submittedBy: d.user } : {}),
      },
      text,
      audit: { targets: [{ ref: e.ref, title: e.title }], job },
    };
  },
});
