import type { Hono } from "hono";
import type { EntityEnv } from "./entity-common.js";

/** Retention policies, assignments on assets, and retention events. */
export function registerRetentionRoutes(_api: Hono<EntityEnv>): void {}
