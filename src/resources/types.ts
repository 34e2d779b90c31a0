import type { McpServer } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { ContentApi } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";
import type { OperationsApi } from "../api/operations.js";

/** What the resource handlers get: the typed service APIs (sharing the session's token) and the logger. */
export interface ResourceDeps {
  entity: EntityApi;
  content: ContentApi;
  /** Report runs and their results (preservation://report/{job}). */
  operations: OperationsApi;
  log: Logger;
}

export type ResourceRegistrar = (server: McpServer, deps: ResourceDeps) => void;
