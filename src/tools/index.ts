import type { AnyTool } from "./define.js";
import { DISCOVERY_TOOLS } from "./discovery/index.js";
import { SESSION_TOOLS } from "./session.js";

/** The only list of tools: everything else (registration, filters, README table, snapshots) derives from it. */
export const ALL_TOOLS: readonly AnyTool[] = [...DISCOVERY_TOOLS, ...SESSION_TOOLS];
