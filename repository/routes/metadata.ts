import { Hono } from "hono";
import type { AppEnv } from "../context.js";

/** Metadata groups and forms (JSON, `/api/metadata`), and CSV templates built from groups. */
export function metadataRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
