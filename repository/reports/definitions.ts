import type { Db } from "../store/db.js";

/**
 * What a report is: its definition (id, name, what it counts, the parameters it accepts, the columns of
 * its rows) and its generator. Each report lives in its own file beside this one and is listed once in
 * catalogue.ts. A generator works in steps: each step hands over the rows it produced (maybe none) and how
 * far it has got, and between two steps the caller may pause (the job yields to the event loop there), so
 * a report over a large store never holds the service up and never holds all its rows in memory.
 */

/** Formats every result can be fetched in. */
export const OUTPUT_FORMATS = ["json", "csv"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export type ParameterType = "folder" | "date" | "username";

export interface ParameterDefinition {
  name: string;
  type: ParameterType;
  required: boolean;
  description: string;
  /** What an absent value means, in words. */
  default?: string;
  /** Dates: whether a date without a time means the start of that day or its end (inclusive windows). */
  bound?: "start" | "end";
}

export type ColumnType = "string" | "integer" | "ref" | "date";

export interface ColumnDefinition {
  name: string;
  title: string;
  type: ColumnType;
}

export interface ReportDefinition {
  id: string;
  name: string;
  description: string;
  parameters: readonly ParameterDefinition[];
  columns: readonly ColumnDefinition[];
}

/** One row of a result, keyed by column name. */
export type ReportRow = Record<string, string | number | null>;

/** Parameters once checked and normalised: dates as UTC ISO instants, refs in lower case. */
export type ReportParameters = Readonly<Record<string, string>>;

export interface ReportInput {
  db: Db;
  parameters: ReportParameters;
  /** Security tags on which the user the report runs for has Read Metadata: only those entities count. */
  readableTags: readonly string[];
  /** The service's time when the run started (ISO 8601). */
  now: string;
}

export interface ReportStep {
  /** Rows produced by this step, in output order. */
  rows?: ReportRow[];
  /** Units of work done so far and in all (units are the report's own: folders, assets, events ...). */
  done: number;
  total: number;
}

export interface Report {
  definition: ReportDefinition;
  run(input: ReportInput): Generator<ReportStep, void, undefined>;
}

/** The shared parameter of reports that can be narrowed to part of the tree. */
export function folderParameter(description: string, absent: string): ParameterDefinition {
  return { name: "folder", type: "folder", required: false, description, default: absent };
}

/** The date window of the history reports. */
export const WINDOW_PARAMETERS: readonly ParameterDefinition[] = [
  {
    name: "from",
    type: "date",
    required: false,
    bound: "start",
    description:
      "Start of the window, inclusive: a date (2025-01-31, the start of that day, UTC) or a date-time (2025-01-31T12:00:00Z)",
    default: "no lower bound",
  },
  {
    name: "to",
    type: "date",
    required: false,
    bound: "end",
    description:
      "End of the window, inclusive: a date (2025-12-31, the whole of that day, UTC) or a date-time",
    default: "no upper bound",
  },
];

/** Orders text by code point, the same on every machine (localeCompare depends on the locale). */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
