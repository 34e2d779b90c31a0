import type { AnyTool } from "../define.js";

/** The admin toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const ADMIN_TOOLS: readonly AnyTool[] = [];
