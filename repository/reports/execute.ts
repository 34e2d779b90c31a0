import { getUser, Permission, Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import type { Report, ReportParameters, ReportStep } from "./definitions.js";
import { type ResultSummary, ResultWriter } from "./results.js";

/**
 * One run of a report, from its generator to its result files: every step's rows go to the writer, and
 * the steps are handed on so the caller can record progress and pause between them (the report job) or
 * simply go on (the demo seed, which writes its past runs in one go). Whatever ends the run early (a
 * stop, a cancel, an error) removes the partial files: a run is only ever resumed from its start.
 */

/** What a run stores in its action's parameters. */
export interface ReportRunParams {
  report: string;
  parameters: ReportParameters;
  /** Set when the run completed: the size of its result. */
  result?: ResultSummary;
}

export interface Execution {
  db: Db;
  /** Where the result files go; null = count the rows and bytes but write nothing (a seed without a data directory). */
  dataDir: string | null;
  token: string;
  report: Report;
  parameters: ReportParameters;
  username: string;
  readableTags: readonly string[];
  /** When the run started, and the time the report takes as "now" (retention expiry). */
  started: string;
}

/** The security tags `username` may read, or undefined when that user can no longer sign in. */
export function readableTagsOf(db: Db, username: string): string[] | undefined {
  const user = getUser(db, username);
  if (!user?.enabled) return undefined;
  return new Permissions(db, user.roles).tagsWith(Permission.READ_METADATA).sort();
}

/** Runs the report step by step; returns the result's summary once `completed()` gives the end time. */
export function* executeReport(
  x: Execution,
  completed: () => string,
): Generator<ReportStep, ResultSummary, undefined> {
  const def = x.report.definition;
  const writer = new ResultWriter(x.dataDir, {
    progressToken: x.token,
    report: def.id,
    name: def.name,
    parameters: { ...x.parameters },
    runBy: x.username,
    started: x.started,
    securityTags: x.readableTags,
    columns: def.columns,
  });
  let finished = false;
  try {
    const steps = x.report.run({
      db: x.db,
      parameters: x.parameters,
      readableTags: x.readableTags,
      now: x.started,
    });
    for (const step of steps) {
      if (step.rows) writer.append(step.rows);
      yield step;
    }
    const summary = writer.finish(completed());
    finished = true;
    return summary;
  } finally {
    if (!finished) writer.abort();
  }
}
