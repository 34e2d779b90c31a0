import type { Hono } from "hono";
import type { EntityEnv } from "./entity-common.js";

/** Deletion (submission, approval), the recycle bin, recovery and final deletion. */
export function registerEntityDeletionRoutes(_api: Hono<EntityEnv>): void {}
