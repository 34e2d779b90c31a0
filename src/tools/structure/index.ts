import type { AnyTool } from "../define.js";

/** The structure toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const STRUCTURE_TOOLS: readonly AnyTool[] = [];
