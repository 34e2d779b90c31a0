import type { AnyTool } from "../define.js";

/** The retention toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const RETENTION_TOOLS: readonly AnyTool[] = [];
