import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { utcInstant } from "../http/dates.js";
import { isUuid } from "../http/params.js";
import {
  ABANDONED_STATUSES,
  closingMessageStatus,
  MESSAGE_STATUS_OF_OUTCOME,
  MESSAGE_STATUSES,
  MONITOR_CATEGORIES,
  MONITOR_STATUSES,
  monitorStatus,
  outcomeOfMessageStatus,
  statusesOfMonitorStatus,
  workflowState,
} from "../operations/states.js";
import { ACTION_STATUSES, getAction } from "../store/actions/read.js";
import {
  entityAncestry,
  failedItems,
  finishedPerDay,
  type MessageRow,
  messagesPage,
  progressSteps,
  startedPerDay,
} from "../store/monitor/read.js";
import { anyEntity } from "../store/recycle-bin/read.js";
import {
  findInstance,
  findInstanceByAction,
  type InstanceRow,
  instancesPage,
  skippedCount,
} from "../store/workflows/read.js";
import { progressDocument } from "../xml/action-docs.js";
import {
  mayReadTag,
  type OpsContext,
  oneOf,
  ownerFilter,
  pagingOf,
  queryOnce,
  requireVisible,
} from "./operations-common.js";

/**
 * The Process Monitor API (`/api/processmonitor`, JSON in the envelope `{success, version, value}`).
 * A monitor is a long-running action (its `mappedId` is the action's progress token); its messages are
 * what the action recorded item by item, then its own closing message; its timeseries is its progress
 * batch by batch. The history counts processes day by day. Anyone signed in may read; managers and
 * administrators see every process, other users the ones they started (as in the Entity API's
 * action listings). Entity titles and paths are shown only where the caller may read the entity.
 */
export function processMonitorRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/monitors", listMonitors);
  app.get("/monitors/:id", (c) => ok(c, { monitor: monitorJson(c, knownMonitor(c, c.req.param("id"))) }));
  app.get("/monitors/:id/timeseries", (c) => {
    const r = knownMonitor(c, c.req.param("id"));
    return ok(c, { mappedId: r.id, timeseries: timeseries(c, r) });
  });
  app.get("/messages", listMessages);
  app.get("/history", history);
  app.get("/progress/:id", (c) => {
    const raw = c.req.param("id");
    const a = isUuid(raw) ? getAction(c.get("svc").db, raw.toLowerCase()) : undefined;
    if (!a) {
      throw new HTTPException(404, {
        message: `No process with progress token "${raw.slice(0, 80)}"; tokens are returned by the request that started the process`,
      });
    }
    return c.body(progressDocument(a, failedItems(c.get("svc").db, a.id)), 200, {
      "Content-Type": "application/xml;charset=UTF-8",
    });
  });
  return app;
}

export const MONITOR_API_PATH = "/api/processmonitor";
const API_VERSION = 1;

