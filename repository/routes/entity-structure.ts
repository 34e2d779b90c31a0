import type { Hono } from "hono";
import type { EntityEnv } from "./entity-common.js";

/** Structure changes: move (parent-ref) and security tags (security-descriptor), run as actions. */
export function registerEntityStructureRoutes(_api: Hono<EntityEnv>): void {}
