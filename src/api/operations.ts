import type { Readable } from "node:stream";
import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient, HttpResponse, Params } from "./http.js";
import { all, attr, childText, escapeXml, intText, one, rootOf, text, type XmlElement } from "./xml.js";

/**
 * Process Monitor (`/api/processmonitor`, JSON envelope), Workflow (`/sdb/rest/workflow`, XML in the
 * workflow namespace) and Report (`/api/reports`, JSON envelope) APIs. Thin typed methods; nothing
 * MCP-specific. Reads are lenient (missing fields stay undefined); requests are exact.
 */

const WF = "http://workflow.preservica.com";

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined =>
  typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : undefined;
const num = (v: unknown): number | undefined => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};
const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

// ---------------------------------------------------------------------------------------------------------
// Process Monitor

export type MonitorStatus = "Pending" | "Running" | "Succeeded" | "Failed" | "Suspended" | "Recoverable";
export type MonitorCategory = "Ingest" | "Export" | "DataManagement" | "Automated";

export interface Monitor {
  id: string;
  workflowInstanceId?: number;
  name: string;
  status: string;
  workflowState?: string;
  started?: string;
  completed?: string;
  updated?: string;
  category?: string;
  subcategory?: string;
  progressText?: string;
  percentComplete?: number;
  filesProcessed?: number;
  filesPending?: number;
  size?: number;
  warnings?: number;
  errors?: number;
  user?: string;
}

export interface MonitorMessage {
  id: string;
  status: string;
  date?: string;
  message: string;
  path?: string;
  entityRef?: string;
  entityType?: string;
  entityTitle?: string;
}

export interface HistoryDay {
  date: string;
  started: number;
  succeeded: number;
  failed: number;
  aborted: number;
  filesProcessed: number;
  bytes: number;
}

export interface ProcessHistory {
  from: string;
  to: string;
  days: HistoryDay[];
  totals: Omit<HistoryDay, "date">;
}

function readMonitor(m: Json): Monitor {
  const optional = {
    workflowInstanceId: num(m.workflowInstanceId),
    workflowState: str(m.workflowState),
    started: str(m.started),
    completed: str(m.completed),
    updated: str(m.updated),
    category: str(m.category),
    subcategory: str(m.subcategory),
    progressText: str(m.progressText),
    percentComplete: num(m.percentComplete),
    filesProcessed: num(m.filesProcessed),
    filesPending: num(m.filesPending),
    size: num(m.size),
    warnings: num(m.warnings),
    errors: num(m.errors),
    user: str(m.user),
  };
  return {
    id: str(m.mappedId) ?? "",
    name: str(m.name) ?? "",
    status: str(m.status) ?? "Unknown",
    ...definedOnly(optional),
  };
}

/** The fields that have a value: answers leave out what the service did not say, rather than carry undefined. */
function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function readMessage(m: Json): MonitorMessage {
  const optional = {
    date: str(m.date),
    path: str(m.path),
    entityRef: str(m.entityRef),
    entityType: str(m.entityType),
    entityTitle: str(m.entityTitle),
  };
  return {
    id: str(m.mappedId) ?? "",
    status: str(m.status) ?? "Info",
    message: str(m.displayMessage) ?? str(m.message) ?? "",
    ...definedOnly(optional),
  };
}

