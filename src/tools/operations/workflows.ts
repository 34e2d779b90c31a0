import { z } from "zod";
import type { WorkflowInstance, WorkflowType } from "../../api/operations.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { cursor, limit } from "../discovery/params.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { checkRange, toInstant } from "../support/dates.js";
import { READ_ONLY } from "../support/hints.js";
import { clip, lines, pageNote } from "../support/text.js";

/**
 * Workflow instances (every action of the service is one: ingest, export, move, deletion, integrity
 * check...) with the service's filters, newest first; one instance with its failed items; or the
 * workflow contexts (which can be started with `control_workflow`).
 */

const STATES = [
  "Active",
  "Pending",
  "Completed",
  "Failed",
  "Finished_Mixed_Outcome",
  "Suspended",
  "Aborted",
] as const;
const TYPES = ["Ingest", "Access", "Transformation", "DataManagement"] as const;
const MAX_ERRORS = 20;

const input = z.object({
  id: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("One instance in detail (instance id or job handle), with its failed items"),
  contexts: z.boolean().default(false).describe("List the workflow contexts instead (startable ones marked)"),
  state: z.enum(STATES).optional().describe("Only instances in this state"),
  type: z.enum(TYPES).optional().describe("Only this kind (Access = exports)"),
  creator: z.string().trim().max(200).optional().describe("User who started it"),
  context: z.string().trim().max(200).optional().describe("Context name or id, e.g. Integrity Check"),
  from: z.string().max(40).optional().describe("Started on or after, e.g. 2026-01-15"),
  to: z.string().max(40).optional().describe("Started on or before"),
  limit: limit(20, 100),
  cursor,
});

const instanceOut = z.object({
  id: z.string(),
  state: z.string(),
  context: z.string().optional(),
  type: z.string().optional(),
  creator: z.string().optional(),
  started: z.string().optional(),
  finished: z.string().optional(),
  job: z.string().optional(),
  entity: z.object({ ref: z.string(), type: z.string().optional(), title: z.string().optional() }).optional(),
  progress: z
    .object({
      total: z.number().optional(),
      done: z.number().optional(),
      failed: z.number().optional(),
      percent: z.number().optional(),
    })
    .optional(),
  message: z.string().optional(),
});

const output = z.object({
  instances: z.array(instanceOut).optional(),
  total: z.number().optional(),
  hasMore: z.boolean().optional(),
  nextCursor: z.string().optional(),
  instance: instanceOut
    .extend({
      errors: z.array(z.object({ message: z.string(), entityRef: z.string().optional() })),
      parameters: z.record(z.string(), z.string()).optional(),
      outputs: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  contexts: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        type: z.string().optional(),
        startable: z.boolean(),
        startedBy: z.string().optional(),
      }),
    )
    .optional(),
});

type InstanceOut = z.infer<typeof instanceOut>;

export function instanceOf(w: WorkflowInstance): InstanceOut {
  const o: InstanceOut = { id: w.id, state: w.displayState ?? w.state };
  if (w.contextName) o.context = w.contextName;
  if (w.type) o.type = w.type;
  if (w.creator) o.creator = w.creator;
  if (w.started) o.started = w.started;
  if (w.finished) o.finished = w.finished;
  if (w.token) o.job = w.token;
  if (w.entity) o.entity = w.entity;
  if (w.progress && Object.keys(w.progress).length > 0) o.progress = w.progress;
  if (w.message) o.message = clip(w.message, 300);
  return o;
}

export function instanceLine(i: InstanceOut): string {
  const what = i.entity ? ` of ${i.entity.title ? `“${i.entity.title}” ` : ""}${i.entity.ref}` : "";
  const p = i.progress;
  const counts =
    p && p.total !== undefined
      ? `; ${p.done ?? 0}/${p.total} done${p.failed ? `, ${p.failed} failed` : ""}`
      : "";
  return `- #${i.id} ${i.context ?? i.type ?? "workflow"}${what} [${i.state}] by ${i.creator ?? "?"}, ${minute(i.started) ?? "?"}${i.finished ? ` to ${minute(i.finished)}` : ""}${counts}${i.job ? `; job ${i.job}` : ""}${i.message ? `\n  ${i.message}` : ""}`;
}

