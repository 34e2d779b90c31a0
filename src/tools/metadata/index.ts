import type { AnyTool } from "../define.js";

/** The metadata toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const METADATA_TOOLS: readonly AnyTool[] = [];
