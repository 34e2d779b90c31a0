import type { AnyTool } from "../define.js";
import auditLog from "./audit-log.js";
import controlWorkflow from "./control-workflow.js";
import processes from "./processes.js";
import reports from "./reports.js";
import workflows from "./workflows.js";

/** The operations toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const OPERATIONS_TOOLS: readonly AnyTool[] = [
  processes,
  workflows,
  controlWorkflow,
  reports,
  auditLog,
];