async function contextId(ctx: ToolContext, context: string): Promise<string> {
  if (/^\d+$/.test(context)) return context;
  const all = await ctx.api.operations.contexts({ signal: ctx.signal });
  const hit = all.find((c) => c.name.toLowerCase() === context.toLowerCase());
  if (!hit)
    throw new UserInputError(
      `No workflow context is named “${context}”; known: ${all.map((c) => c.name).join(", ")}.`,
    );
  return hit.id;
}

export default defineTool({
  name: "workflows",
  title: "Workflow instances",
  description:
    "Workflow instances (every ingest, export, move, deletion, integrity check…), newest first, filtered by state, type, creator, context, start date; `id` for one with its failed items; `contexts: true` lists the contexts (start one with `control_workflow`).",
  toolset: "operations",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const ops = ctx.api.operations;
    if (args.contexts) {
      const all = await ops.contexts({ signal: ctx.signal });
      const contexts = all.map((c) => ({
        id: c.id,
        name: c.name,
        startable: c.startable,
        ...(c.type ? { type: c.type } : {}),
        ...(c.startedBy && !c.startable ? { startedBy: c.startedBy } : {}),
      }));
      return {
        structured: { contexts },
        text: lines(
          `${contexts.length} workflow contexts:`,
          ...contexts.map(
            (c) =>
              `- ${c.id} ${c.name} (${c.type ?? "?"})${c.startable ? ": startable with `control_workflow`" : c.startedBy ? `: started by ${clip(c.startedBy, 120)}` : ""}`,
          ),
        ),
      };
    }

    if (args.id) {
      const w = await ops.instance(args.id, { errors: true, parameters: true, signal: ctx.signal });
      const errors = (w.errors ?? []).slice(0, MAX_ERRORS).map((e) => ({
        message: clip(e.message, 400),
        ...(e.entityRef ? { entityRef: e.entityRef } : {}),
      }));
      const instance = {
        ...instanceOf(w),
        errors,
        ...(w.parameters ? { parameters: w.parameters } : {}),
        ...(w.outputs ? { outputs: w.outputs } : {}),
      };
      const more = (w.errors?.length ?? 0) - errors.length;
      return {
        structured: { instance },
        text: lines(
          instanceLine(instance),
          errors.length > 0 && "Failed items:",
          ...errors.map((e) => `  ✗ ${e.message}`),
          more > 0 && `  … ${more} more`,
          w.parameters &&
            `Input: ${Object.entries(w.parameters)
              .map(([k, v]) => `${k}=${clip(v, 100)}`)
              .join(", ")}`,
          w.outputs &&
            `Output: ${Object.entries(w.outputs)
              .map(([k, v]) => `${k}=${clip(v, 100)}`)
              .join(", ")}`,
        ),
      };
    }

    const from = args.from ? toInstant(args.from, "start", "from") : undefined;
    const to = args.to ? toInstant(args.to, "end", "to") : undefined;
    checkRange(from, to, ["from", "to"]);
    const hash = queryHash("workflows", args);
    const offset = decodeCursor(args.cursor, hash);
    const filter = {
      state: args.state,
      type: args.type as WorkflowType | undefined,
      creator: args.creator,
      contextId: args.context ? await contextId(ctx, args.context) : undefined,
      from,
      to,
      signal: ctx.signal,
    };
    // The service pages oldest first; count first, then read the page that is newest-first `offset`.
    const head = await ops.instances({ ...filter, max: 1 });
    const end = Math.max(0, head.total - offset);
    const start = Math.max(0, end - args.limit);
    const page =
      end === 0
        ? { total: head.total, instances: [] }
        : await ops.instances({ ...filter, start, max: end - start });
    const instances = page.instances
      .slice(0, end - start)
      .reverse()
      .map(instanceOf);
    const facts = pageFacts(offset, instances.length, page.total, hash);
    return {
      structured: { instances, ...facts },
      text: lines(
        page.total === 0
          ? "No workflow instances match."
          : `${page.total.toLocaleString("en")} workflow instances match (newest first):`,
        ...instances.map(instanceLine),
        pageNote(offset, instances.length, page.total, facts.nextCursor),
      ),
    };
  },
});

/** "2026-01-20 09:15" from an ISO time: the minute a person reads; the exact time is in the structured answer. */
function minute(iso: string | undefined): string | undefined {
  return iso?.slice(0, 16).replace("T", " ");
}
