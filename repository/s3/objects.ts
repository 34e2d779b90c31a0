import { statSync } from "node:fs";
import { packagePath } from "../ingest/packages.js";
import { INGEST_KIND, type IngestParams } from "../ingest/params.js";
import type { ActionStatus } from "../store/actions/read.js";
import type { Db } from "../store/db.js";

/**
 * What "an object in the bucket" means here. The bucket is a drop box, as on the real service: a
 * package put there is handed to an ingest at once, and the ingest consumes it (its file is removed
 * when the ingest ends). So an object exists while its ingest is unfinished; afterwards HEAD answers
 * 404 but still names the ingest's progress token. Each caller sees only the packages they uploaded.
 */

export interface UploadedPackage {
  key: string;
  /** The ingest's action id: the progress token. */
  actionId: string;
  status: ActionStatus;
  uploaded: string;
  /** Bytes of the package file while it is still on disk, else 0. */
  size: number;
  waiting: boolean;
}

const UNFINISHED: ReadonlySet<string> = new Set(["ACTIVE", "PENDING"]);

interface Row {
  id: string;
  status: ActionStatus;
  params: string;
  created: string;
}

const SELECT = `SELECT id, status, params, created FROM actions
  WHERE kind = ? AND username = ? AND json_extract(params, '$.source') = 's3'`;

function toPackage(dataDir: string, r: Row): UploadedPackage {
  const params = JSON.parse(r.params) as IngestParams;
  let size = 0;
  try {
    size = statSync(packagePath(dataDir, params.package)).size;
  } catch {
    // consumed: the ingest ended
  }
  return {
    key: params.packageName,
    actionId: r.id,
    status: r.status,
    uploaded: r.created,
    size,
    waiting: UNFINISHED.has(r.status),
  };
}

/** The newest package the user uploaded under this key, if any. */
export function latestUpload(
  db: Db,
  dataDir: string,
  username: string,
  key: string,
): UploadedPackage | undefined {
  const row = db
    .prepare(`${SELECT} AND json_extract(params, '$.packageName') = ? ORDER BY seq DESC LIMIT 1`)
    .get(INGEST_KIND, username, key) as Row | undefined;
  return row ? toPackage(dataDir, row) : undefined;
}

/** The user's packages still waiting for (or in) their ingest, by key, at most `max`. */
export function waitingUploads(
  db: Db,
  dataDir: string,
  username: string,
  prefix: string,
  max: number,
): UploadedPackage[] {
  const rows = db
    .prepare(
      `${SELECT} AND status IN ('ACTIVE', 'PENDING') AND substr(json_extract(params, '$.packageName'), 1, ?) = ?
       ORDER BY json_extract(params, '$.packageName'), seq LIMIT ?`,
    )
    .all(INGEST_KIND, username, prefix.length, prefix, max) as Row[];
  return rows.map((r) => toPackage(dataDir, r));
}
