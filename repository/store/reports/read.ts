import { type ActionRow, actionsWhere } from "../actions/read.js";
import type { Db } from "../db.js";

/**
 * Reads of report runs. A run is an action of kind `report` whose parameters name the report
 * (`$.report`); listings filter on that, on the status and on who asked for the run, newest first.
 */

export const REPORT_ACTION_KIND = "report";

export interface RunFilter {
  status?: string | null;
  username?: string | null;
  report?: string | null;
}

const WHERE = `kind = '${REPORT_ACTION_KIND}' AND (@status IS NULL OR status = @status)
  AND (@username IS NULL OR username = @username)
  AND (@report IS NULL OR json_extract(params, '$.report') = @report)`;

export function reportRunsPage(
  db: Db,
  filter: RunFilter,
  start: number,
  max: number,
): { items: ActionRow[]; total: number } {
  const params = {
    status: filter.status ?? null,
    username: filter.username ?? null,
    report: filter.report ?? null,
  };
  return actionsWhere(db, WHERE, params, start, max);
}
