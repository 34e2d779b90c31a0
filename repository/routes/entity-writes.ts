import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { nowIso } from "../context.js";
import type { XmlNode } from "../http/xml-body.js";
import { Permission } from "../store/auth.js";
import { findEntity, fragmentsOf, refInUse, securityTagExists } from "../store/entities/read.js";
import type { EntityRecord, EntityType } from "../store/entities/types.js";
import { addRepresentation, insertEntity, updateEntityFields } from "../store/entities/write.js";
import { EventType, recordChange } from "../store/events/write.js";
import { ENTITY_PATH } from "../xml/common.js";
import { entityDocument } from "../xml/entity-docs.js";
import {
  ENTITY_API_PATH,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  requirePermission,
  writableEntity,
  xml,
  xmlRequest,
} from "./entity-common.js";
import { registerIdentifierWriteRoutes } from "./entity-identifier-writes.js";
import { registerLinkWriteRoutes } from "./entity-link-writes.js";
import { registerMetadataWriteRoutes } from "./entity-metadata-writes.js";
import { registerPreviewRoutes } from "./entity-preview.js";
import {
  clearableField,
  fieldText,
  isXipNamespace,
  refField,
  requiredField,
  requireSameEntity,
  xipObject,
} from "./entity-write-input.js";

/**
 * Entity writes: create folders and physical assets, save an entity's title/description/custom type,
 * and (in their own files) metadata fragments, identifiers, links and custom previews. Each write
 * checks everything first (a refusal is a 4xx and changes nothing), then makes its change and records
 * its event in one transaction, so every read route and the Content API see it at once.
 */
export function registerEntityWriteRoutes(api: Hono<EntityEnv>): void {
  registerCreateRoutes(api);
  registerSaveRoutes(api);
  registerMetadataWriteRoutes(api);
  registerIdentifierWriteRoutes(api);
  registerLinkWriteRoutes(api);
  registerPreviewRoutes(api);
}

/** Local names of the XIP elements of each entity type. */
const XIP_NAME: Record<EntityType, string> = {
  SO: "StructuralObject",
  IO: "InformationObject",
  CO: "ContentObject",
};

const EXAMPLE_REF = "7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f";
const EXAMPLE_PARENT = "0b6f8e52-3a41-4c77-9d0e-5f2a8c1b7e34";

function folderExample(xipNs: string): string {
  return `<StructuralObject xmlns="${xipNs}"><Ref>${EXAMPLE_REF}</Ref><Title>Minutes</Title><Description>Council minutes</Description><SecurityTag>open</SecurityTag><Parent>${EXAMPLE_PARENT}</Parent></StructuralObject>`;
}

function assetExample(xipNs: string): string {
  return `<XIP xmlns="${xipNs}"><InformationObject><Title>Minute book</Title><Description>Bound volume</Description><SecurityTag>open</SecurityTag><Parent>${EXAMPLE_PARENT}</Parent></InformationObject><Representation><Type>Physical</Type></Representation></XIP>`;
}

function saveExample(type: EntityType, xipNs: string): string {
  const el = XIP_NAME[type];
  return `<${el} xmlns="${xipNs}"><Ref>${EXAMPLE_REF}</Ref><Title>New title</Title><Description>New description</Description><SecurityTag>open</SecurityTag></${el}>`;
}

function xipNsOf(c: EntityContext): string {
  return c.get("render").version.xipNs;
}

// ---------------------------------------------------------------------------------------------------
// Create

interface NewEntityRequest {
  ref: string | undefined;
  title: string;
  description: string | null;
  securityTag: string;
  customType: string | null;
  parentRef: string | undefined;
}

function readNewEntity(obj: XmlNode, example: string): NewEntityRequest {
  return {
    ref: refField(obj, "Ref"),
    title: requiredField(obj, "Title", example),
    description: clearableField(obj, "Description") ?? null,
    securityTag: requiredField(obj, "SecurityTag", example),
    customType: clearableField(obj, "CustomType") ?? null,
    parentRef: refField(obj, "Parent"),
  };
}

/**
 * Checks a new entity against the store and the caller's rights: the tag exists, the parent is a live
 * folder the caller may ingest into (at the top level: Ingest on the new entity's own tag), and the
 * client-made ref, when given, is not in use. Returns the parent folder, if any.
 */
function checkNewEntity(c: EntityContext, type: EntityType, req: NewEntityRequest): EntityRecord | undefined {
  const { db } = c.get("svc");
  if (!securityTagExists(db, req.securityTag)) {
    const tags = db.prepare("SELECT name FROM security_tags ORDER BY name").pluck().all().join(", ");
    throw new HTTPException(400, {
      message: `Security tag "${req.securityTag}" does not exist; use one of: ${tags}`,
    });
  }
  let parent: EntityRecord | undefined;
  if (req.parentRef) {
    parent = findEntity(db, req.parentRef);
    if (!parent) {
      throw new HTTPException(404, {
        message: `Parent folder ${req.parentRef} not found; give the ref of an existing folder in <Parent>`,
      });
    }
    if (parent.type !== "SO") {
      throw new HTTPException(400, {
        message: `Parent ${parent.ref} is not a folder; folders and assets are created in folders (${ENTITY_API_PATH}/${ENTITY_PATH.SO}/{ref})`,
      });
    }
    requirePermission(c, parent, Permission.INGEST);
  } else if (type === "IO") {
    throw new HTTPException(400, {
      message: "An asset must be created in a folder; give the folder's ref in <Parent>",
    });
  } else {
    const caller = c.get("caller");
    if (!caller.permissions.permits(req.securityTag, Permission.INGEST)) {
      throw new HTTPException(403, {
        message: `User ${caller.user.username} lacks the ${Permission.INGEST} permission on security tag "${req.securityTag}", needed to create a top-level folder with it`,
      });
    }
  }
  if (req.ref && refInUse(db, req.ref)) {
    throw new HTTPException(409, {
      message: `Reference ${req.ref} is already in use (by a live or deleted entity); leave <Ref> out or send a new UUID`,
    });
  }
  return parent;
}

