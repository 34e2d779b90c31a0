import type { Db } from "../db.js";

/** Ingest configurations (/api/process/ingest/configs). */

export interface IngestConfigRow {
  api_id: string;
  name: string;
  description: string;
  type: string;
  trigger_type: string;
  active: number;
  modified: string;
  modified_by: string;
}

/** Configurations, by name; `types` (upper-case) limits them to those types. */
export function ingestConfigs(db: Db, types: readonly string[] | null): IngestConfigRow[] {
  return db
    .prepare(
      `SELECT * FROM ingest_configs
       WHERE @types IS NULL OR upper(type) IN (SELECT value FROM json_each(@types)) ORDER BY name`,
    )
    .all({ types: types ? JSON.stringify(types) : null }) as IngestConfigRow[];
}

export function findIngestConfig(db: Db, apiId: string): IngestConfigRow | undefined {
  return db.prepare("SELECT * FROM ingest_configs WHERE api_id = ?").get(apiId) as
    | IngestConfigRow
    | undefined;
}

/** Whether the configuration `apiId` is active (false when there is no such configuration). */
export function ingestConfigActive(db: Db, apiId: string): boolean {
  return findIngestConfig(db, apiId)?.active === 1;
}
