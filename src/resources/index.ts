import type { McpServer } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { ContentApi } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";

export interface ResourceDeps {
  entity: EntityApi;
  content: ContentApi;
  log: Logger;
}

/** Entity resource templates (preservation://...). Filled in by the resources module. */
export function registerResources(_server: McpServer, _deps: ResourceDeps): void {}
