import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import {
  childrenPage,
  findFragment,
  fragmentsOf,
  fragmentsPage,
  identifiersPage,
  linksPage,
} from "../store/entities/read.js";
import {
  childrenDocument,
  entityDocument,
  fragmentListDocument,
  identifiersDocument,
  linksDocument,
  metadataDocument,
} from "../xml/entity-docs.js";
import { versionDetailsDocument } from "../xml/event-docs.js";
import { fullVersionString, newestVersion } from "../xml/versions.js";
import { registerEntityActionRoutes } from "./entity-actions.js";
import {
  ENTITY_TYPE_PATHS,
  type EntityEnv,
  pagedXml,
  readableEntity,
  readableTags,
  refInPath,
  versionMiddleware,
  xml,
} from "./entity-common.js";
import { registerEntityContentWriteRoutes } from "./entity-content-writes.js";
import { registerMetadataCsvEditRoutes } from "./entity-csv-edits.js";
import { registerEntityDeletionRoutes } from "./entity-deletions.js";
import { registerEntityEventRoutes } from "./entity-events.js";
import { registerEntityExportRoutes } from "./entity-exports.js";
import { registerEntityFileRoutes } from "./entity-files.js";
import { registerEntityIngestRoutes } from "./entity-ingest.js";
import { registerEntityStructureRoutes } from "./entity-structure.js";
import { registerEntityWriteRoutes } from "./entity-writes.js";
import { registerRetentionRoutes } from "./retention.js";
import { registerBitstreamStorageRoutes } from "./storage.js";

/**
 * Entity API (XML). One sub-app holds every route; app.ts mounts it twice (it is `versioned`), on `/vX.Y`
 * (answers in that version's namespaces) and on `/` (answers in the newest), so the two can never drift apart.
 * Every route needs a token, and every entity route Read Metadata on the entity's security tag (writes
 * also the permission they need, see docs/repository-api.md).
 */
export function entityRoutes(newest: string): Hono<AppEnv> {
  const api = new Hono<EntityEnv>();
  api.use("*", versionMiddleware(newestVersion(newest)), requireToken);

  const current = fullVersionString(newest);
  api.get("/versiondetails/version", (c) => xml(c, versionDetailsDocument(c.get("render").version, current)));

  registerEntityReadRoutes(api);
  registerEntityFileRoutes(api);
  registerBitstreamStorageRoutes(api);
  registerEntityEventRoutes(api);
  registerEntityWriteRoutes(api);
  registerEntityStructureRoutes(api);
  registerEntityContentWriteRoutes(api);
  registerEntityIngestRoutes(api);
  registerEntityDeletionRoutes(api);
  registerRetentionRoutes(api);
  registerMetadataCsvEditRoutes(api);
  registerEntityExportRoutes(api);
  // Last: its generic /actions/{kind} listings yield to the kind-specific routes registered above.
  registerEntityActionRoutes(api);

  return api as unknown as Hono<AppEnv>;
}

function registerEntityReadRoutes(api: Hono<EntityEnv>): void {
  api.get("/root/children", (c) => {
    return pagedXml(
      c,
      (start, max) => childrenPage(c.get("svc").db, null, readableTags(c), start, max),
      (items, meta) => childrenDocument(c.get("render"), items, meta),
    );
  });

  api.get("/structural-objects/:ref/children", (c) => {
    const folder = readableEntity(c, c.req.param("ref"), "SO");
    return pagedXml(
      c,
      (start, max) => childrenPage(c.get("svc").db, folder.ref, readableTags(c), start, max),
      (items, meta) => childrenDocument(c.get("render"), items, meta),
    );
  });

  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.get(`/${path}/:ref`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      return xml(c, entityDocument(c.get("render"), e, fragmentsOf(c.get("svc").db, e.ref)));
    });

    api.get(`/${path}/:ref/metadata`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      return pagedXml(
        c,
        (start, max) => fragmentsPage(c.get("svc").db, e.ref, start, max),
        (items, meta) => fragmentListDocument(c.get("render"), e, items, meta),
      );
    });

    api.get(`/${path}/:ref/metadata/:mref`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      const mref = refInPath(c.req.param("mref"), "Metadata fragment reference");
      const f = findFragment(c.get("svc").db, mref);
      if (!f || f.entity_ref !== e.ref) {
        throw new HTTPException(404, {
          message: `Metadata fragment ${mref} not found on entity ${e.ref}; the entity's Metadata/Fragment URLs list its fragments`,
        });
      }
      return xml(c, metadataDocument(c.get("render"), e, f));
    });

    api.get(`/${path}/:ref/identifiers`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      return pagedXml(
        c,
        (start, max) => identifiersPage(c.get("svc").db, e.ref, start, max),
        (items, meta) => identifiersDocument(c.get("render"), items, meta),
      );
    });

    api.get(`/${path}/:ref/links`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      return pagedXml(
        c,
        (start, max) => linksPage(c.get("svc").db, e.ref, readableTags(c), start, max),
        (items, meta) => linksDocument(c.get("render"), items, meta),
      );
    });
  }
}