function readDay(d: Json): Omit<HistoryDay, "date"> {
  return {
    started: num(d.started) ?? 0,
    succeeded: num(d.succeeded) ?? 0,
    failed: num(d.failed) ?? 0,
    aborted: num(d.aborted) ?? 0,
    filesProcessed: num(d.filesProcessed) ?? 0,
    bytes: num(d.bytes) ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Workflow

export type WorkflowType = "Ingest" | "Access" | "Transformation" | "DataManagement";

export interface WorkflowInstance {
  id: string;
  state: string;
  displayState?: string;
  type?: string;
  contextId?: string;
  contextName?: string;
  definition?: string;
  creator?: string;
  started?: string;
  finished?: string;
  lastUpdated?: string;
  /** The progress token (ArchivalProcessId): the job handle. */
  token?: string;
  correlationId?: string;
  entity?: { ref: string; type?: string; title?: string };
  progress?: { total?: number; done?: number; failed?: number; percent?: number };
  message?: string;
  errors?: { message: string; entityRef?: string; item?: number }[];
  parameters?: Record<string, string>;
  outputs?: Record<string, string>;
}

export interface InstanceFilter {
  type?: WorkflowType;
  state?: string;
  contextId?: string;
  creator?: string;
  /** ISO 8601 instants. */
  from?: string;
  to?: string;
  start?: number;
  max?: number;
  signal?: AbortSignal;
}

export interface WorkflowContext {
  id: string;
  name: string;
  description?: string;
  definition?: string;
  type?: string;
  startable: boolean;
  startedBy?: string;
}

export interface InstanceChange {
  id: string;
  state: string;
  changed: boolean;
  note?: string;
}

function params(el: XmlElement | undefined): Record<string, string> | undefined {
  if (!el) return undefined;
  const out: Record<string, string> = {};
  for (const p of all(el, "Parameter")) {
    const k = childText(p, "Key");
    if (k) out[k] = childText(p, "Value") ?? "";
  }
  return out;
}

function readInstance(el: XmlElement): WorkflowInstance {
  const entityEl = one(el, "Entity");
  const prog = one(el, "Progress");
  const errs = one(el, "Errors");
  const inputs = params(one(el, "InputParameters"));
  const outputs = params(one(el, "OutputParameters"));
  const opt: Partial<WorkflowInstance> = {
    displayState: childText(el, "DisplayState"),
    type: childText(el, "Type"),
    contextId: childText(el, "WorkflowContextId"),
    contextName: childText(el, "WorkflowContextName"),
    definition: childText(el, "WorkflowDefinitionTextId"),
    creator: childText(el, "Creator"),
    started: childText(el, "Started") ?? childText(el, "StartDate"),
    finished: childText(el, "Finished") ?? childText(el, "FinishDate"),
    lastUpdated: childText(el, "LastUpdated"),
    token: childText(el, "ArchivalProcessId") ?? childText(el, "ProgressToken"),
    correlationId: childText(el, "CorrelationId"),
    message: childText(el, "Message"),
  };
  const out: WorkflowInstance = {
    id: childText(el, "Id") ?? "",
    state: childText(el, "State") ?? "Unknown",
    ...(Object.fromEntries(
      Object.entries(opt).filter(([, v]) => v !== undefined),
    ) as Partial<WorkflowInstance>),
  };
  const ref = attr(entityEl, "ref");
  if (ref) {
    const title = text(entityEl);
    const type = attr(entityEl, "type");
    out.entity = { ref, ...(type ? { type } : {}), ...(title ? { title } : {}) };
  }
  if (prog) {
    const p = {
      total: intText(one(prog, "Total")),
      done: intText(one(prog, "Done")),
      failed: intText(one(prog, "Failed")),
      percent: intText(one(prog, "PercentComplete")),
    };
    out.progress = definedOnly(p);
  }
  if (errs) {
    out.errors = all(errs, "Error").map((e) => {
      const entityRef = attr(e, "entityRef");
      const item = Number(attr(e, "item"));
      return {
        message: text(e) ?? "",
        ...(entityRef ? { entityRef } : {}),
        ...(Number.isFinite(item) && attr(e, "item") ? { item } : {}),
      };
    });
  }
  if (inputs) out.parameters = inputs;
  if (outputs) out.outputs = outputs;
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Reports

export interface ReportColumn {
  name: string;
  title?: string;
  type?: string;
}

export interface ReportDefinition {
  id: string;
  name: string;
  description?: string;
  parameters: { name: string; type?: string; required: boolean; description?: string }[];
  columns: ReportColumn[];
}

export interface ReportRun {
  token: string;
  report: string;
  reportName?: string;
  username?: string;
  parameters: Record<string, string>;
  status: string;
  percentage?: number;
  rowCount?: number;
  message?: string;
  created?: string;
  completed?: string;
}

export interface ReportResult {
  token: string;
  report: string;
  name?: string;
  parameters: Record<string, string>;
  runBy?: string;
  securityTags: string[];
  columns: ReportColumn[];
  rows: Record<string, unknown>[];
  rowCount: number;
  completed?: string;
}

function readColumn(c: unknown): ReportColumn {
  const o = obj(c) ?? {};
  const title = str(o.title);
  const type = str(o.type);
  return { name: str(o.name) ?? "", ...(title ? { title } : {}), ...(type ? { type } : {}) };
}

function strings(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v) ?? {})) if (x !== null && x !== undefined) out[k] = String(x);
  return out;
}

function readRun(o: Json): ReportRun {
  const opt = {
    reportName: str(o.reportName),
    username: str(o.username),
    percentage: num(o.percentage),
    rowCount: num(o.rowCount),
    message: str(o.message),
    created: str(o.created),
    completed: str(o.completed),
  };
  return {
    token: str(o.progressToken) ?? "",
    report: str(o.report) ?? "",
    parameters: strings(o.parameters),
    status: str(o.status) ?? "UNKNOWN",
    ...definedOnly(opt),
  };
}

