import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestText } from "../http/request-text.js";
import { METADATA_CSV_EDIT } from "../jobs/metadata-csv-edit.js";
import { startAction } from "../jobs/start.js";
import { readCsvEdit } from "../metadata-groups/csv.js";
import { Permission } from "../store/auth.js";
import { allGroups } from "../store/metadata-groups/read.js";
import { type EntityEnv, progressReply } from "./entity-common.js";

/**
 * Metadata CSV edits (POST /actions/metadata-csv-edits, `text/csv`), run as an action. The file as a
 * whole is checked here, before anything changes (400: unreadable, no PRESERVICA_ENTITY_REF column,
 * unknown columns, no rows); each row is then applied or refused on its own by the action
 * (jobs/metadata-csv-edit.ts), whose detail at /actions/metadata-csv-edits/{id} lists both. The body is
 * capped at 1 MiB like every request body (413 above it).
 */
export function registerMetadataCsvEditRoutes(api: Hono<EntityEnv>): void {
  api.post(`/actions/${METADATA_CSV_EDIT.path}`, async (c) => {
    const { db } = c.get("svc");
    const { user, permissions } = c.get("caller");
    // Each row needs Update Metadata on its entity's tag; a user with it on no tag could change nothing.
    if (permissions.tagsWith(Permission.UPDATE_METADATA).length === 0) {
      throw new HTTPException(403, {
        message: `User ${user.username} holds the ${Permission.UPDATE_METADATA} permission on no security tag, so a metadata CSV edit could change nothing; ask an administrator for a role that may update metadata`,
      });
    }
    // Not c.req.text(): bytes that are not UTF-8 (a CSV saved as Windows-1252) would become U+FFFD.
    const plan = readCsvEdit(await requestText(c.req), allGroups(db));
    const action = startAction(c, { kind: METADATA_CSV_EDIT.kind, params: plan, total: plan.rows.length });
    return progressReply(c, action.id);
  });
}
