import type { McpServer } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { ContentApi } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";

/** What the resource handlers get: the typed service APIs (sharing the session's token) and the logger. */
export interface ResourceDeps {
  entity: EntityApi;
  content: ContentApi;
  log: Logger;
}

export type ResourceRegistrar = (server: McpServer, deps: ResourceDeps) => void;
