import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import { isNotFound, isServiceError } from "../api/errors.js";
import type { OperationsApi, ReportRun } from "../api/operations.js";
import { formatBytes, plural } from "../tools/support/text.js";
import { MAX_COMPLETIONS } from "./complete.js";
import { asResourceError, variable } from "./errors.js";
import { MAX_RESOURCE_BYTES, readCapped } from "./files.js";
import type { ResourceRegistrar } from "./types.js";
import { reportUri } from "./uris.js";

/**
 * The full result of a finished report run as a resource, `preservation://report/{job}`: the service's own
 * CSV, byte for byte (the `reports` tool summarises it; this is the whole table for a client to browse or
 * save). Like files, a result is inlined only up to a cap: over it the read is refused, naming the size,
 * rather than cut, because a cut table read as if whole gives wrong totals. The listing is the caller's
 * recent finished runs (the service shows a user their own; managers everyone's).
 */

export const CSV_MIME = "text/csv";
/** The most bytes a report resource inlines: the same cap as a file resource. */
export const MAX_REPORT_BYTES = MAX_RESOURCE_BYTES;
/** Finished runs listed by resources/list (newest first). */
export const LISTED_RUNS = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HOW_TO_FIND = "the `reports` tool (action list) shows your recent runs and their job handles";

/** "Storage by folder (folder=…, from=…)": how a run is named in listings, links and errors. */
export function runTitle(run: { report: string; reportName?: string; parameters: Record<string, string> }) {
  const p = Object.entries(run.parameters);
  const name = run.reportName || run.report || "Report";
  return p.length ? `${name} (${p.map(([k, v]) => `${k}=${v}`).join(", ")})` : name;
}

function requireJob(value: string | string[] | undefined): string {
  const job = variable(value, "job").trim();
  if (!UUID.test(job)) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `"${job.slice(0, 80)}" is not a report job handle (expected a UUID); ${HOW_TO_FIND}`,
      { reason: "invalid_job", job: job.slice(0, 80) },
    );
  }
  return job.toLowerCase();
}

/** A run that has no result to read (yet, or ever), as an error saying what to do. */
function notReadable(uri: string, run: ReportRun): ProtocolError {
  const unfinished = run.status === "ACTIVE" || run.status === "SUSPENDED" || run.status === "PENDING";
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    unfinished
      ? `Report run ${run.token} (${runTitle(run)}) is not finished: ${run.status}, ${run.percentage ?? 0}% done; wait for it with the \`job_status\` tool, then read this resource again`
      : `Report run ${run.token} (${runTitle(run)}) ended ${run.status}${run.message ? `: ${run.message}` : ""}; it has no result. Run the report again with the \`reports\` tool (action run)`,
    { uri, reason: unfinished ? "not_finished" : "failed", status: run.status },
  );
}

/** `size` is the whole CSV's when the service said it; otherwise only what was read before the cap (`seen`). */
function tooLarge(uri: string, run: ReportRun, size: number, seen = false): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `The result of ${runTitle(run)} (${plural(run.rowCount ?? 0, "row")}) is ${seen ? "more than " : ""}${formatBytes(size)} of CSV, over the ${formatBytes(MAX_REPORT_BYTES)} limit for reading a report as a resource; the \`reports\` tool (action result, job ${run.token}) summarises every column over all rows and shows up to 200 of them, or run the report on a smaller folder or date range`,
    { uri, reason: "too_large", ...(seen ? { seen: size } : { size }), limit: MAX_REPORT_BYTES },
  );
}

async function finishedRuns(ops: OperationsApi, max: number, log: Logger, signal?: AbortSignal) {
  try {
    return (await ops.reportRuns({ status: "COMPLETED", max, ...(signal ? { signal } : {}) })).runs;
  } catch (err) {
    // A service without the Report API, or a user it refuses, has no runs to list: the rest of
    // resources/list must not fail for that.
    log.debug({ err: (err as Error)?.message }, "listing report runs failed");
    return [];
  }
}

export const registerReportResources: ResourceRegistrar = (server, deps) => {
  const { operations: ops, log } = deps;

  server.registerResource(
    "report",
    new ResourceTemplate("preservation://report/{job}", {
      list: async (ctx) => ({
        resources: (await finishedRuns(ops, LISTED_RUNS, log, ctx.mcpReq.signal)).map((r) => ({
          uri: reportUri(r.token),
          name: runTitle(r),
          title: runTitle(r),
          description: `Report result: ${r.rowCount !== undefined ? `${plural(r.rowCount, "row")}, ` : ""}run by ${r.username ?? "?"}, completed ${r.completed ?? r.created ?? "?"}`,
          mimeType: CSV_MIME,
        })),
      }),
      // One request for the recent finished runs: cheap enough to answer as the person types.
      complete: {
        job: async (value) => {
          const typed = value.trim().toLowerCase();
          return (await finishedRuns(ops, MAX_COMPLETIONS, log))
            .map((r) => r.token)
            .filter((t) => t.toLowerCase().startsWith(typed));
        },
      },
    }),
    {
      title: "Report result (CSV)",
      description: `The full result of a finished report run as the service's CSV, up to ${formatBytes(MAX_REPORT_BYTES)}; {job} is the handle the \`reports\` tool returned.`,
      mimeType: CSV_MIME,
    },
    async (uri, vars, ctx) => {
      const job = requireJob(vars.job);
      const signal = ctx.mcpReq.signal;
      let run: ReportRun | undefined;
      try {
        run = await ops.reportRun(job, signal);
        if (run.status !== "COMPLETED") throw notReadable(uri.href, run);
        const csv = await ops.reportCsv(job, signal);
        const known = run;
        if (csv.size !== undefined && csv.size > MAX_REPORT_BYTES) {
          csv.stream.destroy();
          throw tooLarge(uri.href, known, csv.size);
        }
        const bytes = await readCapped(csv.stream, MAX_REPORT_BYTES, (seen) =>
          tooLarge(uri.href, known, seen, true),
        );
        // ignoreBOM: a byte-order mark the service wrote stays in the text, so the CSV is exactly the service's.
        const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
        return { contents: [{ uri: uri.href, mimeType: CSV_MIME, text }] };
      } catch (err) {
        if (isServiceError(err) && err.status === 410) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `The result of report run ${job} is no longer kept by the service; run the report again with the \`reports\` tool (action run)`,
            { uri: uri.href, reason: "expired" },
          );
        }
        // A 404 for the run itself: no such run (or a token of some other kind of job).
        if (isNotFound(err) && !run) {
          throw new ResourceNotFoundError(uri.href, `No report run has job handle ${job}; ${HOW_TO_FIND}`);
        }
        throw asResourceError(err, uri.href, `No result for report run ${job}; ${HOW_TO_FIND}`, log);
      }
    },
  );
};
