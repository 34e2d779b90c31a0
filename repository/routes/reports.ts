import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { isUuid, requestParams } from "../http/params.js";
import { REPORT_KIND } from "../jobs/report.js";
import { startAction } from "../jobs/start.js";
import { findReport, REPORTS, reportIds } from "../reports/catalogue.js";
import { OUTPUT_FORMATS, type OutputFormat, type Report } from "../reports/definitions.js";
import type { ReportRunParams } from "../reports/execute.js";
import { checkParameters } from "../reports/parameters.js";
import { finishedResult } from "../reports/results.js";
import { liveFolder } from "../reports/scope.js";
import { ACTION_STATUSES, type ActionRow, getAction } from "../store/actions/read.js";
import { Permission } from "../store/auth.js";
import { reportRunsPage } from "../store/reports/read.js";
import { contentDisposition } from "./byte-range.js";
import { ownerFilter, pagingOf, queryOnce, requireVisible } from "./operations-common.js";

/**
 * The Report API (`/api/reports`, JSON in the envelope `{success, version, value}` like the Content
 * API): the reports the service runs, a run started asynchronously (its progress token is an action's,
 * so the run also shows at /api/entity/progress/{token} and /api/entity/actions/reports), its progress,
 * the listing of runs, and the result as JSON or CSV, streamed from its file.
 *
 * Every route needs a token. Anyone signed in may list the reports and run one; a report counts only
 * what the user who runs it may read (Read Metadata on the security tag). A run's progress, listing entry
 * and result belong to the user who asked for it; managers and administrators see everyone's.
 */

type Ctx = Context<AppEnv>;

const PROGRESS_TOKEN_HEADER = "Preservica-Progress-Token";
const DEFAULT_PAGE_SIZE = 50;
const FINAL_FAILURES = new Set(["FAILED", "CANCELLED", "ABORTED"]);

export function reportRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);

  app.get("/", (c) =>
    ok(c, {
      reports: REPORTS.map((r) => definitionJson(c, r)),
      outputFormats: OUTPUT_FORMATS,
    }),
  );
  // Fixed paths before /{id}, which would otherwise take "progress", "actions" and "results".
  app.get("/progress/:token", (c) => ok(c, runJson(c, visibleRun(c, c.req.param("token")))));
  app.get("/actions/reports", listRuns);
  app.get("/results/:token", result);
  app.get("/:id", (c) => ok(c, definitionJson(c, knownReport(c.req.param("id")))));
  app.post("/:id/run", startRun);
  return app;
}

function ok(c: Ctx, value: unknown, status: ContentfulStatusCode = 200, headers?: Record<string, string>) {
  return c.json({ success: true, version: 1, value }, status, headers);
}

function base(c: Ctx): string {
  return `${new URL(c.req.url).origin}/api/reports`;
}

function knownReport(id: string): Report {
  const report = findReport(id);
  if (!report) {
    throw new HTTPException(404, {
      message: `No report "${id.slice(0, 80)}"; the reports are ${reportIds().join(", ")} (GET /api/reports describes them)`,
    });
  }
  return report;
}

function definitionJson(c: Ctx, r: Report) {
  const d = r.definition;
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    parameters: d.parameters.map((p) => ({
      name: p.name,
      type: p.type,
      required: p.required,
      description: p.description,
      ...(p.default ? { default: p.default } : {}),
    })),
    columns: d.columns,
    outputFormats: OUTPUT_FORMATS,
    run: `${base(c)}/${d.id}/run`,
  };
}

/** POST /{id}/run: checks everything, then starts the run; 202 with its progress token. */
async function startRun(c: Ctx): Promise<Response> {
  const report = knownReport(c.req.param("id") ?? "");
  const parameters = checkParameters(report.definition, await requestParams(c, { json: true }));
  const { db } = c.get("svc");
  const { permissions } = c.get("caller");
  const folderRef = parameters.folder;
  if (folderRef) {
    const folder = liveFolder(db, folderRef);
    if (!folder) {
      throw new HTTPException(404, {
        message: `No folder ${folderRef} (it does not exist, is not a folder, or is in the recycle bin); give the reference of a folder (structural object)`,
      });
    }
    if (!permissions.permits(folder.security_tag, Permission.READ_METADATA)) {
      throw new HTTPException(403, {
        message: `You may not read folder ${folderRef} (security tag ${folder.security_tag}), so no report can be run on it`,
      });
    }
  }
  const params: ReportRunParams = { report: report.definition.id, parameters };
  const action = startAction(c, {
    kind: REPORT_KIND,
    entityRef: folderRef ?? null,
    entityType: folderRef ? "SO" : null,
    params,
  });
  return ok(c, runJson(c, action), 202, { [PROGRESS_TOKEN_HEADER]: action.id });
}

