import type { AnyTool } from "../define.js";

/** The operations toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const OPERATIONS_TOOLS: readonly AnyTool[] = [];
