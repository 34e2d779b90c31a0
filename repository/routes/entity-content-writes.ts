import type { Hono } from "hono";
import type { EntityEnv } from "./entity-common.js";

/** Content writes: replacing a content object's content (a new generation) and adding access representations. */
export function registerEntityContentWriteRoutes(_api: Hono<EntityEnv>): void {}
