import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Stores a generated data set (one row per generation; the newest is the one served). */
export function saveDataset(
  db: Db,
  d: {
    actionId: string;
    apiId: string;
    username: string;
    parameters: unknown;
    generated: string;
    result: unknown;
  },
): void {
  prepared(
    db,
    `INSERT INTO analytics_datasets (action_id, api_id, username, parameters, generated, result) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (action_id) DO UPDATE SET generated = excluded.generated, result = excluded.result`,
  ).run(d.actionId, d.apiId, d.username, JSON.stringify(d.parameters), d.generated, JSON.stringify(d.result));
}
