import { ADMIN_TOOLS } from "./admin/index.js";
import { BULK_TOOLS } from "./bulk/index.js";
import type { AnyTool } from "./define.js";
import { DISCOVERY_TOOLS } from "./discovery/index.js";
import { EXPORT_TOOLS } from "./export/index.js";
import { INGEST_TOOLS } from "./ingest/index.js";
import { JOBS_TOOLS } from "./jobs/index.js";
import { LIFECYCLE_TOOLS } from "./lifecycle/index.js";
import { METADATA_TOOLS } from "./metadata/index.js";
import { OPERATIONS_TOOLS } from "./operations/index.js";
import { RETENTION_TOOLS } from "./retention/index.js";
import { SESSION_TOOLS } from "./session/index.js";
import { STRUCTURE_TOOLS } from "./structure/index.js";

/** The only list of tools: everything else (registration, filters, README table, snapshots) derives from it. */
export const ALL_TOOLS: readonly AnyTool[] = [
  ...DISCOVERY_TOOLS,
  ...SESSION_TOOLS,
  ...METADATA_TOOLS,
  ...STRUCTURE_TOOLS,
  ...LIFECYCLE_TOOLS,
  ...RETENTION_TOOLS,
  ...INGEST_TOOLS,
  ...EXPORT_TOOLS,
  ...JOBS_TOOLS,
  ...BULK_TOOLS,
  ...OPERATIONS_TOOLS,
  ...ADMIN_TOOLS,
];
