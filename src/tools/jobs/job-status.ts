import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { ActionDetail } from "../../api/actions.js";
import { FINAL_STATES, looksLikeToken, type Progress } from "../../api/actions.js";
import { isServiceError } from "../../api/errors.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { ARRANGE } from "../support/hints.js";
import {
  createdLines,
  ingestResult,
  namedOut,
  packageLine,
  packageOut,
  savePackage,
  titleOf,
} from "../support/job-results.js";
import { secondsLeft, waitForProgress } from "../support/job-wait.js";
import { clip, lines } from "../support/text.js";

/**
 * One status tool for every job the service runs as an action (ingest, export, move, security-tag change,
 * deletion, recovery, CSV edit, ...): the job handle is the service's own progress token, so it works after
 * a restart and from any server instance. Optionally waits (bounded), sending progress notifications. A
 * finished ingest names what it created, with titles; a finished export is downloaded into the download
 * folder (byte count and any digest the service states verified, SHA-256 reported) and offered as a link.
 */

const MAX_WAIT_SECS = 30;
const MAX_ERRORS = 20;

const input = z.object({
  job: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe("Job handle returned by `ingest`, `export`, a move, a deletion…"),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_SECS)
    .default(0)
    .describe(`Wait up to this long for the job to finish (max ${MAX_WAIT_SECS}), reporting progress`),
});

const output = z.object({
  job: z.string(),
  kind: z.string().optional(),
  state: z.string(),
  finished: z.boolean(),
  percentage: z.number().optional(),
  total: z.number().optional(),
  done: z.number().optional(),
  failed: z.number().optional(),
  message: z.string().optional(),
  started: z.string().optional(),
  completed: z.string().optional(),
  errors: z.array(z.object({ message: z.string(), ref: z.string().optional(), item: z.number().optional() })),
  moreErrors: z.number().optional(),
  target: z.object({ ref: z.string(), title: z.string().optional() }).optional(),
  created: z.array(namedOut).optional(),
  moreCreated: z.number().optional(),
  folders: z.array(namedOut).optional(),
  package: packageOut.optional(),
  note: z.string().optional(),
});

type Output = z.infer<typeof output>;

async function poll(ctx: ToolContext, token: string): Promise<Progress> {
  try {
    return await ctx.api.actions.progress(token, ctx.signal);
  } catch (err) {
    if (isServiceError(err) && (err.isNotFound || err.status === 400)) {
      throw new UserInputError(
        `The service knows no job ${token}. Job handles are what \`ingest\`, \`export\` and the other job-starting tools return; check it was copied whole.`,
      );
    }
    throw err;
  }
}

/** Item detail is extra: a caller who may not see it (403) or a service without listings (404) still gets the state. */
async function detailOf(ctx: ToolContext, kind: string, token: string): Promise<ActionDetail | undefined> {
  try {
    return await ctx.api.actions.detail(kind, token, { max: 1000, signal: ctx.signal });
  } catch (err) {
    if (isServiceError(err) && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  }
}

/** “, about 40 seconds more by the service's progress”, or nothing when it gives nothing to go on. */
function eta(p: Progress): string {
  const left = secondsLeft(p);
  return left === undefined ? "" : `, about ${left} s more by the service's progress`;
}

function stateLine(p: Progress): string {
  const counts =
    p.total !== undefined
      ? `: ${p.done ?? 0} of ${p.total} done${p.failed ? `, ${p.failed} failed` : ""}`
      : p.failed
        ? `: ${p.failed} failed`
        : "";
  const pct = p.percentage !== undefined ? ` (${p.percentage}%)` : "";
  return `Job ${p.token}${p.kind ? ` (${p.kind})` : ""}: ${p.status}${pct}${counts}.`;
}

export default defineTool({
  name: "job_status",
  title: "Job status",
  description:
    "State, progress and result of a job (ingest, export, move, re-tag, deletion, CSV edit) by its handle. Names what an ingest created; downloads a finished export into the download folder, verified. waitSeconds waits for it to finish.",
  toolset: "jobs",
  localOnly: true,
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: ARRANGE,
  async handler(args, ctx: ToolContext) {
    const token = args.job;
    if (!looksLikeToken(token)) {
      throw new UserInputError(
        `"${clip(token, 60)}" is not a job handle; handles are UUIDs returned by \`ingest\`, \`export\` and other job-starting tools.`,
      );
    }
    const p = await waitForProgress(ctx, token, args.waitSeconds * 1000, (t) => poll(ctx, t));
    const finished = FINAL_STATES.has(p.status);
    const errors = p.errors.slice(0, MAX_ERRORS).map((e) => ({
      message: e.message,
      ...(e.entityRef ? { ref: e.entityRef } : {}),
      ...(e.item !== undefined ? { item: e.item } : {}),
    }));
    const out: Output = {
      job: token,
      ...(p.kind ? { kind: p.kind } : {}),
      state: p.status,
      finished,
      ...(p.percentage !== undefined ? { percentage: p.percentage } : {}),
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.done !== undefined ? { done: p.done } : {}),
      ...(p.failed !== undefined ? { failed: p.failed } : {}),
      ...(p.message ? { message: p.message } : {}),
      ...(p.created ? { started: p.created } : {}),
      ...(p.completed ? { completed: p.completed } : {}),
      errors,
      ...(p.errors.length > errors.length ? { moreErrors: p.errors.length - errors.length } : {}),
    };
    const links: { uri: string; name: string; mimeType?: string; description?: string }[] = [];
    if (p.kind) {
      const detail = await detailOf(ctx, p.kind, token);
      if (detail?.action.entity) {
        const type = detail.action.entity.type;
        const t = await titleOf(
          ctx,
          detail.action.entity.ref,
          type === "SO" || type === "IO" || type === "CO" ? type : undefined,
        );
        out.target = { ref: detail.action.entity.ref, ...(t ? { title: t.title } : {}) };
      }
      if (finished && p.kind === "ingest" && detail) Object.assign(out, await ingestResult(ctx, detail));
      if (finished && p.kind === "ingest" && !detail) {
        out.note =
          "The service did not list this ingest's items to you, so the new assets cannot be named here.";
      }
    }
    if (p.kind === "export" && (p.status === "COMPLETED" || p.status === "FINISHED_MIXED_OUTCOME")) {
      out.package = await savePackage(ctx, token);
      links.push({
        uri: pathToFileURL(out.package.path).href,
        name: `export-${token}.zip`,
        mimeType: "application/zip",
        description: `The exported package, ${out.package.bytes} bytes`,
      });
    }
    const pkg = out.package;
    const text = lines(
      stateLine(p),
      p.message && `The service says: ${clip(p.message, 400)}`,
      out.target && `Target: "${clip(out.target.title ?? "(not visible to you)", 80)}" (${out.target.ref}).`,
      ...createdLines(out),
      ...errors.map(
        (e) =>
          `Failed${e.item !== undefined ? ` item ${e.item}` : ""}${e.ref ? ` (${e.ref})` : ""}: ${clip(e.message, 300)}`,
      ),
      !!out.moreErrors && `… and ${out.moreErrors} more failures.`,
      pkg && packageLine(pkg),
      out.note,
      !finished &&
        (p.status === "PENDING"
          ? "It waits for a person (a manager's approval); check again later."
          : `Still running${eta(p)}; call \`job_status\` again (waitSeconds up to ${MAX_WAIT_SECS} waits here).`),
    );
    return { structured: out, text, ...(links.length ? { links } : {}) };
  },
});
