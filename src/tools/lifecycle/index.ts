import type { AnyTool } from "../define.js";

/** The lifecycle toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const LIFECYCLE_TOOLS: readonly AnyTool[] = [];