/** Physical representations of a new asset; any other kind needs content, which only ingest brings. */
function physicalRepresentations(xip: XmlNode | undefined, example: string): (string | null)[] {
  if (!xip) return [];
  const names: (string | null)[] = [];
  for (const node of xip.children) {
    if (node.name === "ContentObject" || node.name === "Generation" || node.name === "Bitstream") {
      throw new HTTPException(400, {
        message: `<${node.name}> cannot be created this way: assets with digital content are created by ingest (upload a package); this request creates physical assets only, as in ${example}`,
      });
    }
    if (node.name !== "Representation") continue;
    const type = fieldText(node, "Type");
    if (type !== "Physical") {
      throw new HTTPException(400, {
        message: `Representation type "${type ?? ""}" cannot be created this way; send <Type>Physical</Type> (digital representations are created by ingest)`,
      });
    }
    names.push(fieldText(node, "Name") || null);
  }
  return names;
}

function entityReply(c: EntityContext, ref: string): Response {
  const { db } = c.get("svc");
  return xml(c, entityDocument(c.get("render"), findEntity(db, ref) as EntityRecord, fragmentsOf(db, ref)));
}

function registerCreateRoutes(api: Hono<EntityEnv>): void {
  api.post(`/${ENTITY_PATH.SO}`, async (c) => {
    const example = folderExample(xipNsOf(c));
    const root = await xmlRequest(c, example);
    const req = readNewEntity(xipObject(root, XIP_NAME.SO, example), example);
    const parent = checkNewEntity(c, "SO", req);
    const ref = createEntity(c, "SO", req, [], parent);
    return entityReply(c, ref);
  });

  api.post(`/${ENTITY_PATH.IO}`, async (c) => {
    const example = assetExample(xipNsOf(c));
    const root = await xmlRequest(c, example);
    const wrapped = root.name === "XIP" && isXipNamespace(root.ns);
    const req = readNewEntity(xipObject(root, XIP_NAME.IO, example), example);
    const representations = physicalRepresentations(wrapped ? root : undefined, example);
    const parent = checkNewEntity(c, "IO", req);
    const ref = createEntity(c, "IO", req, representations, parent);
    return entityReply(c, ref);
  });
}

/** Inserts the checked entity (and an asset's physical representations) and records its creation. */
function createEntity(
  c: EntityContext,
  type: "SO" | "IO",
  req: NewEntityRequest,
  representations: (string | null)[],
  parent: EntityRecord | undefined,
): string {
  const { db } = c.get("svc");
  const now = nowIso(c);
  return db.transaction(() => {
    const e = insertEntity(db, {
      ref: req.ref,
      type,
      title: req.title,
      description: req.description,
      securityTag: req.securityTag,
      customType: req.customType,
      parentRef: parent?.ref ?? null,
      created: now,
    });
    for (const name of representations) addRepresentation(db, e.ref, "Physical", name, []);
    const where = parent ? `in folder ${parent.ref}` : "at the top level";
    recordChange(db, {
      username: c.get("caller").user.username,
      date: now,
      type: EventType.CREATED,
      commandType: type === "SO" ? "CreateFolder" : "CreateAsset",
      entityRefs: [e.ref],
      detail: `Created ${type === "SO" ? "folder" : "physical asset"} "${req.title}" ${where}`,
    });
    return e.ref;
  })();
}

// ---------------------------------------------------------------------------------------------------
// Save

/**
 * PUT of the XIP object: sets Title, Description and CustomType. An absent element leaves its field as
 * it is; an empty Description or CustomType clears it; an empty Title is refused. SecurityTag and
 * Parent are ignored (they change through security-descriptor and parent-ref, which check more).
 */
function registerSaveRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.put(`/${path}/:ref`, async (c) => {
      const example = saveExample(type, xipNsOf(c));
      const root = await xmlRequest(c, example);
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const obj = xipObject(root, XIP_NAME[type], example);
      requireSameEntity(obj, "Ref", e.ref);
      const title = fieldText(obj, "Title");
      if (title === "") {
        throw new HTTPException(400, {
          message: `<Title> is empty; every entity needs a title, as in ${example}`,
        });
      }
      const changes = {
        title,
        description: clearableField(obj, "Description"),
        customType: clearableField(obj, "CustomType"),
      };
      const { db } = c.get("svc");
      const now = nowIso(c);
      db.transaction(() => {
        const changed = updateEntityFields(db, e.ref, changes);
        // A save that changes nothing leaves no trace, so harvesters are not sent after no news.
        if (changed.length === 0) return;
        recordChange(db, {
          username: c.get("caller").user.username,
          date: now,
          type: EventType.MODIFIED,
          commandType: "UpdateEntity",
          entityRefs: [e.ref],
          detail: `Changed ${changed.join(", ")}`,
        });
      })();
      return entityReply(c, e.ref);
    });
  }
}
