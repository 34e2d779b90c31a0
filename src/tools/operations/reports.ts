import { z } from "zod";
import { isNotFound, isServiceError } from "../../api/errors.js";
import type { OperationsApi, ReportColumn, ReportResult, ReportRun } from "../../api/operations.js";
import { MAX_REPORT_BYTES } from "../../resources/reports.js";
import { reportUri } from "../../resources/uris.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { toInstant } from "../support/dates.js";
import { ADDITIVE } from "../support/hints.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { clip, formatBytes, lines, plural } from "../support/text.js";

/**
 * The service's reports: list them (with the caller's recent runs), run one as a job (its handle is the
 * service's progress token, followed with `job_status`), and fetch a finished result: summarised per
 * column (computed here: sums, ranges, top values) with the first rows as CSV, bounded, and a link to the
 * whole CSV as the resource preservation://report/{job} (src/resources/reports.ts).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CSV_BUDGET = 6_000;
const TOP = 3;
const RECENT_RUNS = 10;

const input = z.object({
  action: z.enum(["list", "run", "result"]).default("list").describe("list (default), run or result"),
  report: z.string().trim().max(100).optional().describe("run: report id, from action list"),
  folder: z.string().trim().max(100).optional().describe("run: folder ref parameter (find it with `search`)"),
  from: z.string().max(40).optional().describe("run: from date, e.g. 2025-01-01"),
  to: z.string().max(40).optional().describe("run: to date"),
  user: z.string().trim().max(200).optional().describe("run: user name (changes-by-user)"),
  job: z.string().trim().max(100).optional().describe("result: the job handle the run returned"),
  rows: z.number().int().min(0).max(200).default(20).describe("result: rows shown as CSV (default 20)"),
});

const runOut = z.object({
  job: z.string(),
  report: z.string(),
  status: z.string(),
  user: z.string().optional(),
  parameters: z.record(z.string(), z.string()),
  rowCount: z.number().optional(),
  created: z.string().optional(),
  message: z.string().optional(),
});

const columnSummary = z.object({
  name: z.string(),
  type: z.string().optional(),
  distinct: z.number(),
  empty: z.number(),
  sum: z.number().optional(),
  min: z.union([z.number(), z.string()]).optional(),
  max: z.union([z.number(), z.string()]).optional(),
  top: z.array(z.object({ value: z.string(), count: z.number() })).optional(),
});

const output = z.object({
  reports: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string().optional(),
        parameters: z.array(z.string()),
        columns: z.array(z.string()),
      }),
    )
    .optional(),
  runs: z.array(runOut).optional(),
  ...z.object(jobFields).partial().shape,
  run: runOut.optional(),
  result: z
    .object({
      report: z.string(),
      name: z.string().optional(),
      runBy: z.string().optional(),
      securityTags: z.array(z.string()),
      rowCount: z.number(),
      columns: z.array(columnSummary),
      csv: z.string(),
      rowsShown: z.number(),
      uri: z.string(),
      csvBytes: z.number().optional(),
    })
    .optional(),
});

type ColumnSummary = z.infer<typeof columnSummary>;

function runOf(r: ReportRun): z.infer<typeof runOut> {
  return {
    job: r.token,
    report: r.report,
    status: r.status,
    parameters: r.parameters,
    ...(r.username ? { user: r.username } : {}),
    ...(r.rowCount !== undefined ? { rowCount: r.rowCount } : {}),
    ...(r.created ? { created: r.created } : {}),
    ...(r.message ? { message: clip(r.message, 300) } : {}),
  };
}

const params = (p: Record<string, string>) =>
  Object.keys(p).length
    ? ` (${Object.entries(p)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")})`
    : "";

/** Per column: distinct and empty counts; integers summed with their range; other columns' top values. */
export function summarise(
  columns: readonly ReportColumn[],
  rows: readonly Record<string, unknown>[],
): ColumnSummary[] {
  return columns.map((c) => {
    const values = rows.map((r) => r[c.name]);
    const present = values.filter((v) => v !== null && v !== undefined && v !== "");
    const counts = new Map<string, number>();
    for (const v of present) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
    const s: ColumnSummary = {
      name: c.name,
      ...(c.type ? { type: c.type } : {}),
      distinct: counts.size,
      empty: values.length - present.length,
    };
    const nums = present.map(Number).filter(Number.isFinite);
    if (c.type === "integer" && nums.length === present.length && nums.length > 0) {
      s.sum = nums.reduce((a, b) => a + b, 0);
      s.min = Math.min(...nums);
      s.max = Math.max(...nums);
    } else if (c.type === "date" && present.length > 0) {
      const sorted = present.map(String).sort();
      s.min = sorted[0];
      s.max = sorted.at(-1);
    } else if (c.type !== "ref" && counts.size > 0 && counts.size < present.length) {
      s.top = [...counts.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, TOP)
        .map(([value, count]) => ({ value: clip(value, 80), count }));
    }
    return s;
  });
}

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The header and up to `max` rows as RFC 4180 CSV, cut at a character budget. */
function csvExcerpt(result: ReportResult, max: number): { csv: string; shown: number } {
  const names = result.columns.map((c) => c.name);
  const out = [names.map(csvCell).join(",")];
  let size = out[0]?.length ?? 0;
  let shown = 0;
  for (const row of result.rows.slice(0, max)) {
    const line = names.map((n) => csvCell(row[n])).join(",");
    if (size + line.length + 1 > CSV_BUDGET) break;
    out.push(line);
    size += line.length + 1;
    shown++;
  }
  return { csv: out.join("\n"), shown };
}

