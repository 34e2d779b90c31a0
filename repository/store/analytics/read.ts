import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Reads of generated analytics data sets. */

export interface DatasetRow {
  action_id: string;
  api_id: string;
  username: string;
  parameters: string;
  generated: string;
  result: string;
}

/** The newest generation of a data set, or undefined when it was never generated. */
export function latestDataset(db: Db, apiId: string): DatasetRow | undefined {
  return prepared(
    db,
    "SELECT * FROM analytics_datasets WHERE api_id = ? ORDER BY generated DESC, rowid DESC LIMIT 1",
  ).get(apiId) as DatasetRow | undefined;
}