// ---------------------------------------------------------------------------------------------------------

/** A JSON list answer's items, read one by one, and its total (the paging's, else how many came). */
function paged<T>(value: Json, key: string, read: (o: Json) => T): { total: number; items: T[] } {
  const items = arr(value[key]).map((x) => read(obj(x) ?? {}));
  return { total: num(obj(value.paging)?.totalResults) ?? items.length, items };
}

/** A reply whose body is not the kind the operation reads. */
function unexpected(
  res: HttpResponse,
  operation: string,
  method: "GET" | "POST" | undefined,
  path: string,
  detail: string,
): UnexpectedResponseError {
  return new UnexpectedResponseError({
    status: res.status,
    operation,
    method: method ?? "GET",
    path,
    detail,
  });
}

export class OperationsApi {
  constructor(private readonly http: HttpClient) {}

  /** `value` of a `{success, version, value}` envelope (or the body itself when it has none). */
  private async json(
    operation: string,
    path: string,
    query?: Params,
    signal?: AbortSignal,
    extra: { method?: "GET" | "POST"; body?: string; idempotent?: boolean } = {},
  ): Promise<{ value: Json; res: HttpResponse }> {
    const res = await this.http.request({
      method: extra.method ?? "GET",
      path,
      query,
      accept: "application/json",
      operation,
      signal,
      ...(extra.body !== undefined
        ? { body: extra.body, headers: { "content-type": "application/json" } }
        : {}),
      ...(extra.idempotent !== undefined ? { idempotent: extra.idempotent } : {}),
    });
    const body = obj(res.data);
    const value = body && "value" in body ? obj(body.value) : body;
    if (!value) throw unexpected(res, operation, extra.method, path, "expected a JSON object");
    return { value, res };
  }

  private async xml(
    operation: string,
    path: string,
    query: Params | undefined,
    signal: AbortSignal | undefined,
    extra: { method?: "GET" | "POST"; body?: string } = {},
  ): Promise<{ root: XmlElement; res: HttpResponse }> {
    const res = await this.http.request({
      method: extra.method ?? "GET",
      path,
      query,
      accept: "application/xml",
      operation,
      signal,
      ...(extra.method === "POST" ? { idempotent: false } : {}),
      ...(extra.body !== undefined
        ? { body: extra.body, headers: { "content-type": "application/xml;charset=UTF-8" } }
        : {}),
    });
    const data = obj(res.data);
    if (!data) throw unexpected(res, operation, extra.method, path, "expected an XML document");
    return { root: rootOf(data as XmlElement).el, res };
  }

  // ----- Process Monitor

  /** Monitors, newest first; abandoned (terminated, cancelled) ones only when asked. */
  async monitors(
    opts: {
      status?: MonitorStatus;
      category?: MonitorCategory;
      includeAbandoned?: boolean;
      start?: number;
      max?: number;
      signal?: AbortSignal;
    } = {},
  ): Promise<{ total: number; monitors: Monitor[] }> {
    const { value } = await this.json(
      "processmonitor.monitors",
      "/api/processmonitor/monitors",
      {
        status: opts.status,
        category: opts.category,
        includeAbandoned: opts.includeAbandoned ? "true" : undefined,
        start: opts.start,
        max: opts.max,
      },
      opts.signal,
    );
    const { total, items: monitors } = paged(value, "monitors", readMonitor);
    return { total, monitors };
  }

  /** One monitor by its mappedId (the progress token) or workflow instance id. */
  async monitor(id: string, signal?: AbortSignal): Promise<Monitor> {
    const { value } = await this.json(
      "processmonitor.monitor",
      `/api/processmonitor/monitors/${encodeURIComponent(id)}`,
      undefined,
      signal,
    );
    return readMonitor(obj(value.monitor) ?? value);
  }

  /** A monitor's messages in order (items, then its closing message), optionally of one status. */
  async messages(
    monitor: string,
    opts: { status?: "Info" | "Warning" | "Error"; start?: number; max?: number; signal?: AbortSignal } = {},
  ): Promise<{ total: number; messages: MonitorMessage[] }> {
    const { value } = await this.json(
      "processmonitor.messages",
      "/api/processmonitor/messages",
      { monitor, status: opts.status, start: opts.start ?? 0, max: opts.max ?? 25 },
      opts.signal,
    );
    const { total, items: messages } = paged(value, "messages", readMessage);
    return { total, messages };
  }

