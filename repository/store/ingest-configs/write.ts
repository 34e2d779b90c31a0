import type { Db } from "../db.js";

/** Activates or deactivates an ingest configuration. */
export function setIngestConfigActive(db: Db, apiId: string, active: boolean, by: string, now: string): void {
  db.prepare("UPDATE ingest_configs SET active = ?, modified = ?, modified_by = ? WHERE api_id = ?").run(
    active ? 1 : 0,
    now,
    by,
    apiId,
  );
}