/** The run a token names, when the caller may see it: 400 malformed, 404 unknown or not a report, 403 someone else's. */
function visibleRun(c: Ctx, raw: string | undefined): ActionRow {
  const token = (raw ?? "").trim();
  if (!isUuid(token)) {
    throw new HTTPException(400, {
      message: `"${token.slice(0, 80)}" is not a progress token; tokens look like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f and are returned by POST /api/reports/{id}/run`,
    });
  }
  const a = getAction(c.get("svc").db, token.toLowerCase());
  if (!a) {
    throw new HTTPException(404, {
      message: `No report run with progress token ${token}; tokens are returned by POST /api/reports/{id}/run`,
    });
  }
  if (a.kind !== REPORT_KIND) {
    throw new HTTPException(404, {
      message: `Progress token ${a.id} belongs to a ${a.kind} action, not a report run; poll it at /api/entity/progress/${a.id}`,
    });
  }
  requireVisible(c, a.username, `Report run ${a.id}`);
  return a;
}

function runParams(a: ActionRow): ReportRunParams {
  try {
    return JSON.parse(a.params) as ReportRunParams;
  } catch {
    return { report: "", parameters: {} };
  }
}

function percentage(a: ActionRow): number {
  if (a.completed) return 100;
  if (a.total <= 0) return 0;
  return Math.min(99, Math.floor(((a.done + a.failed) * 100) / a.total));
}

function runJson(c: Ctx, a: ActionRow) {
  const p = runParams(a);
  const results = `${base(c)}/results/${a.id}`;
  return {
    progressToken: a.id,
    report: p.report,
    reportName: findReport(p.report)?.definition.name ?? p.report,
    username: a.username,
    parameters: p.parameters,
    status: a.status,
    percentage: percentage(a),
    rowCount: p.result?.rowCount ?? null,
    message: a.message,
    created: a.created,
    updated: a.updated,
    completed: a.completed,
    progress: `${base(c)}/progress/${a.id}`,
    results: { json: `${results}?format=json`, csv: `${results}?format=csv` },
  };
}

/** GET /actions/reports: runs newest first; a user's own, or everyone's for managers and administrators. */
function listRuns(c: Ctx): Response {
  const status = queryOnce(c, "status")?.toUpperCase() ?? null;
  if (status && !(ACTION_STATUSES as readonly string[]).includes(status)) {
    throw new HTTPException(400, {
      message: `Parameter status must be one of ${ACTION_STATUSES.join(", ")}, got "${status.slice(0, 40)}"`,
    });
  }
  const report = queryOnce(c, "report") ?? null;
  if (report && !findReport(report)) {
    throw new HTTPException(400, {
      message: `Parameter report must be one of ${reportIds().join(", ")}, got "${report.slice(0, 80)}"`,
    });
  }
  const only = ownerFilter(c);
  const asked = queryOnce(c, "username") ?? null;
  if (asked && only !== null && asked !== only) {
    throw new HTTPException(403, {
      message: `Only managers and administrators may list other users' report runs; leave out username to list yours (${only})`,
    });
  }
  const { start, max } = pagingOf(c, DEFAULT_PAGE_SIZE);
  const page = reportRunsPage(c.get("svc").db, { status, report, username: only ?? asked }, start, max);
  return ok(c, {
    runs: page.items.map((a) => runJson(c, a)),
    paging: { start, max, totalResults: page.total },
  });
}

/** GET /results/{token}?format=json|csv: the result file, streamed (JSON inside the envelope). */
function result(c: Ctx): Response {
  const raw = queryOnce(c, "format")?.toLowerCase() ?? "json";
  if (!(OUTPUT_FORMATS as readonly string[]).includes(raw)) {
    throw new HTTPException(400, {
      message: `Parameter format must be one of ${OUTPUT_FORMATS.join(", ")}, got "${raw.slice(0, 40)}"`,
    });
  }
  const format = raw as OutputFormat;
  const a = visibleRun(c, c.req.param("token"));
  if (FINAL_FAILURES.has(a.status)) {
    throw new HTTPException(409, {
      message: `Report run ${a.id} ended ${a.status}${a.message ? `: ${a.message}` : ""}; it has no result. Run the report again`,
    });
  }
  if (a.status !== "COMPLETED") {
    throw new HTTPException(404, {
      message: `Report run ${a.id} has no result yet (status ${a.status}, ${percentage(a)}% done); poll /api/reports/progress/${a.id} until it is COMPLETED`,
    });
  }
  const file = finishedResult(c.get("svc").dataDir, a.id, format);
  if (!file) {
    throw new HTTPException(410, {
      message: `The result of report run ${a.id} is no longer kept on this service; run the report again`,
    });
  }
  const report = runParams(a).report || "report";
  if (format === "csv") {
    return new Response(
      Readable.toWeb(createReadStream(file.path)) as unknown as ReadableStream<Uint8Array>,
      {
        status: 200,
        headers: {
          "Content-Type": "text/csv;charset=UTF-8",
          "Content-Length": String(file.size),
          "Content-Disposition": contentDisposition(`${report}-${a.id}.csv`),
        },
      },
    );
  }
  const head = Buffer.from('{"success":true,"version":1,"value":');
  const tail = Buffer.from("}");
  const path = file.path;
  async function* body() {
    yield head;
    for await (const chunk of createReadStream(path)) yield chunk as Buffer;
    yield tail;
  }
  return new Response(Readable.toWeb(Readable.from(body())) as unknown as ReadableStream<Uint8Array>, {
    status: 200,
    headers: {
      "Content-Type": "application/json;charset=UTF-8",
      "Content-Length": String(head.length + file.size + tail.length),
    },
  });
}
