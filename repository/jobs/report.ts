import { findReport } from "../reports/catalogue.js";
import { executeReport, type ReportRunParams, readableTagsOf } from "../reports/execute.js";
import { liveFolder } from "../reports/scope.js";
import { setActionParams } from "../store/actions/write.js";
import { REPORT_ACTION_KIND } from "../store/reports/read.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";

/**
 * A report run: the report's generator walks the store step by step, its rows go to the result files
 * (reports/results.ts), and between steps the run records its progress and pauses, so requests are
 * answered while a large report is written. It changes nothing in the store but its own action, so an
 * interrupted run (a stop, kill -9) is simply run again from the start at the next start-up.
 *
 * The report sees what the user who asked for it may read now: the tags are read when the run starts, a
 * folder parameter is checked again (it may have been deleted, or the user's rights changed since).
 *
 * `PRESERVATION_REPORT_PAUSE_MS` (test-only, 0 to 60000): wait this long after each step, so a test can
 * watch a run in progress and the service answering meanwhile.
 */

export const REPORT_KIND = REPORT_ACTION_KIND;
export const REPORT_PATH = "reports";

/** How often (at most) progress is written to the action while the report runs. */
const PROGRESS_EVERY_MS = 250;

export function reportPauseMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PRESERVATION_REPORT_PAUSE_MS?.trim();
  if (!raw || !/^\d+$/.test(raw)) return 0;
  return Math.min(Number(raw), 60_000);
}

async function run(r: ActionRun): Promise<ActionOutcome> {
  const { svc, action } = r;
  const { db } = svc;
  const params = r.params as ReportRunParams;
  const report = findReport(params.report);
  if (!report) {
    return {
      status: "FAILED",
      message: `This version of the service has no report "${params.report}"; nothing was reported. GET /api/reports lists the reports it has`,
    };
  }
  const tags = readableTagsOf(db, action.username);
  if (!tags) {
    return {
      status: "FAILED",
      message: `User ${action.username} can no longer sign in; nothing was reported`,
    };
  }
  const folderRef = params.parameters.folder;
  if (folderRef) {
    const folder = liveFolder(db, folderRef);
    if (!folder) {
      return {
        status: "FAILED",
        message: `Folder ${folderRef} no longer exists (deleted since the report was asked for); nothing was reported. Run the report again with another folder`,
      };
    }
    if (!tags.includes(folder.security_tag)) {
      return {
        status: "FAILED",
        message: `User ${action.username} may no longer read folder ${folderRef} (security tag ${folder.security_tag}); nothing was reported`,
      };
    }
  }

  const setProgress = db.prepare("UPDATE actions SET total = ?, done = ?, updated = ? WHERE id = ?");
  // A resumed run starts over: the counts of an interrupted one mean nothing now.
  setProgress.run(0, 0, r.now(), action.id);
  const steps = executeReport(
    {
      db,
      dataDir: svc.dataDir,
      token: action.id,
      report,
      parameters: params.parameters,
      username: action.username,
      readableTags: tags,
      started: r.now(),
    },
    r.now,
  );
  const pauseMs = reportPauseMs();
  let written = 0;
  let total = 0;
  try {
    let next = steps.next();
    while (!next.done) {
      const step = next.value;
      total = step.total;
      if (Date.now() - written >= PROGRESS_EVERY_MS || pauseMs > 0) {
        setProgress.run(step.total, Math.min(step.done, step.total), r.now(), action.id);
        written = Date.now();
      }
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      await r.pause();
      next = steps.next();
    }
    const result = next.value;
    db.transaction(() => {
      setActionParams(db, action.id, { ...params, result } satisfies ReportRunParams, r.now());
      setProgress.run(total, total, r.now(), action.id);
    })();
    return {
      status: "COMPLETED",
      message: `${result.rowCount} row${result.rowCount === 1 ? "" : "s"}; fetch them from /api/reports/results/${action.id}?format=json or ?format=csv`,
    };
  } catch (err) {
    // Ends the generator, which removes the partial result files; the runner decides what the error means.
    steps.return({ rowCount: 0, jsonBytes: 0, csvBytes: 0 });
    throw err;
  }
}

export const reportAction: ActionKind = {
  kind: REPORT_KIND,
  path: REPORT_PATH,
  title: "Report run: a report over the store, written to result files (JSON and CSV)",
  run,
};