function summaryLine(s: ColumnSummary): string {
  if (s.sum !== undefined) {
    const total = s.name.toLowerCase().includes("bytes")
      ? `${s.sum.toLocaleString("en")} (${formatBytes(s.sum)})`
      : s.sum.toLocaleString("en");
    return `- ${s.name}: total ${total}, from ${s.min} to ${s.max}`;
  }
  if (s.min !== undefined) return `- ${s.name}: ${s.min} … ${s.max}`;
  if (s.top)
    return `- ${s.name}: ${s.distinct} distinct; top ${s.top.map((t) => `${t.value} (${t.count})`).join(", ")}`;
  return `- ${s.name}: ${s.distinct} distinct${s.empty ? `, ${s.empty} empty` : ""}`;
}

/**
 * The byte size of the run's CSV, from the headers alone (the body is not read): for the link and to say
 * up front when the resource would be over its cap. Unknown (undefined) when the service does not say.
 */
async function csvSize(ops: OperationsApi, job: string, signal?: AbortSignal): Promise<number | undefined> {
  try {
    const csv = await ops.reportCsv(job, signal);
    csv.stream.destroy();
    return csv.size;
  } catch {
    // The JSON result answers for the run (and its errors); the size is only a nicety.
    return undefined;
  }
}

async function runParameters(args: {
  folder?: string;
  from?: string;
  to?: string;
  user?: string;
}): Promise<Record<string, string>> {
  const p: Record<string, string> = {};
  if (args.folder) {
    if (!UUID.test(args.folder))
      throw new UserInputError(`“${args.folder}” is not a folder ref; find one with \`search\`.`);
    p.folder = args.folder;
  }
  if (args.from) p.from = toInstant(args.from, "start", "from");
  if (args.to) p.to = toInstant(args.to, "end", "to");
  if (args.user) p.user = args.user;
  return p;
}

