import { z } from "zod";
import type { Monitor, MonitorCategory, MonitorMessage } from "../../api/operations.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { checkRange, toInstant } from "../support/dates.js";
import { mapLimit } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { clip, formatBytes, lines, plural } from "../support/text.js";

/**
 * What the repository is doing and did: processes running now, the ones that failed in a window with the
 * service's own reasons (the monitor's error messages), and the day-by-day history (counts computed by
 * the service). With `process`, one process in detail: its counts and its messages, errors first.
 */

const MAX_RUNNING = 20;
const MAX_FAILED = 10;
const ERRORS_PER_FAILURE = 5;
const MAX_MESSAGES = 25;
const CATEGORIES = ["Ingest", "Export", "DataManagement"] as const;

const input = z.object({
  process: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("One process in detail: a job handle or workflow instance id (from this tool or `workflows`)"),
  days: z
    .number()
    .int()
    .min(1)
    .max(366)
    .default(7)
    .describe("Window ending today (default 7 days); ignored when `from` is given"),
  from: z.string().max(40).optional().describe("Window start, a date like 2026-01-15"),
  to: z.string().max(40).optional().describe("Window end (default today)"),
  category: z.enum(CATEGORIES).optional().describe("Only this kind of process"),
});

const monitorOut = z.object({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  category: z.string().optional(),
  user: z.string().optional(),
  started: z.string().optional(),
  completed: z.string().optional(),
  percent: z.number().optional(),
  progress: z.string().optional(),
  filesProcessed: z.number().optional(),
  errorCount: z.number().optional(),
  bytes: z.number().optional(),
});

const messageOut = z.object({
  status: z.string(),
  message: z.string(),
  path: z.string().optional(),
  entityRef: z.string().optional(),
});

const dayOut = z.object({
  date: z.string(),
  started: z.number(),
  succeeded: z.number(),
  failed: z.number(),
  aborted: z.number(),
  filesProcessed: z.number(),
  bytes: z.number(),
});

const output = z.object({
  window: z.object({ from: z.string(), to: z.string() }).optional(),
  running: z.array(monitorOut).optional(),
  runningTotal: z.number().optional(),
  failed: z.array(monitorOut.extend({ errors: z.array(messageOut), moreErrors: z.number() })).optional(),
  failedTotal: z.number().optional(),
  history: z
    .object({
      days: z.array(dayOut),
      quietDays: z.number(),
      totals: dayOut.omit({ date: true }),
    })
    .optional(),
  process: monitorOut.optional(),
  messages: z.array(messageOut).optional(),
  messageTotals: z.object({ errors: z.number(), warnings: z.number(), all: z.number() }).optional(),
});

type MonitorOut = z.infer<typeof monitorOut>;
type MessageOut = z.infer<typeof messageOut>;

function monitorOf(m: Monitor): MonitorOut {
  const o: MonitorOut = { id: m.id, name: m.name, status: m.status };
  if (m.category) o.category = m.category;
  if (m.user) o.user = m.user;
  if (m.started) o.started = m.started;
  if (m.completed) o.completed = m.completed;
  if (m.percentComplete !== undefined) o.percent = m.percentComplete;
  if (m.progressText) o.progress = m.progressText;
  if (m.filesProcessed !== undefined) o.filesProcessed = m.filesProcessed;
  if (m.errors !== undefined) o.errorCount = m.errors;
  if (m.size) o.bytes = m.size;
  return o;
}

function messageOf(m: MonitorMessage): MessageOut {
  return {
    status: m.status,
    message: clip(m.message, 400),
    ...(m.path ? { path: m.path } : {}),
    ...(m.entityRef ? { entityRef: m.entityRef } : {}),
  };
}

const day = (iso: string) => iso.slice(0, 10);
const when = (iso?: string) => (iso ? iso.replace("T", " ").slice(0, 16) : "?");

function monitorLine(m: MonitorOut): string {
  return `- ${m.name} [${m.status}${m.percent !== undefined && m.status === "Running" ? ` ${m.percent}%` : ""}] by ${m.user ?? "?"}, started ${when(m.started)}${m.completed ? `, ended ${when(m.completed)}` : ""}; job ${m.id}${m.progress ? `\n  ${clip(m.progress, 300)}` : ""}`;
}

