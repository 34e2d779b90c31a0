import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "csv-stringify/sync";
import type { ColumnDefinition, OutputFormat, ReportRow } from "./definitions.js";

/**
 * Result files of report runs: `<dataDir>/reports/<progress token>.json` and `.csv`, written batch by
 * batch as the report produces rows (so a result as large as the store never sits in memory), first
 * under `.part` names and renamed when complete: a finished name always holds a whole result.
 *
 * The JSON is one object: the run's header (report, parameters, who ran it, when, which security tags it
 * saw, the columns), then `rows` (one object per row, keys in column order, one row per line), then
 * `rowCount` and `completed`. The CSV is written from the very same row objects with csv-stringify: a
 * header line of column names, then one record per row (numbers as digits, a missing value empty), so
 * the two formats always agree.
 */

export const RESULTS_DIR = "reports";

export interface ResultHeader {
  progressToken: string;
  report: string;
  name: string;
  parameters: Record<string, string>;
  runBy: string;
  started: string;
  securityTags: readonly string[];
  columns: readonly ColumnDefinition[];
}

export interface ResultSummary {
  rowCount: number;
  jsonBytes: number;
  csvBytes: number;
}

export function resultFile(dataDir: string, token: string, format: OutputFormat): string {
  return join(dataDir, RESULTS_DIR, `${token}.${format}`);
}

/** The finished result file in `format`, when it exists. */
export function finishedResult(
  dataDir: string,
  token: string,
  format: OutputFormat,
): { path: string; size: number } | undefined {
  const path = resultFile(dataDir, token, format);
  if (!existsSync(path)) return undefined;
  return { path, size: statSync(path).size };
}

export class ResultWriter {
  /** File descriptors; undefined when only counting (no data directory). */
  private readonly json: number | undefined;
  private readonly csv: number | undefined;
  private readonly names: string[];
  private rowCount = 0;
  private jsonBytes = 0;
  private csvBytes = 0;
  private closed = false;

  /** `dataDir` null: nothing is written, only rows and bytes counted (the demo seed without a data directory). */
  constructor(
    private readonly dataDir: string | null,
    private readonly header: ResultHeader,
  ) {
    if (dataDir) {
      mkdirSync(join(dataDir, RESULTS_DIR), { recursive: true });
      // "w": a resumed run starts its files afresh.
      this.json = openSync(this.part(dataDir, "json"), "w");
      this.csv = openSync(this.part(dataDir, "csv"), "w");
    }
    this.names = header.columns.map((c) => c.name);
    const head = JSON.stringify(header);
    this.writeJson(`${head.slice(0, -1)},"rows":[`);
    this.writeCsv(stringify([this.names]));
  }

  append(rows: readonly ReportRow[]): void {
    if (rows.length === 0) return;
    const ordered = rows.map((r) => Object.fromEntries(this.names.map((n) => [n, r[n] ?? null])));
    const lines = ordered.map((r, i) => `${this.rowCount + i === 0 ? "" : ","}\n${JSON.stringify(r)}`);
    this.writeJson(lines.join(""));
    this.writeCsv(stringify(ordered, { columns: this.names }));
    this.rowCount += rows.length;
  }

  /** Closes both files and gives them their final names. */
  finish(completed: string): ResultSummary {
    this.writeJson(`\n],"rowCount":${this.rowCount},"completed":${JSON.stringify(completed)}}\n`);
    this.close();
    const dir = this.dataDir;
    if (dir) {
      for (const format of ["json", "csv"] as const) {
        renameSync(this.part(dir, format), resultFile(dir, this.header.progressToken, format));
      }
    }
    return { rowCount: this.rowCount, jsonBytes: this.jsonBytes, csvBytes: this.csvBytes };
  }

  /** Closes and removes the partial files (a stopped, cancelled or failed run). */
  abort(): void {
    this.close();
    const dir = this.dataDir;
    if (dir) for (const format of ["json", "csv"] as const) rmSync(this.part(dir, format), { force: true });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.json !== undefined) closeSync(this.json);
    if (this.csv !== undefined) closeSync(this.csv);
  }

  private part(dataDir: string, format: OutputFormat): string {
    return `${resultFile(dataDir, this.header.progressToken, format)}.part`;
  }

  private writeJson(text: string): void {
    this.jsonBytes += writeAll(this.json, text);
  }

  private writeCsv(text: string): void {
    this.csvBytes += writeAll(this.csv, text);
  }
}

/** Writes all of `text` (a write may take less than it was given); returns its size in bytes. */
function writeAll(fd: number | undefined, text: string): number {
  const buf = Buffer.from(text, "utf8");
  if (fd === undefined) return buf.length;
  let at = 0;
  while (at < buf.length) at += writeSync(fd, buf, at, buf.length - at);
  return buf.length;
}
