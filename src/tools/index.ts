import type { AnyTool } from "./define.js";
import { SESSION_TOOLS } from "./session.js";

/** The only list of tools: everything else (registration, filters, README table, snapshots) derives from it. */
export const ALL_TOOLS: readonly AnyTool[] = [...SESSION_TOOLS];