  /** Processes day by day (UTC): started, succeeded, failed, aborted, files, bytes. Dates `YYYY-MM-DD`. */
  async history(
    opts: { from?: string; to?: string; category?: MonitorCategory; signal?: AbortSignal } = {},
  ): Promise<ProcessHistory> {
    const { value } = await this.json(
      "processmonitor.history",
      "/api/processmonitor/history",
      { from: opts.from, to: opts.to, category: opts.category },
      opts.signal,
    );
    const days = arr(value.days).map((d) => {
      const o = obj(d) ?? {};
      return { date: str(o.date) ?? "", ...readDay(o) };
    });
    return {
      from: str(value.from) ?? days[0]?.date ?? "",
      to: str(value.to) ?? days.at(-1)?.date ?? "",
      days,
      totals: readDay(obj(value.totals) ?? {}),
    };
  }

  // ----- Workflow

  /** Instances, oldest first (by Id) as the service pages them. */
  async instances(
    f: InstanceFilter = {},
  ): Promise<{ total: number; start: number; instances: WorkflowInstance[] }> {
    const { root } = await this.xml(
      "workflow.instances",
      "/sdb/rest/workflow/instances",
      {
        type: f.type,
        state: f.state,
        contextId: f.contextId,
        creator: f.creator,
        from: f.from ? wireDate(f.from) : undefined,
        to: f.to ? wireDate(f.to) : undefined,
        start: f.start,
        max: f.max,
      },
      f.signal,
    );
    const instances = all(root, "WorkflowInstance").map(readInstance);
    return {
      total: intText(one(root, "TotalCount")) ?? instances.length,
      start: intText(one(root, "Start")) ?? f.start ?? 0,
      instances,
    };
  }

  /** One instance (by Id or progress token), with its failed items and, for managers, its parameters. */
  async instance(
    id: string,
    opts: { errors?: boolean; parameters?: boolean; signal?: AbortSignal } = {},
  ): Promise<WorkflowInstance> {
    const { root } = await this.xml(
      "workflow.instance",
      `/sdb/rest/workflow/instances/${encodeURIComponent(id)}`,
      {
        includeErrors: opts.errors ? "true" : undefined,
        includeParameters: opts.parameters ? "true" : undefined,
      },
      opts.signal,
    );
    return readInstance(root);
  }

  async contexts(opts: { type?: WorkflowType; signal?: AbortSignal } = {}): Promise<WorkflowContext[]> {
    const { root } = await this.xml(
      "workflow.contexts",
      "/sdb/rest/workflow/contexts",
      { type: opts.type },
      opts.signal,
    );
    return all(root, "WorkflowContext").map((c) => {
      const o = {
        description: childText(c, "Description"),
        definition: childText(c, "WorkflowDefinitionTextId"),
        type: childText(c, "Type"),
        startedBy: childText(c, "StartedBy"),
      };
      return {
        id: childText(c, "Id") ?? "",
        name: childText(c, "Name") ?? "",
        startable: childText(c, "Startable")?.toLowerCase() === "true",
        ...(definedOnly(o) as Partial<WorkflowContext>),
      };
    });
  }

  /** Starts a context (named by id and/or name); answers the new instance and its progress token. */
  async start(req: {
    contextId?: string;
    contextName?: string;
    parameters: Record<string, string>;
    correlationId?: string;
    signal?: AbortSignal;
  }): Promise<{ instance: WorkflowInstance; token?: string }> {
    const body = [
      `<StartWorkflowRequest xmlns="${WF}">`,
      req.contextId !== undefined ? `<WorkflowContextId>${escapeXml(req.contextId)}</WorkflowContextId>` : "",
      req.contextName !== undefined
        ? `<WorkflowContextName>${escapeXml(req.contextName)}</WorkflowContextName>`
        : "",
      ...Object.entries(req.parameters).map(
        ([k, v]) => `<Parameter><Key>${escapeXml(k)}</Key><Value>${escapeXml(v)}</Value></Parameter>`,
      ),
      req.correlationId ? `<CorrelationId>${escapeXml(req.correlationId)}</CorrelationId>` : "",
      "</StartWorkflowRequest>",
    ].join("");
    const { root, res } = await this.xml(
      "workflow.start",
      "/sdb/rest/workflow/instances",
      undefined,
      req.signal,
      { method: "POST", body },
    );
    const instance = readInstance(root);
    const token = res.headers["preservica-progress-token"] || instance.token;
    return { instance, ...(token ? { token } : {}) };
  }

