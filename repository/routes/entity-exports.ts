import { createReadStream, existsSync, rmSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import {
  EXPORT_KIND,
  EXPORT_RETENTION_DAYS,
  exportExpired,
  exportFile,
  sweepExports,
} from "../export/files.js";
import { exportActionExample, parseExportOptions } from "../export/options.js";
import { exportRefusal } from "../export/permissions.js";
import { exportScope } from "../export/plan.js";
import { hasRole, MANAGERS } from "../http/roles.js";
import type { ExportParams } from "../jobs/export.js";
import { startAction } from "../jobs/start.js";
import { getAction } from "../store/actions/read.js";
import type { EntityType } from "../store/entities/types.js";
import { contentDisposition } from "./byte-range.js";
import {
  type EntityContext,
  type EntityEnv,
  progressReply,
  readableEntity,
  refInPath,
  xmlRequest,
} from "./entity-common.js";

/**
 * Export (docs/repository-api/export.md): `POST …/{structural-objects|information-objects}/{ref}/exports`
 * with an `<ExportAction>` starts an export action and answers 202 with its progress token; once the
 * action is COMPLETED (or FINISHED_MIXED_OUTCOME), `GET /actions/exports/{id}/content` streams the
 * OPEX package (a zip) from disk. Everything the package would describe is checked before anything is
 * created: Read Metadata on every entity, Download on assets and content objects when content is
 * included (403 naming one that is not permitted). Listings are the generic `/actions/exports`.
 */
export function registerEntityExportRoutes(api: Hono<EntityEnv>): void {
  const paths: [EntityType, string][] = [
    ["SO", "structural-objects"],
    ["IO", "information-objects"],
  ];
  for (const [type, path] of paths) {
    api.post(`/${path}/:ref/exports`, async (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      const example = exportActionExample(c.get("render").version.entityNs);
      const options = parseExportOptions(await xmlRequest(c, example), example);
      const svc = c.get("svc");
      const caller = c.get("caller");
      const refusal = exportRefusal(
        caller.user.username,
        exportScope(svc.db, e.ref, options),
        caller.permissions,
        options,
      );
      if (refusal) throw new HTTPException(403, { message: refusal });
      sweepExports(svc);
      const params: ExportParams = { options };
      const action = startAction(c, { kind: EXPORT_KIND, entityRef: e.ref, entityType: type, params });
      return progressReply(c, action.id, 202);
    });
  }

  api.get("/actions/exports/:id/content", (c) => {
    const id = refInPath(c.req.param("id"), "Progress token");
    const svc = c.get("svc");
    const a = getAction(svc.db, id);
    if (a?.kind !== EXPORT_KIND) {
      throw new HTTPException(404, {
        message: `No export with progress token ${id}; exports are listed at /api/entity/actions/exports`,
      });
    }
    mayDownload(c, a.username);
    if (a.status !== "COMPLETED" && a.status !== "FINISHED_MIXED_OUTCOME") {
      throw new HTTPException(404, {
        message:
          a.status === "ACTIVE"
            ? `Export ${id} is still running; poll /api/entity/progress/${id} until it is COMPLETED, then fetch the package`
            : `Export ${id} ended ${a.status} and made no package${a.message ? ` (${a.message})` : ""}; start a new export`,
      });
    }
    const path = exportFile(svc.dataDir, id);
    if (exportExpired(a.completed, svc.now())) rmSync(path, { force: true });
    if (!existsSync(path)) {
      throw new HTTPException(404, {
        message: `The package of export ${id} is no longer kept (packages are kept ${EXPORT_RETENTION_DAYS} days after the export ends); start a new export`,
      });
    }
    const size = statSync(path).size;
    const headers = {
      "Content-Type": "application/zip",
      "Content-Length": String(size),
      "Content-Disposition": contentDisposition(`${id}.zip`),
    };
    if (c.req.method === "HEAD") return new Response(null, { status: 200, headers });
    const body = Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, { status: 200, headers });
  });
}

/** Packages go to the user who exported, and to managers and administrators. */
function mayDownload(c: EntityContext, owner: string): void {
  if (c.get("caller").user.username === owner || hasRole(c, MANAGERS)) return;
  throw new HTTPException(403, {
    message: `This export belongs to ${owner}; only its owner, managers and administrators may download its package`,
  });
}
