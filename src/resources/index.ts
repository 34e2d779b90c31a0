import type { McpServer } from "@modelcontextprotocol/server";
import { registerEntityResources } from "./entities.js";
import { registerFileResources } from "./files.js";
import { registerReportResources } from "./reports.js";
import type { ResourceDeps } from "./types.js";

export type { ResourceDeps } from "./types.js";

/**
 * The repository as MCP resources under `preservation://` (see ./uris.ts): the root listing, folders,
 * assets and content objects as JSON, metadata fragments as XML, files (bitstreams) and finished report
 * results (CSV) up to a size cap.
 * Template variables holding refs complete by title.
 */
export function registerResources(server: McpServer, deps: ResourceDeps): void {
  registerEntityResources(server, deps);
  registerFileResources(server, deps);
  registerReportResources(server, deps);
}
