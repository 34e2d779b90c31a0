import { Hono } from "hono";
import type { AppEnv } from "../context.js";

/** Entity API (XML). Placeholder until the entity routes land. */
export function entityRoutes(_newestVersion: string): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
