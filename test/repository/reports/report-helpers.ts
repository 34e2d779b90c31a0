import { parse } from "csv-parse/sync";
import { expect } from "vitest";
import type { Db } from "../../../repository/store/db.js";
import type { Fetcher } from "../writes/write-helpers.js";

/**
 * Shared plumbing of the Report API tests: starting a run over HTTP, waiting for it through the progress
 * endpoint, and reading its result in both formats. The independent figures the tests compare with are
 * computed from the store's tables directly (plain SQL and JavaScript), never through the report code.
 */

export const R = "/api/reports";

export interface RunJson {
  progressToken: string;
  report: string;
  reportName: string;
  username: string;
  parameters: Record<string, string>;
  status: string;
  percentage: number;
  rowCount: number | null;
  message: string | null;
  created: string;
  updated: string;
  completed: string | null;
  progress: string;
  results: { json: string; csv: string };
}

export interface ResultJson {
  progressToken: string;
  report: string;
  name: string;
  parameters: Record<string, string>;
  runBy: string;
  started: string;
  securityTags: string[];
  columns: { name: string; title: string; type: string }[];
  rows: Record<string, string | number | null>[];
  rowCount: number;
  completed: string;
}

/** Reads a `{success, version, value}` reply, checking the envelope. */
export async function value<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(status);
  const body = JSON.parse(text) as { success: boolean; version: number; value: T };
  expect(body.success).toBe(true);
  expect(body.version).toBe(1);
  return body.value;
}

/** Starts a run with a JSON body; returns its progress token (checked against the header). */
export async function startRun(
  who: Fetcher,
  report: string,
  parameters: Record<string, string> = {},
): Promise<string> {
  const res = await who(`${R}/${report}/run`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(parameters),
  });
  const header = res.headers.get("preservica-progress-token");
  const run = await value<RunJson>(res, 202);
  expect(run.progressToken).toBe(header);
  expect(run.report).toBe(report);
  return run.progressToken;
}

const FINAL = new Set(["COMPLETED", "FAILED", "CANCELLED", "ABORTED", "FINISHED_MIXED_OUTCOME"]);

/** Polls the progress endpoint until the run has ended; returns its last state. */
export async function settle(who: Fetcher, token: string, timeoutMs = 30_000): Promise<RunJson> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = await value<RunJson>(await who(`${R}/progress/${token}`));
    if (FINAL.has(run.status)) return run;
    if (Date.now() > until) throw new Error(`run ${token} still ${run.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs a report to completion and returns its JSON result (after checking the run COMPLETED). */
export async function runToResult(
  who: Fetcher,
  report: string,
  parameters: Record<string, string> = {},
): Promise<ResultJson> {
  const token = await startRun(who, report, parameters);
  const run = await settle(who, token);
  expect(run.status, run.message ?? "").toBe("COMPLETED");
  expect(run.percentage).toBe(100);
  const result = await resultJson(who, token);
  expect(run.rowCount).toBe(result.rows.length);
  return result;
}

export async function resultJson(who: Fetcher, token: string): Promise<ResultJson> {
  const res = await who(`${R}/results/${token}?format=json`);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const result = await value<ResultJson>(res);
  expect(result.rowCount).toBe(result.rows.length);
  return result;
}

/** The CSV result, as records keyed by the header line (every value a string, as CSV has them). */
export async function resultCsv(
  who: Fetcher,
  token: string,
): Promise<{ header: string[]; records: string[][] }> {
  const res = await who(`${R}/results/${token}?format=csv`);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
  expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename=/);
  const [header = [], ...records] = parse(text) as string[][];
  return { header, records };
}

/** The JSON rows as CSV would hold them: column order, numbers as digits, null as empty. */
export function asCsvRecords(result: ResultJson): string[][] {
  return result.rows.map((row) =>
    result.columns.map((c) => (row[c.name] === null ? "" : String(row[c.name]))),
  );
}

// ---------------------------------------------------------------------------------------------
// Independent figures, from the tables themselves.

export interface Ent {
  ref: string;
  type: "SO" | "IO" | "CO";
  title: string;
  security_tag: string;
  parent_ref: string | null;
  deleted: number;
}

/** Every entity by ref. */
export function entityMap(db: Db): Map<string, Ent> {
  const rows = db
    .prepare("SELECT ref, type, title, security_tag, parent_ref, deleted FROM entities")
    .all() as Ent[];
  return new Map(rows.map((e) => [e.ref, e]));
}

/** Refs from `ref` up to the top (itself first). */
export function ancestry(entities: Map<string, Ent>, ref: string): string[] {
  const out: string[] = [];
  let at: string | null = ref;
  while (at !== null) {
    out.push(at);
    at = entities.get(at)?.parent_ref ?? null;
  }
  return out;
}

export interface FileFact {
  coRef: string;
  generation: number;
  filename: string;
  size: number;
  puid: string;
  name: string;
  md5: string | null;
  sha256: string | null;
  original: number;
}

/** Every bitstream of every active generation, with its fixities, in no particular order. */
export function activeFiles(db: Db): FileFact[] {
  return db
    .prepare(
      `SELECT g.co_ref AS coRef, g.idx AS generation, b.filename, b.size, coalesce(g.format_puid, '') AS puid,
              coalesce(g.format_name, '') AS name, g.original,
              max(CASE WHEN f.algorithm = 'MD5' THEN f.value END) AS md5,
              max(CASE WHEN f.algorithm = 'SHA256' THEN f.value END) AS sha256
         FROM generations g JOIN bitstreams b ON b.generation_id = g.id
         LEFT JOIN fixities f ON f.bitstream_id = b.id
        WHERE g.active = 1 GROUP BY b.id`,
    )
    .all() as FileFact[];
}

/** Whether the user with `tags` counts this content object's files: it and its asset live and readable. */
export function countsFile(entities: Map<string, Ent>, coRef: string, tags: readonly string[]): boolean {
  const co = entities.get(coRef);
  const io = co?.parent_ref ? entities.get(co.parent_ref) : undefined;
  return (
    co !== undefined &&
    io !== undefined &&
    io.type === "IO" &&
    co.deleted === 0 &&
    io.deleted === 0 &&
    tags.includes(co.security_tag) &&
    tags.includes(io.security_tag)
  );
}

export const ALL_TAGS = ["closed", "open", "staff"];
export const READER_TAGS = ["open"];