  /** Terminate, stop (suspend) or resume instances; every id is checked before anything changes. */
  async change(
    what: "terminate" | "stop" | "resume",
    ids: readonly string[],
    signal?: AbortSignal,
  ): Promise<InstanceChange[]> {
    const { root } = await this.xml(
      `workflow.${what}`,
      `/sdb/rest/workflow/instances/${what}`,
      { workflowInstanceIds: ids.join(",") },
      signal,
      { method: "POST" },
    );
    return all(root, "WorkflowInstanceChange").map((c) => {
      const note = childText(c, "Note");
      return {
        id: childText(c, "WorkflowInstanceId") ?? "",
        state: childText(c, "WorkflowState") ?? "Unknown",
        changed: childText(c, "Changed")?.toLowerCase() === "true",
        ...(note ? { note } : {}),
      };
    });
  }

  // ----- Reports

  async reports(signal?: AbortSignal): Promise<ReportDefinition[]> {
    const { value } = await this.json("reports.list", "/api/reports", undefined, signal);
    return arr(value.reports).map((r) => {
      const o = obj(r) ?? {};
      const description = str(o.description);
      return {
        id: str(o.id) ?? "",
        name: str(o.name) ?? str(o.id) ?? "",
        ...(description ? { description } : {}),
        parameters: arr(o.parameters).map((p) => {
          const q = obj(p) ?? {};
          const type = str(q.type);
          const d = str(q.description);
          return {
            name: str(q.name) ?? "",
            required: q.required === true,
            ...(type ? { type } : {}),
            ...(d ? { description: d } : {}),
          };
        }),
        columns: arr(o.columns).map(readColumn),
      };
    });
  }

  /** Starts a run; the progress token is the job handle. */
  async runReport(id: string, parameters: Record<string, string>, signal?: AbortSignal): Promise<ReportRun> {
    const { value } = await this.json(
      "reports.run",
      `/api/reports/${encodeURIComponent(id)}/run`,
      undefined,
      signal,
      { method: "POST", body: JSON.stringify(parameters), idempotent: false },
    );
    return readRun(value);
  }

  async reportRun(token: string, signal?: AbortSignal): Promise<ReportRun> {
    const { value } = await this.json(
      "reports.progress",
      `/api/reports/progress/${encodeURIComponent(token)}`,
      undefined,
      signal,
    );
    return readRun(value);
  }

  /** Runs, newest first: the caller's own (managers: everyone's). */
  async reportRuns(
    opts: { status?: string; report?: string; start?: number; max?: number; signal?: AbortSignal } = {},
  ): Promise<{ total: number; runs: ReportRun[] }> {
    const { value } = await this.json(
      "reports.runs",
      "/api/reports/actions/reports",
      { status: opts.status, report: opts.report, start: opts.start, max: opts.max },
      opts.signal,
    );
    const { total, items: runs } = paged(value, "runs", readRun);
    return { total, runs };
  }

  /** A finished run's result (JSON), read into memory up to the client's parse limit. */
  async reportResult(token: string, signal?: AbortSignal): Promise<ReportResult> {
    const { value } = await this.json(
      "reports.result",
      `/api/reports/results/${encodeURIComponent(token)}`,
      { format: "json" },
      signal,
    );
    const rows = arr(value.rows).map((r) => obj(r) ?? {});
    const completed = str(value.completed);
    const name = str(value.name);
    const runBy = str(value.runBy);
    return {
      token: str(value.progressToken) ?? token,
      report: str(value.report) ?? "",
      parameters: strings(value.parameters),
      securityTags: arr(value.securityTags).map(String),
      columns: arr(value.columns).map(readColumn),
      rows,
      rowCount: num(value.rowCount) ?? rows.length,
      ...(name ? { name } : {}),
      ...(runBy ? { runBy } : {}),
      ...(completed ? { completed } : {}),
    };
  }

  /**
   * A finished run's result as the service's own CSV, unread: the stream, its length when the service
   * says it (Content-Length) and its content type. The caller reads it (up to its own cap) or destroys it.
   */
  async reportCsv(token: string, signal?: AbortSignal): Promise<ReportCsv> {
    const res = await this.http.request<Readable>({
      path: `/api/reports/results/${encodeURIComponent(token)}`,
      query: { format: "csv" },
      accept: "text/csv, */*;q=0.5",
      operation: "reports.resultCsv",
      responseType: "stream",
      signal,
    });
    const length = res.headers["content-length"];
    const contentType = res.headers["content-type"];
    return {
      stream: res.data,
      ...(length && /^\d+$/.test(length) ? { size: Number(length) } : {}),
      ...(contentType ? { contentType } : {}),
    };
  }
}

export interface ReportCsv {
  stream: Readable;
  /** Bytes, when the service sent a Content-Length. */
  size?: number;
  contentType?: string;
}

/** An ISO instant as the workflow API's clients send it: `2026-11-22T21:08:37.000000+0000`. */
export function wireDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 23)}000+0000`;
}