async function detail(ctx: ToolContext, id: string) {
  const m = await ctx.api.operations.monitor(id, ctx.signal);
  const [errors, warnings, first] = await Promise.all([
    ctx.api.operations.messages(m.id, { status: "Error", max: MAX_MESSAGES, signal: ctx.signal }),
    ctx.api.operations.messages(m.id, { status: "Warning", max: MAX_MESSAGES, signal: ctx.signal }),
    ctx.api.operations.messages(m.id, { max: 1, signal: ctx.signal }),
  ]);
  const shown = [...errors.messages, ...warnings.messages].slice(0, MAX_MESSAGES).map(messageOf);
  const left = errors.total + warnings.total - shown.length;
  const p = monitorOf(m);
  const text = lines(
    `${p.name}: ${p.status} (job ${p.id}; category ${p.category ?? "?"}; by ${p.user ?? "?"})`,
    `Started ${when(p.started)}${p.completed ? `, ended ${when(p.completed)}` : ""}; ${plural(p.filesProcessed ?? 0, "item")} processed, ${plural(errors.total, "error")}, ${plural(warnings.total, "warning")}${p.bytes ? `, ${p.bytes.toLocaleString("en")} bytes (${formatBytes(p.bytes)})` : ""}.`,
    p.progress && `Summary: ${p.progress}`,
    shown.length > 0 && "Messages (errors first):",
    ...shown.map((s) => `- ${s.status}: ${s.message}${s.path ? ` (${s.path})` : ""}`),
    left > 0 && `… ${plural(left, "more message")} not shown.`,
    "Follow or re-check it with `job_status`.",
  );
  return {
    structured: {
      process: p,
      messages: shown,
      messageTotals: { errors: errors.total, warnings: warnings.total, all: first.total },
    },
    text,
  };
}

export default defineTool({
  name: "processes",
  title: "Processes: running, failed, history",
  description:
    "What the repository is doing: processes running now, those that failed in a window (default 7 days) with the service's reasons, and a day-by-day history (started, succeeded, failed, files, bytes). With `process`: one process and its messages, errors first.",
  toolset: "operations",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    if (args.process) return detail(ctx, args.process);

    const today = day(new Date().toISOString());
    const to = args.to ? day(toInstant(args.to, "end", "to")) : today;
    const from = args.from
      ? day(toInstant(args.from, "start", "from"))
      : day(new Date(Date.parse(`${to}T00:00:00Z`) - (args.days - 1) * 86_400_000).toISOString());
    checkRange(from, to, ["from", "to"]);
    if (Date.parse(to) - Date.parse(from) > 365 * 86_400_000)
      throw new UserInputError("The window is at most 366 days; narrow `from`/`to`.");
    const category = args.category as MonitorCategory | undefined;
    const ops = ctx.api.operations;

    const [running, failedAll, history] = await Promise.all([
      ops.monitors({ status: "Running", category, max: MAX_RUNNING, signal: ctx.signal }),
      ops.monitors({ status: "Failed", category, max: 1000, signal: ctx.signal }),
      ops.history({ from, to, category, signal: ctx.signal }),
    ]);
    // Failed in the window: ended (or, without an end, started) between from and the end of `to`.
    const inWindow = failedAll.monitors.filter((m) => {
      const d = day(m.completed ?? m.started ?? "");
      return d >= from && d <= to;
    });
    const failed = await mapLimit(inWindow.slice(0, MAX_FAILED), 4, async (m) => {
      const errs = await ops.messages(m.id, { status: "Error", max: ERRORS_PER_FAILURE, signal: ctx.signal });
      return {
        ...monitorOf(m),
        errors: errs.messages.map(messageOf),
        moreErrors: Math.max(0, errs.total - errs.messages.length),
      };
    });
    const active = history.days.filter((d) => d.started + d.succeeded + d.failed + d.aborted > 0);
    const t = history.totals;

    const text = lines(
      `Processes ${from} to ${to}${category ? ` (${category})` : ""}:`,
      `Running now: ${running.total}${running.total > running.monitors.length ? ` (${running.monitors.length} shown)` : ""}.`,
      ...running.monitors.map((m) => monitorLine(monitorOf(m))),
      `Failed in the window: ${inWindow.length}${inWindow.length > failed.length ? ` (${failed.length} newest shown)` : ""}.`,
      ...failed.flatMap((f) => [
        monitorLine(f),
        ...f.errors.map((e) => `  ✗ ${e.message}`),
        f.moreErrors > 0 ? `  … ${plural(f.moreErrors, "more error")}` : "",
      ]),
      `History: ${plural(t.started, "process", "processes")} started, ${t.succeeded} succeeded, ${t.failed} failed, ${t.aborted} aborted; ${plural(t.filesProcessed, "file")}, ${t.bytes.toLocaleString("en")} bytes (${formatBytes(t.bytes)}).`,
      active.length > 0
        ? `By day (${plural(history.days.length - active.length, "quiet day")} left out): date started/succeeded/failed/aborted files bytes`
        : `By day: ${plural(history.days.length, "quiet day")}, none with a process started, succeeded, failed or aborted.`,
      ...active.map(
        (d) =>
          `- ${d.date} ${d.started}/${d.succeeded}/${d.failed}/${d.aborted} ${d.filesProcessed} ${d.bytes.toLocaleString("en")}`,
      ),
      "Details of one: `processes` with `process: <job>`.",
    );
    return {
      structured: {
        window: { from, to },
        running: running.monitors.map(monitorOf),
        runningTotal: running.total,
        failed,
        failedTotal: inWindow.length,
        history: { days: active, quietDays: history.days.length - active.length, totals: t },
      },
      text,
    };
  },
});
