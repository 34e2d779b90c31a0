import type { AnyTool } from "../define.js";
import jobStatus from "./job-status.js";

/** The jobs toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const JOBS_TOOLS: readonly AnyTool[] = [jobStatus];
