import type { Hono } from "hono";
import type { EntityEnv } from "./entity-common.js";

/** Entity writes: create folders and assets, save, metadata fragments, identifiers, links, custom previews. */
export function registerEntityWriteRoutes(_api: Hono<EntityEnv>): void {}