function ok(c: OpsContext, value: unknown): Response {
  return c.json({ success: true, version: API_VERSION, value });
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

// ---------------------------------------------------------------------------------------------------
// Monitors

function listMonitors(c: OpsContext): Response {
  const statusRaw = queryOnce(c, "status");
  const categoryRaw = queryOnce(c, "category");
  const subcategory = queryOnce(c, "subcategory");
  const includeAbandoned = (queryOnce(c, "includeAbandoned") ?? "").toLowerCase() === "true";
  const status = statusRaw === undefined ? null : oneOf(MONITOR_STATUSES, statusRaw, "status");
  const base = status ? statusesOfMonitorStatus(status) : [...ACTION_STATUSES];
  const statuses = includeAbandoned ? base : base.filter((s) => !ABANDONED_STATUSES.includes(s));
  const { start, max } = pagingOf(c, 1000);
  const page = instancesPage(
    c.get("svc").db,
    {
      statuses,
      category: categoryRaw === undefined ? null : oneOf(MONITOR_CATEGORIES, categoryRaw, "category"),
      subcategory: subcategory === undefined ? null : subcategory.toUpperCase(),
      owner: ownerFilter(c),
    },
    start,
    max,
    true,
  );
  return ok(c, {
    paging: pagingJson(start, max, page.total),
    monitors: page.items.map((r) => monitorJson(c, r)),
  });
}

/** A monitor by its mappedId (the progress token) or its workflow instance id. */
function knownMonitor(c: OpsContext, raw: string | undefined): InstanceRow {
  const { db } = c.get("svc");
  const id = (raw ?? "").trim();
  const r = isUuid(id)
    ? findInstanceByAction(db, id.toLowerCase())
    : /^[1-9]\d{0,11}$/.test(id)
      ? findInstance(db, Number(id))
      : undefined;
  if (!r) {
    throw new HTTPException(404, {
      message: `No process monitor "${id.slice(0, 80)}"; GET ${MONITOR_API_PATH}/monitors lists them (use a monitor's mappedId)`,
    });
  }
  requireVisible(c, r.username, `Process ${r.id}`);
  return r;
}

function percentComplete(r: InstanceRow): number {
  if (r.completed) return 100;
  if (r.total <= 0) return 0;
  return Math.min(99, Math.floor(((r.done + r.failed) * 100) / r.total));
}

/** What a monitor is about: the entity (title when readable), else what its parameters name. */
function subjectOf(c: OpsContext, r: InstanceRow): string | null {
  if (r.entity_ref) {
    const e = anyEntity(c.get("svc").db, r.entity_ref);
    return e && mayReadTag(c, e.security_tag) ? `${e.title} (${r.entity_ref})` : r.entity_ref;
  }
  try {
    const p = JSON.parse(r.params) as Record<string, unknown>;
    for (const key of ["packageName", "filename", "name"]) {
      if (typeof p[key] === "string" && p[key]) return p[key] as string;
    }
    if ("folder" in p && p.folder === null) return "the whole repository";
  } catch {
    // Parameters are JSON; without a readable subject the monitor is named by its workflow alone.
  }
  return null;
}

function monitorJson(c: OpsContext, r: InstanceRow) {
  const subject = subjectOf(c, r);
  const processed = r.done + r.failed;
  return {
    mappedId: r.id,
    workflowInstanceId: r.seq,
    name: subject ? `${r.context_name}: ${subject}` : r.context_name,
    status: monitorStatus(r.status),
    workflowState: workflowState(r.status),
    started: r.created,
    completed: r.completed,
    updated: r.updated,
    category: r.category,
    subcategory: r.subcategory,
    progressText: r.message ?? `${processed} of ${r.total} processed`,
    percentComplete: percentComplete(r),
    filesPending: Math.max(0, r.total - processed),
    size: r.bytes,
    filesProcessed: processed,
    warnings: skippedCount(c.get("svc").db, r.id),
    errors: r.failed,
    canRetry: false,
    user: r.username,
  };
}

/** The monitor's progress: a point when it started, one per batch of items, one when it ended. */
function timeseries(c: OpsContext, r: InstanceRow) {
  const point = (timestamp: string, done: number, failed: number, skipped: number, final: boolean) => {
    const processed = done + failed;
    return {
      timestamp,
      filesProcessed: processed,
      filesPending: Math.max(0, r.total - processed),
      warnings: skipped,
      errors: failed,
      percentComplete: final ? 100 : r.total > 0 ? Math.min(99, Math.floor((processed * 100) / r.total)) : 0,
    };
  };
  const out = [point(r.created, 0, 0, 0, false)];
  let done = 0;
  let failed = 0;
  let skipped = 0;
  for (const s of progressSteps(c.get("svc").db, r.id)) {
    done += s.done;
    failed += s.failed;
    skipped += s.skipped;
    out.push(point(s.recorded, done + skipped, failed, skipped, false));
  }
  if (r.completed) out.push(point(r.completed, done + skipped, failed, skipped, true));
  // A long action recorded in many small batches: keep the series readable (at most ~1000 points,
  // always the first and the last).
  if (out.length <= 1000) return out;
  const step = Math.ceil(out.length / 1000);
  return out.filter((_, i) => i % step === 0 || i === out.length - 1);
}

// ---------------------------------------------------------------------------------------------------
// Messages

function pagingJson(start: number, max: number, total: number, next?: string) {
  return { totalResults: total, start, max, ...(next ? { next } : {}) };
}

function listMessages(c: OpsContext): Response {
  const monitorRaw = queryOnce(c, "monitor");
  if (!monitorRaw) {
    throw badRequest(
      `Parameter monitor is required: the mappedId of a monitor (GET ${MONITOR_API_PATH}/monitors lists them)`,
    );
  }
  const r = knownMonitor(c, monitorRaw);
  const statusRaw = queryOnce(c, "status");
  const status = statusRaw === undefined ? null : oneOf(MESSAGE_STATUSES, statusRaw, "status");
  const { start, max } = pagingOf(c, 25);
  const { db } = c.get("svc");
  const outcome = status ? outcomeOfMessageStatus(status) : null;
  const items = messagesPage(db, r.id, outcome, start, max);
  // The action's own message closes the list (why it failed, what it did in all).
  const closing = r.message !== null && (status === null || closingMessageStatus(r.status) === status);
  const total = items.total + (closing ? 1 : 0);
  const messages: object[] = items.items.map((m) => messageJson(c, r, m));
  if (closing && items.total >= start && items.total < start + max) messages.push(closingJson(r));
  let next: string | undefined;
  if (start + max < total) {
    const url = new URL(`${new URL(c.req.url).origin}${MONITOR_API_PATH}/messages`);
    url.searchParams.set("monitor", r.id);
    if (status) url.searchParams.set("status", status);
    url.searchParams.set("start", String(start + max));
    url.searchParams.set("max", String(max));
    next = url.toString();
  }
  return ok(c, { paging: pagingJson(start, max, total, next), messages });
}

function monitorName(r: InstanceRow): string {
  return r.context_name;
}

function messageJson(c: OpsContext, r: InstanceRow, m: MessageRow) {
  const readable = mayReadTag(c, m.security_tag);
  const path =
    m.entity_ref === null
      ? null
      : entityAncestry(c.get("svc").db, m.entity_ref)
          .map((a) => (mayReadTag(c, a.security_tag) ? a.title : a.ref))
          .join("/");
  const status = MESSAGE_STATUS_OF_OUTCOME[m.outcome];
  const text = m.message ?? (m.outcome === "done" ? "Done" : m.outcome === "skipped" ? "Skipped" : "Failed");
  return {
    mappedId: `${r.id}:${m.seq}`,
    mappedMonitorId: r.id,
    workflowInstanceId: r.seq,
    monitorName: monitorName(r),
    path,
    date: m.recorded ?? r.updated,
    status,
    displayMessage: readable && m.title ? `${m.title}: ${text}` : text,
    message: text,
    workflowName: r.context_name,
    ...(m.entity_ref ? { entityRef: m.entity_ref, entityType: m.entity_type } : {}),
    ...(readable ? { entityTitle: m.title, securityDescriptor: m.security_tag } : {}),
  };
}

function closingJson(r: InstanceRow) {
  return {
    mappedId: `${r.id}:end`,
    mappedMonitorId: r.id,
    workflowInstanceId: r.seq,
    monitorName: monitorName(r),
    path: null,
    date: r.completed ?? r.updated,
    status: closingMessageStatus(r.status),
    displayMessage: `${workflowState(r.status)}: ${r.message}`,
    message: r.message,
    workflowName: r.context_name,
  };
}

// ---------------------------------------------------------------------------------------------------
// History

/** Longest history one request returns, in days. */
const MAX_HISTORY_DAYS = 366;
const DAY_MS = 86_400_000;

function dayParam(c: OpsContext, name: string): string | null {
  const raw = queryOnce(c, name);
  if (raw === undefined) return null;
  const instant = utcInstant(raw.replace(/ (\d{2}:?\d{2})$/, "+$1"));
  if (!instant)
    throw badRequest(`Parameter ${name} must be a date such as 2026-11-22, got "${raw.slice(0, 60)}"`);
  return instant.slice(0, 10);
}

/**
 * Day by day (UTC), how many processes started, and how many ended: succeeded, failed (including those
 * that ended with some items failed) and aborted, with the files they processed and the bytes they
 * handled. Every day of the range is listed, quiet days with zeros.
 */
function history(c: OpsContext): Response {
  const today = nowIso(c).slice(0, 10);
  const to = dayParam(c, "to") ?? today;
  const from = dayParam(c, "from") ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
  const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY_MS) + 1;
  if (days < 1) throw badRequest(`Parameter from (${from}) is after to (${to})`);
  if (days > MAX_HISTORY_DAYS) {
    throw badRequest(
      `At most ${MAX_HISTORY_DAYS} days at once (${from} to ${to} is ${days}); ask for a shorter range`,
    );
  }
  const categoryRaw = queryOnce(c, "category");
  const category = categoryRaw === undefined ? null : oneOf(MONITOR_CATEGORIES, categoryRaw, "category");
  const until = new Date(Date.parse(to) + DAY_MS).toISOString().slice(0, 10);
  const filter = { from, until, category, owner: ownerFilter(c) };
  const { db } = c.get("svc");
  const byDay = new Map<string, ReturnType<typeof emptyDay>>();
  for (let i = 0; i < days; i++) {
    const date = new Date(Date.parse(from) + i * DAY_MS).toISOString().slice(0, 10);
    byDay.set(date, emptyDay(date));
  }
  for (const s of startedPerDay(db, filter)) {
    const d = byDay.get(s.day);
    if (d) d.started += s.n;
  }
  for (const f of finishedPerDay(db, filter)) {
    const d = byDay.get(f.day);
    if (!d) continue;
    if (f.status === "COMPLETED") d.succeeded += f.n;
    else if (ABANDONED_STATUSES.includes(f.status as (typeof ABANDONED_STATUSES)[number])) d.aborted += f.n;
    else d.failed += f.n;
    d.filesProcessed += f.files ?? 0;
    d.bytes += f.bytes ?? 0;
  }
  const list = [...byDay.values()];
  const totals = list.reduce(
    (t, d) => ({
      started: t.started + d.started,
      succeeded: t.succeeded + d.succeeded,
      failed: t.failed + d.failed,
      aborted: t.aborted + d.aborted,
      filesProcessed: t.filesProcessed + d.filesProcessed,
      bytes: t.bytes + d.bytes,
    }),
    { started: 0, succeeded: 0, failed: 0, aborted: 0, filesProcessed: 0, bytes: 0 },
  );
  return ok(c, { from, to, category, days: list, totals });
}

function emptyDay(date: string) {
  return { date, started: 0, succeeded: 0, failed: 0, aborted: 0, filesProcessed: 0, bytes: 0 };
}
