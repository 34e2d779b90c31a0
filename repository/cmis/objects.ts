import { HTTPException } from "hono/http-exception";
import { type EntityFile, fileOf } from "../search/files.js";
import { objectDetails } from "../search/object-details.js";
import { parseObjectId } from "../search/query.js";
import { Permission, type Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { childrenPage, getEntity, tagsParam } from "../store/entities/read.js";
import type { EntityRow } from "../store/entities/types.js";
import { prepared } from "../store/statements.js";
import type { BaseTypeId } from "./types.js";

/**
 * The CMIS view of the repository: folders and assets the caller may read (Read Metadata on the
 * security tag), under one synthetic root folder whose children are the top level. Properties come
 * from the Content API's object details, so names, Title and Description (the configured CMIS
 * transform) are the same in both APIs; CMIS adds its own base properties around them.
 */

export const ROOT_ID = "root";
const ID_EXAMPLE = "sdb:IO|7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f";

export interface CmisObject {
  id: string;
  baseType: BaseTypeId;
  name: string;
  description: string;
  created: string;
  modified: string;
  createdBy: string;
  modifiedBy: string;
  /** The CMIS parent folder's id (the root for the top level); undefined for the root itself. */
  parentId?: string;
  /** Property id → values (empty = not set); only the ones with a value need be here. */
  values: Map<string, string[]>;
  /** The asset's file (documents); its bytes need Download as well. */
  file?: EntityFile;
  canDownload: boolean;
  /** The stored entity, absent for the root. */
  entity?: EntityRow;
}

export interface ViewContext {
  db: Db;
  permissions: Permissions;
  /** Origin of this service, for the object-details links (not shown over CMIS). */
  origin: string;
}

const isoOfEpoch = (s: string) => (/^\d+$/.test(s) ? new Date(Number(s) * 1000).toISOString() : "");

/** The root folder: always readable; dated by the oldest and newest change in the store. */
export function rootObject(db: Db): CmisObject {
  const span = prepared(db, "SELECT min(created) AS first, max(modified) AS last FROM entities").get() as {
    first: string | null;
    last: string | null;
  };
  const created = span.first ?? new Date(0).toISOString();
  const values = new Map<string, string[]>([
    ["cmis:objectId", [ROOT_ID]],
    ["cmis:baseTypeId", ["cmis:folder"]],
    ["cmis:objectTypeId", ["cmis:folder"]],
    ["cmis:name", [""]],
    ["cmis:description", ["The top level of the repository"]],
    ["cmis:creationDate", [created]],
    ["cmis:lastModificationDate", [span.last ?? created]],
    ["cmis:path", ["/"]],
  ]);
  return {
    id: ROOT_ID,
    baseType: "cmis:folder",
    name: "",
    description: "The top level of the repository",
    created,
    modified: span.last ?? created,
    createdBy: "system",
    modifiedBy: "system",
    values,
    canDownload: false,
  };
}

/** The CMIS object of a readable folder or asset. */
export function entityObject(ctx: ViewContext, e: EntityRow): CmisObject {
  const details = objectDetails(ctx.db, e, {
    baseUrl: ctx.origin,
    permissions: ctx.permissions,
    excludeHistory: false,
  });
  const values = new Map<string, string[]>();
  for (const { name, value } of details.properties) {
    values.set(name, [/Date$/.test(name) ? isoOfEpoch(value) : value]);
  }
  const baseType: BaseTypeId = e.type === "SO" ? "cmis:folder" : "cmis:document";
  values.set("cmis:baseTypeId", [baseType]);
  values.set("cmis:objectTypeId", [baseType]);
  const parentId = e.parent_ref ? `sdb:SO|${e.parent_ref}` : ROOT_ID;
  const canDownload = ctx.permissions.permits(e.security_tag, Permission.DOWNLOAD);
  const file = baseType === "cmis:document" ? fileOf(ctx.db, e) : undefined;
  if (baseType === "cmis:folder") {
    values.set("cmis:parentId", [parentId]);
    values.set("cmis:path", [pathOf(ctx, e, details.name)]);
  } else {
    for (const flag of ["cmis:isImmutable", "cmis:isLatestVersion", "cmis:isMajorVersion"])
      values.set(flag, ["true"]);
    values.set("cmis:isLatestMajorVersion", ["true"]);
    values.set("cmis:isPrivateWorkingCopy", ["false"]);
    values.set("cmis:isVersionSeriesCheckedOut", ["false"]);
    values.set("cmis:versionSeriesId", [details.id]);
  }
  const first = (name: string) => values.get(name)?.[0] ?? "";
  return {
    id: details.id,
    baseType,
    name: details.name,
    description: details.metadata.description,
    created: first("cmis:creationDate") || e.created,
    modified: first("cmis:lastModificationDate") || e.modified,
    createdBy: first("cmis:createdBy") || "system",
    modifiedBy: first("cmis:lastModifiedBy") || "system",
    parentId,
    values,
    file,
    canDownload: Boolean(file) && canDownload,
    entity: e,
  };
}

/** `/` and the names (CMIS transform titles) of the folders from the top level down to `e`. */
function pathOf(ctx: ViewContext, e: EntityRow, name: string): string {
  const names = [name];
  let parent = e.parent_ref;
  // Bounded: a folder tree deeper than this is not a real collection.
  for (let depth = 0; parent && depth < 200; depth++) {
    const p = getEntity(ctx.db, parent);
    if (!p) break;
    names.unshift(
      objectDetails(ctx.db, p, { baseUrl: ctx.origin, permissions: ctx.permissions, excludeHistory: true })
        .name,
    );
    parent = p.parent_ref;
  }
  return `/${names.join("/")}`;
}

const TYPE_NAMES = { SO: "folder", IO: "asset", CO: "content object" } as const;

/**
 * The object an `id` parameter names: 400 when missing or malformed, 404 when unknown, deleted or a
 * content object (not a CMIS object), 403 when the caller may not read it.
 */
export function requireObject(ctx: ViewContext, raw: string | undefined, param = "id"): CmisObject {
  const e = requireEntityOrRoot(ctx, raw, param);
  return e ? entityObject(ctx, e) : rootObject(ctx.db);
}

/** Like requireObject, but the entity row (undefined for the root), without building the view. */
export function requireEntityOrRoot(
  ctx: ViewContext,
  raw: string | undefined,
  param = "id",
): EntityRow | undefined {
  if (raw === undefined || raw.trim() === "") {
    throw new HTTPException(400, {
      message: `Parameter ${param} is required: an object id such as ${ID_EXAMPLE}, or ${ROOT_ID} for the root folder`,
    });
  }
  if (raw.trim() === ROOT_ID) return undefined;
  const id = parseObjectId(raw);
  if (!id) {
    throw new HTTPException(400, {
      message: `Parameter ${param} is not a CMIS object id; ids look like ${ID_EXAMPLE} (or sdb:SO|… for a folder, ${ROOT_ID} for the root)`,
    });
  }
  const e = getEntity(ctx.db, id.ref);
  if (!e) throw new HTTPException(404, { message: `No folder or asset with reference ${id.ref}` });
  if (e.type === "CO") {
    throw new HTTPException(404, {
      message: `${id.ref} is a content object, which CMIS does not show; use its asset (sdb:IO|${e.parent_ref ?? "…"})`,
    });
  }
  if (id.type && id.type !== e.type) {
    throw new HTTPException(404, {
      message: `No ${TYPE_NAMES[id.type]} with reference ${id.ref}: it is a ${TYPE_NAMES[e.type]}; use sdb:${e.type}|${e.ref}`,
    });
  }
  if (!ctx.permissions.permits(e.security_tag, Permission.READ_METADATA)) {
    throw new HTTPException(403, {
      message: `You may not read ${TYPE_NAMES[e.type]} ${e.ref} (security tag ${e.security_tag})`,
    });
  }
  return e;
}

/** One page of the readable folders and assets in a folder (the root: the top level). */
export function childPage(
  ctx: ViewContext,
  folder: EntityRow | undefined,
  skip: number,
  max: number,
): { items: CmisObject[]; total: number } {
  const tags = tagsParam(ctx.permissions.tagsWith(Permission.READ_METADATA));
  const page = childrenPage(ctx.db, folder?.ref ?? null, tags, skip, max);
  const items = page.items.flatMap((s) => {
    const e = getEntity(ctx.db, s.ref);
    return e ? [entityObject(ctx, e)] : [];
  });
  return { items, total: page.total };
}

/** The CMIS parent of an object: its folder if readable, the root at the top level. */
export function parentObject(ctx: ViewContext, e: EntityRow): CmisObject | undefined {
  if (!e.parent_ref) return rootObject(ctx.db);
  const parent = getEntity(ctx.db, e.parent_ref);
  if (!parent || !ctx.permissions.permits(parent.security_tag, Permission.READ_METADATA)) return undefined;
  return entityObject(ctx, parent);
}
