import { Hono } from "hono";
import type { AppEnv } from "../context.js";

/** Content API (JSON). Placeholder until the content routes land. */
export function contentRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