export default defineTool({
  name: "reports",
  title: "Reports: list, run, result",
  description:
    "The repository's reports (assets by format, storage by folder, fixity inventory, ingest history, retention summary, changes by user). list: reports and your recent runs; run: runs one (a quick run answers done; a longer one a job handle for `job_status`); result: a finished run summarised per column, the first rows as CSV, and a link to the full CSV.",
  toolset: "operations",
  // A run computes over what the caller may read and changes nothing in the collection (like an export).
  localOnly: true,
  inputSchema: input,
  outputSchema: output,
  annotations: ADDITIVE,
  async handler(args, ctx: ToolContext) {
    const ops = ctx.api.operations;
    if (args.action === "list") {
      const [defs, runs] = await Promise.all([
        ops.reports(ctx.signal),
        ops.reportRuns({ max: RECENT_RUNS, signal: ctx.signal }),
      ]);
      const reports = defs.map((d) => ({
        id: d.id,
        name: d.name,
        ...(d.description ? { description: clip(d.description, 200) } : {}),
        parameters: d.parameters.map((p) => `${p.name}${p.required ? "" : "?"}`),
        columns: d.columns.map((c) => c.name),
      }));
      const recent = runs.runs.map(runOf);
      return {
        structured: { reports, runs: recent },
        text: lines(
          `${reports.length} reports:`,
          ...reports.map(
            (r) =>
              `- ${r.id}${r.parameters.length ? ` [${r.parameters.join(", ")}]` : ""}: ${r.description ?? r.name}`,
          ),
          recent.length > 0 && `Recent runs (${runs.total} in all, newest first):`,
          ...recent.map(
            (r) =>
              `- ${r.report}${params(r.parameters)} by ${r.user ?? "?"}, ${(r.created ?? "?").slice(0, 16).replace("T", " ")}: ${r.status}${r.rowCount !== undefined ? `, ${plural(r.rowCount, "row")}` : ""}; job ${r.job}`,
          ),
        ),
      };
    }

    if (args.action === "run") {
      if (!args.report) throw new UserInputError("Give `report`: an id from `reports` (action list).");
      const run = await ops.runReport(args.report, await runParameters(args), ctx.signal);
      const out = runOf(run);
      const settled = await settleJob(ctx, run.token);
      const next =
        settled.state === "COMPLETED"
          ? `Its rows: \`reports\` with action result and this job; the full CSV is the resource ${reportUri(run.token)}.`
          : !settled.finished &&
            `Then \`reports\` with action result and this job (the full CSV will be the resource ${reportUri(run.token)}).`;
      return {
        structured: { ...jobState(settled), run: { ...out, status: settled.state } },
        text: lines(`Report ${run.report}${params(run.parameters)}: ${jobOutcome(settled)}`, next),
      };
    }

    if (!args.job || !UUID.test(args.job))
      throw new UserInputError(
        "Give `job`: the job handle a report run returned (see `reports` action list).",
      );
    let run: ReportRun;
    try {
      run = await ops.reportRun(args.job, ctx.signal);
    } catch (err) {
      if (isNotFound(err))
        throw new UserInputError(
          `No report run has job handle ${args.job}; \`reports\` action list shows recent runs.`,
        );
      throw err;
    }
    if (run.status !== "COMPLETED") {
      throw new UserInputError(
        run.status === "ACTIVE" || run.status === "SUSPENDED"
          ? `Report run ${args.job} is ${run.status} (${run.percentage ?? 0}%); wait with \`job_status\`, then ask again.`
          : `Report run ${args.job} ended ${run.status}${run.message ? `: ${run.message}` : ""}; run it again.`,
      );
    }
    let result: ReportResult;
    let csvBytes: number | undefined;
    try {
      [result, csvBytes] = await Promise.all([
        ops.reportResult(args.job, ctx.signal),
        csvSize(ops, args.job, ctx.signal),
      ]);
    } catch (err) {
      if (isServiceError(err) && err.status === 410)
        throw new UserInputError(
          `The result of ${args.job} is no longer kept by the service; run the report again.`,
        );
      throw err;
    }
    const columns = summarise(result.columns, result.rows);
    const { csv, shown } = csvExcerpt(result, args.rows);
    const uri = reportUri(args.job);
    const title = `${result.name ?? result.report}${params(result.parameters)}`;
    const size = csvBytes !== undefined ? ` (${formatBytes(csvBytes)})` : "";
    return {
      structured: {
        run: runOf(run),
        result: {
          report: result.report,
          ...(result.name ? { name: result.name } : {}),
          ...(result.runBy ? { runBy: result.runBy } : {}),
          securityTags: result.securityTags,
          rowCount: result.rowCount,
          columns,
          csv,
          rowsShown: shown,
          uri,
          ...(csvBytes !== undefined ? { csvBytes } : {}),
        },
      },
      links: [
        {
          uri,
          name: title,
          title,
          mimeType: "text/csv",
          description: `Full result: ${plural(result.rowCount, "row")}`,
          ...(csvBytes !== undefined ? { size: csvBytes } : {}),
        },
      ],
      text: lines(
        `${result.name ?? result.report}${params(result.parameters)}: ${plural(result.rowCount, "row")}, ${plural(result.columns.length, "column")}; run by ${result.runBy ?? "?"} over tags ${result.securityTags.join(", ") || "none"}, completed ${result.completed ?? "?"}.`,
        ...columns.map(summaryLine),
        `First ${shown} of ${result.rowCount} rows (CSV):`,
        csv,
        shown < result.rowCount &&
          `${result.rowCount - shown} more rows: ask with a larger \`rows\` (max 200).`,
        csvBytes !== undefined && csvBytes > MAX_REPORT_BYTES
          ? `The full CSV${size} is over the ${formatBytes(MAX_REPORT_BYTES)} limit for reading it as the resource ${uri}; the summary above covers every row.`
          : `The full CSV${size} is at ${uri}.`,
      ),
    };
  },
});
