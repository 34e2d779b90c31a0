import { HTTPException } from "hono/http-exception";
import { utcInstant } from "../http/dates.js";
import { isUuid } from "../http/params.js";
import { requestText } from "../http/request-text.js";
import { hasRole, MANAGERS } from "../http/roles.js";
import { child, childrenNamed, childText, parseXmlBody, type XmlNode } from "../http/xml-body.js";
import { WORKFLOW_TYPES } from "../operations/states.js";
import { failedItems } from "../store/monitor/read.js";
import { anyEntity } from "../store/recycle-bin/read.js";
import { findInstance, findInstanceByAction, type InstanceRow } from "../store/workflows/read.js";
import type { Parameter } from "../store/workflows/write.js";
import { type InstanceView, WF_NS } from "../xml/workflow-docs.js";
import {
  mayReadTag,
  type OpsContext,
  oneOf,
  positiveId,
  queryOnce,
  requireVisible,
} from "./operations-common.js";

/** What the Workflow API's route files share: replies, bodies, parameters, and how an instance is shown. */

export const WORKFLOW_API_PATH = "/sdb/rest/workflow";
const XML_TYPE = "application/xml;charset=UTF-8";

export function xmlReply(c: OpsContext, body: string, status: 200 | 201 | 202 = 200): Response {
  return c.body(body, status, { "Content-Type": XML_TYPE });
}

export function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/** The request body as XML whose root element is `root` (by local name). */
export async function wfBody(c: OpsContext, root: string, example: string): Promise<XmlNode> {
  const doc = parseXmlBody(await requestText(c.req), example);
  if (doc.name !== root)
    throw badRequest(`The root element must be ${root}, not ${doc.name}; send ${example}`);
  // Matched by namespace too, as the Entity API does: a document of another vocabulary is not this one.
  if (doc.ns !== WF_NS) {
    const where = doc.ns ? `in the namespace "${doc.ns.slice(0, 200)}"` : "in no namespace";
    throw badRequest(`<${root}> is ${where}; Workflow API documents are in ${WF_NS}: send ${example}`);
  }
  return doc;
}

export function typeParam(c: OpsContext): string | null {
  const raw = queryOnce(c, "type");
  return raw === undefined ? null : oneOf(WORKFLOW_TYPES, raw, "type");
}

/** Parameter(Key, Value) children; keys must be unique. */
export function readParameters(doc: XmlNode, example: string): Parameter[] {
  const out: Parameter[] = [];
  for (const p of childrenNamed(doc, "Parameter")) {
    const key = childText(p, "Key");
    if (!key) throw badRequest(`Each Parameter needs a Key; send ${example}`);
    if (out.some((o) => o.key === key))
      throw badRequest(`Parameter ${key.slice(0, 80)} is given twice; give it once`);
    out.push({ key, value: child(p, "Value")?.text.trim() ?? "" });
  }
  if (out.length > 100) throw badRequest("At most 100 parameters");
  return out;
}

/** Longest parameter value shown; CSV edits keep their whole file in their parameters. */
const MAX_VALUE_CHARS = 10_000;

function shown(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length <= MAX_VALUE_CHARS ? s : `${s.slice(0, MAX_VALUE_CHARS)}… (${s.length} characters in all)`;
}

/**
 * Input and output parameters. Input: what the starter sent (instances started here), else what the
 * action was asked to do. Output: how it ended, and what the action recorded beyond its input.
 */
function parametersOf(r: InstanceRow): { input: Parameter[]; output: Parameter[] } {
  let stored: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(r.params) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      stored = parsed as Record<string, unknown>;
  } catch {
    // Parameters are always JSON; a broken row shows none rather than failing the reply.
  }
  const started = r.start_parameters ? (JSON.parse(r.start_parameters) as Parameter[]) : null;
  const input = started ?? Object.entries(stored).map(([key, v]) => ({ key, value: shown(v) }));
  const output: Parameter[] = [
    { key: "status", value: r.status },
    { key: "total", value: String(r.total) },
    { key: "done", value: String(r.done) },
    { key: "failed", value: String(r.failed) },
  ];
  if (r.message) output.push({ key: "message", value: r.message });
  if (r.completed) output.push({ key: "completed", value: r.completed });
  if (started) {
    const inputKeys = new Set(started.map((p) => p.key));
    for (const [key, v] of Object.entries(stored)) {
      if (!inputKeys.has(key) && v !== null) output.push({ key, value: shown(v) });
    }
  }
  return { input, output };
}

/** What the caller sees of an instance: entity titles only on readable tags; parameters only when allowed. */
export function instanceView(
  c: OpsContext,
  r: InstanceRow,
  opts: { errors?: boolean; parameters?: boolean } = {},
): InstanceView {
  const v: InstanceView = { row: r };
  if (r.entity_ref) {
    const e = anyEntity(c.get("svc").db, r.entity_ref);
    v.entity = {
      ref: r.entity_ref,
      type: r.entity_type,
      ...(e && mayReadTag(c, e.security_tag) ? { title: e.title } : {}),
    };
  }
  if (opts.errors) {
    v.errors = failedItems(c.get("svc").db, r.id);
  }
  if (opts.parameters && hasRole(c, MANAGERS)) v.parameters = parametersOf(r);
  return v;
}

/**
 * An instance by its Id, or by its ArchivalProcessId (the action's progress token, which is also what
 * events record as their WorkflowInstanceId for ingests).
 */
export function knownInstance(c: OpsContext, raw: string | undefined): InstanceRow {
  const token = raw?.trim() ?? "";
  const byToken = isUuid(token);
  const id = byToken ? token.toLowerCase() : positiveId(raw, "Workflow instance id");
  const { db } = c.get("svc");
  const r = typeof id === "string" ? findInstanceByAction(db, id) : findInstance(db, id);
  if (!r) {
    throw new HTTPException(404, {
      message: `No workflow instance ${id}; GET ${WORKFLOW_API_PATH}/instances lists them`,
    });
  }
  requireVisible(c, r.username, `Workflow instance ${id}`);
  return r;
}

/** A from/to date as clients send it (`2026-11-22T21:08:37.000000+0000`, a `+` that arrived as a space). */
export function dateParam(c: OpsContext, name: string): string | null {
  const raw = queryOnce(c, name);
  if (raw === undefined) return null;
  const instant = utcInstant(raw.replace(/ (\d{2}:?\d{2})$/, "+$1"));
  if (!instant) {
    throw badRequest(
      `Parameter ${name} must be an ISO 8601 date such as 2026-11-22T21:08:37.000Z, got "${raw.slice(0, 60)}"`,
    );
  }
  return instant;
}

export function truthy(c: OpsContext, name: string): boolean {
  return (queryOnce(c, name) ?? "").toLowerCase() === "true";
}
