import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { Permission } from "../store/auth.js";
import { findEntity, findLink, findSameLink } from "../store/entities/read.js";
import type { EntityRecord, LinkRow } from "../store/entities/types.js";
import { addLink, deleteLink } from "../store/entities/write.js";
import { linkDocument } from "../xml/write-docs.js";
import {
  changeEntity,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  noContent,
  readableEntity,
  requirePermission,
  writableEntity,
  xml,
  xmlRequest,
} from "./entity-common.js";
import {
  refField,
  requireApiId,
  requiredField,
  requireSameEntity,
  requireXipElement,
} from "./entity-write-input.js";

/**
 * Links (relationships) between entities: add one from this entity (POST …/links), remove one this
 * entity takes part in (DELETE …/links/{apiId}), read one (GET, the Self of the reply). Writes need
 * Update Metadata on this entity's tag; the entity linked to must exist and be readable.
 */

function linkExample(xipNs: string): string {
  return `<Link xmlns="${xipNs}"><Type>http://purl.org/dc/terms/references</Type><FromEntity>7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f</FromEntity><ToEntity>0b6f8e52-3a41-4c77-9d0e-5f2a8c1b7e34</ToEntity></Link>`;
}

/** The link `apiId` that `e` takes part in (from or to), or a 404 that says where links are listed. */
function linkOf(c: EntityContext, e: EntityRecord, rawApiId: string | undefined): LinkRow {
  const apiId = requireApiId(rawApiId, "Link ApiId", "links (GET …/links, attribute apiId)");
  const found = findLink(c.get("svc").db, apiId);
  if (!found || (found.from_ref !== e.ref && found.to_ref !== e.ref)) {
    throw new HTTPException(404, {
      message: `Link ${apiId} not found on entity ${e.ref}; GET …/links lists its links with their apiId`,
    });
  }
  return found;
}

/** The target of a new link: it must exist, be another entity, and be readable by the caller. */
function linkTarget(c: EntityContext, from: EntityRecord, toRef: string): EntityRecord {
  if (toRef === from.ref) {
    throw new HTTPException(400, {
      message: `<ToEntity> is the entity itself (${toRef}); a link joins two different entities`,
    });
  }
  const to = findEntity(c.get("svc").db, toRef);
  if (!to) {
    throw new HTTPException(404, {
      message: `ToEntity ${toRef} not found; link to an existing folder or asset`,
    });
  }
  requirePermission(c, to, Permission.READ_METADATA);
  return to;
}

export function registerLinkWriteRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.post(`/${path}/:ref/links`, async (c) => {
      const example = linkExample(c.get("render").version.xipNs);
      const root = await xmlRequest(c, example);
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      requireXipElement(root, "Link", example);
      const linkType = requiredField(root, "Type", example);
      requireSameEntity(root, "FromEntity", e.ref);
      const toRef = refField(root, "ToEntity");
      if (!toRef) {
        throw new HTTPException(400, {
          message: `<ToEntity> is missing or empty; give the ref of the entity to link to, as in ${example}`,
        });
      }
      const to = linkTarget(c, e, toRef);
      const { db } = c.get("svc");
      const same = findSameLink(db, linkType, e.ref, to.ref);
      if (same) {
        throw new HTTPException(409, {
          message: `Entity ${e.ref} already has a ${linkType} link to ${to.ref} (apiId ${same.api_id}); nothing to add`,
        });
      }
      const apiId = changeEntity(
        c,
        e,
        "AddLink",
        (db) => addLink(db, linkType, e.ref, to.ref),
        (id) => `Linked ${e.ref} to ${to.ref} as ${linkType} (apiId ${id})`,
      );
      return xml(c, linkDocument(c.get("render"), e, findLink(db, apiId) as LinkRow));
    });

    api.get(`/${path}/:ref/links/:apiId`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      const link = linkOf(c, e, c.req.param("apiId"));
      const other = findEntity(c.get("svc").db, link.from_ref === e.ref ? link.to_ref : link.from_ref);
      // Like the list, a link shows only while the entity at its other end is live and readable.
      if (!other) {
        throw new HTTPException(404, { message: `Link ${link.api_id} leads to an entity that was deleted` });
      }
      requirePermission(c, other, Permission.READ_METADATA);
      return xml(c, linkDocument(c.get("render"), e, link));
    });

    api.delete(`/${path}/:ref/links/:apiId`, (c) => {
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const link = linkOf(c, e, c.req.param("apiId"));
      changeEntity(
        c,
        e,
        "DeleteLink",
        (db) => deleteLink(db, link.api_id),
        `Removed the ${link.link_type} link from ${link.from_ref} to ${link.to_ref} (apiId ${link.api_id})`,
      );
      return noContent(c);
    });
  }
}
