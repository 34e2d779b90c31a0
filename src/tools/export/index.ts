import type { AnyTool } from "../define.js";
import exportTool from "./export.js";

/** The export toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const EXPORT_TOOLS: readonly AnyTool[] = [exportTool];
