import { createHash } from "node:crypto";
import { z } from "zod";
import { looksLikeToken } from "../../api/actions.js";
import { isNotFound } from "../../api/errors.js";
import type { WorkflowInstance } from "../../api/operations.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { lines } from "../support/text.js";
import { instanceLine, instanceOf } from "./workflows.js";

/**
 * Start a startable workflow (today the Integrity Check: re-reads every file under a folder and checks its
 * SHA-256, changing nothing), or stop (suspend), resume or terminate instances. Stop and terminate show
 * what they will end and need the person's confirmation. Managers and administrators only (the service
 * refuses others with 403).
 */

const MAX_IDS = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ENDED = new Set(["Completed", "Failed", "Finished_Mixed_Outcome", "Aborted"]);

const input = z.object({
  action: z.enum(["start", "stop", "resume", "terminate"]).describe("What to do"),
  ids: z
    .array(z.string().trim().min(1).max(100))
    .max(MAX_IDS)
    .optional()
    .describe("stop/resume/terminate: instance ids or job handles, from `workflows` or `processes`"),
  context: z
    .string()
    .trim()
    .max(200)
    .default("Integrity Check")
    .describe("start: context name or id (see `workflows` contexts: true)"),
  folder: z
    .string()
    .trim()
    .max(100)
    .optional()
    .describe("start: folder ref (find it with `search` or `browse`), or @root@ for everything"),
});

const changeOut = z.object({
  id: z.string(),
  title: z.string(),
  state: z.string(),
  changed: z.boolean(),
  note: z.string().optional(),
});

const output = z.object({
  action: z.string(),
  ...z.object(jobFields).partial().shape,
  instance: z.string().optional(),
  folder: z.object({ ref: z.string(), title: z.string() }).optional(),
  changes: z.array(changeOut).optional(),
});

function titleOf(w: WorkflowInstance): string {
  const what = w.entity ? (w.entity.title ?? w.entity.ref) : undefined;
  return `${w.contextName ?? "workflow"} #${w.id}${what ? ` of “${what}”` : ""}`;
}

/** Each id read (a job handle resolves to its instance); an unknown one is refused, changing nothing. */
async function instancesOf(
  ctx: ToolContext,
  ids: readonly string[] | undefined,
): Promise<WorkflowInstance[]> {
  if (!ids || ids.length === 0)
    throw new UserInputError("Give `ids`: instance ids or job handles from `workflows` or `processes`.");
  const out: WorkflowInstance[] = [];
  for (const id of new Set(ids)) {
    if (!/^\d+$/.test(id) && !UUID.test(id))
      throw new UserInputError(
        `“${id}” is neither an instance id (a number) nor a job handle; nothing was changed.`,
      );
    try {
      out.push(await ctx.api.operations.instance(id, { signal: ctx.signal }));
    } catch (err) {
      if (isNotFound(err))
        throw new UserInputError(
          `No workflow instance ${id}; find ids with \`workflows\`. Nothing was changed.`,
        );
      throw err;
    }
  }
  return out;
}

export default defineTool({
  name: "control_workflow",
  title: "Start, stop, resume or terminate workflows",
  description:
    "Managers: start a startable workflow (Integrity Check of a folder: verifies every file's SHA-256, changes nothing) as a job; stop (suspend), resume or terminate instances. Stop and terminate ask for confirmation; terminated work stays done but does not continue.",
  toolset: "operations",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (args.action !== "stop" && args.action !== "terminate") return undefined;
    const list = await instancesOf(ctx, args.ids);
    const live = list.filter((w) => !ENDED.has(w.state));
    const verb = args.action === "stop" ? "Stop (suspend)" : "Terminate";
    return {
      summary: `${verb} ${live.length} of ${list.length} workflow instance${list.length === 1 ? "" : "s"}${live.length < list.length ? ` (${list.length - live.length} already ended)` : ""}`,
      details: [
        ...list.slice(0, 20).map((w) => instanceLine(instanceOf(w))),
        ...(list.length > 20 ? [`… and ${list.length - 20} more`] : []),
        args.action === "terminate"
          ? "Terminated instances end Aborted: what they did stays done; a pending deletion is cancelled."
          : "Stopped instances stay Suspended until resumed (`control_workflow` action resume).",
      ],
      targets: list.map((w) => ({
        ref: w.id,
        title: titleOf(w),
        fingerprint: createHash("sha256").update(`${w.id}\u0000${w.state}`).digest("hex"),
      })),
      preview: { ids: list.map((w) => w.id), live: live.length },
    };
  },
  async handler(args, ctx: ToolContext) {
    const ops = ctx.api.operations;
    if (args.action === "start") {
      if (!args.folder)
        throw new UserInputError(
          "Give `folder`: a folder ref (find it with `search` or `browse`), or @root@.",
        );
      let folder = { ref: "@root@", title: "the whole repository" };
      if (args.folder !== "@root@") {
        if (!UUID.test(args.folder))
          throw new UserInputError(
            `“${args.folder}” is not a folder ref (a UUID) or @root@; find one with \`search\`.`,
          );
        try {
          const e = await ctx.entity.get(args.folder, "SO", ctx.signal);
          folder = { ref: e.ref, title: e.title };
        } catch (err) {
          if (isNotFound(err))
            throw new UserInputError(
              `No folder ${args.folder}; only folders can be checked. Nothing was started.`,
            );
          throw err;
        }
      }
      const byId = /^\d+$/.test(args.context);
      const { instance, token } = await ops.start({
        ...(byId ? { contextId: args.context } : { contextName: args.context }),
        parameters: { folder: folder.ref },
        signal: ctx.signal,
      });
      const job = token ?? instance.token ?? instance.id;
      const name = instance.contextName ?? args.context;
      // Only a progress token can be waited on; an instance id alone is followed with `workflows`.
      if (!looksLikeToken(job)) {
        return {
          structured: { action: "start", job, instance: instance.id, folder },
          text: `${name} of “${folder.title}” (${folder.ref}) started as workflow instance #${instance.id}; follow it with \`workflows\`.`,
          audit: { targets: [folder], job },
        };
      }
      const settled = await settleJob(ctx, job);
      return {
        structured: { action: "start", ...jobState(settled), instance: instance.id, folder },
        text: `${name} of “${folder.title}” (${folder.ref}), workflow instance #${instance.id}: ${jobOutcome(settled)}`,
        audit: { targets: [folder], job, jobFinished: settled.finished },
      };
    }

    const list = await instancesOf(ctx, args.ids);
    const byId = new Map(list.map((w) => [w.id, w]));
    const result = await ops.change(args.action, [...byId.keys()], ctx.signal);
    const changes = result.map((c) => {
      const w = byId.get(c.id);
      return {
        id: c.id,
        title: w ? titleOf(w) : `workflow #${c.id}`,
        state: c.state,
        changed: c.changed,
        ...(c.note ? { note: c.note } : {}),
      };
    });
    const done = changes.filter((c) => c.changed).length;
    return {
      structured: { action: args.action, changes },
      text: lines(
        `${args.action[0]?.toUpperCase()}${args.action.slice(1)}: ${done} of ${changes.length} changed.`,
        ...changes.map(
          (c) =>
            `- ${c.title}: ${c.changed ? `now ${c.state}` : `unchanged (${c.state})`}${c.note ? ` — ${c.note}` : ""}`,
        ),
      ),
      audit: { targets: changes.map((c) => ({ ref: c.id, title: c.title })) },
    };
  },
});
