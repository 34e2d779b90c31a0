import { expect } from "vitest";
import { arr, type Node, parseXml, text } from "../entity-xml.js";
import type { Fetcher } from "../writes/write-helpers.js";

/** Shared plumbing of the operations API tests (Workflow API, Process Monitor, ingest configurations). */

export const WF = "/sdb/rest/workflow";
export const WF_NS = "http://workflow.preservica.com";
export const PM = "/api/processmonitor";
export const INTEGRITY_CHECK_CONTEXT = 11;

/** GETs (or sends) and parses a Workflow API XML reply after checking status, type and namespace. */
export async function wfXml(get: Fetcher, path: string, status = 200, init: RequestInit = {}): Promise<Node> {
  const res = await get(path, init);
  const body = await res.text();
  expect(res.status, `${path}: ${body}`).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
  const reply = parseXml(body);
  expect(reply.ns.entity, "default namespace").toBe(WF_NS);
  return reply.root;
}

/** A JSON reply after checking its status. */
export async function json<T = Node>(
  get: Fetcher,
  path: string,
  status = 200,
  init: RequestInit = {},
): Promise<T> {
  const res = await get(path, init);
  const body = await res.text();
  expect(res.status, `${path}: ${body}`).toBe(status);
  return JSON.parse(body) as T;
}

/** The `value` of a Process Monitor reply, after checking the envelope. */
export async function monitorValue(get: Fetcher, path: string): Promise<Node> {
  const body = await json<{ success: boolean; version: number; value: Node }>(get, path);
  expect(body.success).toBe(true);
  expect(body.version).toBe(1);
  return body.value;
}

export function startRequest(
  folder: string,
  opts: { correlationId?: string; context?: number; name?: string } = {},
) {
  // As pyPreservica builds it: a stray space in the element name, so the end tag is `</StartWorkflowRequest >`.
  return `<StartWorkflowRequest  xmlns="${WF_NS}"><WorkflowContextId>${opts.context ?? INTEGRITY_CHECK_CONTEXT}</WorkflowContextId><WorkflowContextName>${opts.name ?? "Integrity Check"}</WorkflowContextName><Parameter><Key>folder</Key><Value>${folder}</Value></Parameter><CorrelationId>${opts.correlationId ?? "test-correlation"}</CorrelationId></StartWorkflowRequest >`;
}

export function postXml(get: Fetcher, path: string, body: string): Promise<Response> {
  return get(path, { method: "POST", headers: { "Content-Type": "application/xml;charset=UTF-8" }, body });
}

/** Starts an Integrity Check over `folder` and returns the new instance (201). */
export async function startCheck(get: Fetcher, folder: string, correlationId?: string): Promise<Node> {
  return wfXml(get, `${WF}/instances`, 201, {
    method: "POST",
    headers: { "Content-Type": "application/xml;charset=UTF-8" },
    body: startRequest(folder, { correlationId }),
  });
}

export async function instance(
  get: Fetcher,
  id: number | string,
  query = "includeErrors=true",
): Promise<Node> {
  const root = await wfXml(get, `${WF}/instances/${id}?${query}`);
  expect(text(root.Id)).toBe(String(id));
  return root;
}

/** Polls an instance until its state is no longer Active. */
export async function finished(get: Fetcher, id: number | string, timeoutMs = 30_000): Promise<Node> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await instance(get, id);
    if (text(r.State) !== "Active") return r;
    if (Date.now() > until) throw new Error(`instance ${id} still Active after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Ids of a listing of instances. */
export function ids(list: Node): number[] {
  return arr(list.WorkflowInstance).map((i) => Number(text(i.Id)));
}

/** The instance of the action whose progress token is `token`, from the listing the caller sees. */
export async function instanceOfToken(get: Fetcher, token: string): Promise<Node> {
  const list = await wfXml(get, `${WF}/instances?max=1000`);
  const found = arr(list.WorkflowInstance).find((i) => text(i.ArchivalProcessId) === token);
  expect(found, `no instance with ArchivalProcessId ${token}`).toBeDefined();
  return found;
}

/** Every page of instances as pyPreservica walks them: while TotalCount > start, advancing by Count. */
export async function walkInstances(get: Fetcher, query: string, max: number): Promise<number[]> {
  const seen: number[] = [];
  let start = 0;
  let total = max;
  let rounds = 0;
  while (total > start) {
    const page = await wfXml(get, `${WF}/instances?${query}&start=${start}&max=${max}`);
    total = Number(text(page.TotalCount));
    const count = Number(text(page.Count));
    expect(count, "Count must be the number of instances on the page").toBe(ids(page).length);
    if (start < total) expect(count, "a page before the end must not be empty").toBeGreaterThan(0);
    seen.push(...ids(page));
    start += count;
    if (++rounds > 1000) throw new Error("the client would loop forever");
  }
  return seen;
}

export { arr, text };
