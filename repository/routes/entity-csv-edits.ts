import type { Hono } from "hono";
import type { EntityEnv } from "./entity-common.js";

/** Metadata CSV edits (POST /actions/metadata-csv-edits), run as an action. */
export function registerMetadataCsvEditRoutes(_api: Hono<EntityEnv>): void {}
