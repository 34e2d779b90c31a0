import type { AnyTool } from "../define.js";
import ingest from "./ingest.js";

/** The ingest toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const INGEST_TOOLS: readonly AnyTool[] = [ingest];
