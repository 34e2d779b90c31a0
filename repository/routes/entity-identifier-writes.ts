import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { XmlNode } from "../http/xml-body.js";
import { Permission } from "../store/auth.js";
import { findIdentifier } from "../store/entities/read.js";
import type { EntityRecord, EntityType, IdentifierRecord } from "../store/entities/types.js";
import { addIdentifier, deleteIdentifier, updateIdentifier } from "../store/entities/write.js";
import { identifierDocument } from "../xml/write-docs.js";
import {
  changeEntity,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  noContent,
  readableEntity,
  writableEntity,
  xml,
  xmlRequest,
} from "./entity-common.js";
import { requireApiId, requiredField, requireSameEntity, requireXipElement } from "./entity-write-input.js";

/**
 * External identifiers: add (POST …/identifiers), change (PUT …/identifiers/{apiId}), remove (DELETE),
 * and read one (GET, the Self of the replies). Writes need Update Metadata on the entity's tag.
 */

function identifierExample(xipNs: string): string {
  return `<Identifier xmlns="${xipNs}"><Type>accession</Type><Value>A-17</Value><Entity>7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f</Entity></Identifier>`;
}

/** Type and Value of an `<Identifier>` body (both required); its Entity, when given, must be `e`. */
function readIdentifier(root: XmlNode, e: EntityRecord, example: string): { type: string; value: string } {
  requireXipElement(root, "Identifier", example);
  const type = requiredField(root, "Type", example);
  const value = requiredField(root, "Value", example);
  requireSameEntity(root, "Entity", e.ref);
  return { type, value };
}

/** The identifier `apiId` of entity `e`, or a 404 that says where the entity's identifiers are listed. */
function identifierOf(c: EntityContext, e: EntityRecord, rawApiId: string | undefined): IdentifierRecord {
  const apiId = requireApiId(rawApiId, "Identifier ApiId", "identifiers (GET …/identifiers)");
  const found = findIdentifier(c.get("svc").db, apiId);
  if (!found || found.entity_ref !== e.ref) {
    throw new HTTPException(404, {
      message: `Identifier ${apiId} not found on entity ${e.ref}; GET …/identifiers lists its identifiers with their ApiId`,
    });
  }
  return found;
}

function reply(c: EntityContext, type: EntityType, apiId: string): Response {
  const row = findIdentifier(c.get("svc").db, apiId) as IdentifierRecord;
  return xml(c, identifierDocument(c.get("render"), type, row));
}

export function registerIdentifierWriteRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.post(`/${path}/:ref/identifiers`, async (c) => {
      const example = identifierExample(c.get("render").version.xipNs);
      const root = await xmlRequest(c, example);
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const { type: idType, value } = readIdentifier(root, e, example);
      const apiId = changeEntity(
        c,
        e,
        "AddIdentifier",
        (db) => addIdentifier(db, e.ref, idType, value),
        (id) => `Added identifier ${idType} = ${value} (ApiId ${id})`,
      );
      return reply(c, type, apiId);
    });

    api.get(`/${path}/:ref/identifiers/:apiId`, (c) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      return reply(c, type, identifierOf(c, e, c.req.param("apiId")).api_id);
    });

    api.put(`/${path}/:ref/identifiers/:apiId`, async (c) => {
      const example = identifierExample(c.get("render").version.xipNs);
      const root = await xmlRequest(c, example);
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const old = identifierOf(c, e, c.req.param("apiId"));
      const { type: idType, value } = readIdentifier(root, e, example);
      changeEntity(
        c,
        e,
        "UpdateIdentifier",
        (db) => updateIdentifier(db, old.api_id, idType, value),
        `Changed identifier ${old.api_id} from ${old.type} = ${old.value} to ${idType} = ${value}`,
      );
      return reply(c, type, old.api_id);
    });

    api.delete(`/${path}/:ref/identifiers/:apiId`, (c) => {
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const old = identifierOf(c, e, c.req.param("apiId"));
      changeEntity(
        c,
        e,
        "DeleteIdentifier",
        (db) => deleteIdentifier(db, old.api_id),
        `Removed identifier ${old.type} = ${old.value} (ApiId ${old.api_id})`,
      );
      return noContent(c);
    });
  }
}
