import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { isUuid } from "../http/params.js";
import { moveAction } from "../jobs/move.js";
import { type SecurityTagParams, securityTagAction, securityTagTargets } from "../jobs/security-tag.js";
import { startAction } from "../jobs/start.js";
import { Permission } from "../store/auth.js";
import { findEntity } from "../store/entities/read.js";
import type { EntityType } from "../store/entities/types.js";
import { isSelfOrAncestor, securityTagNames } from "../store/structure/read.js";
import { ENTITY_PATH } from "../xml/common.js";
import {
  ENTITY_API_PATH,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  progressReply,
  requirePermission,
  writableEntity,
} from "./entity-common.js";

/**
 * Structure changes, run as long-running actions (jobs/move.ts, jobs/security-tag.ts): move
 * (PUT …/{ref}/parent-ref) and security tag (PUT …/{ref}/security-descriptor). Everything that can be
 * checked is checked here, before the action exists: a refused request changes nothing.
 */
export function registerEntityStructureRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.put(`/${path}/:ref/parent-ref`, (c) => move(c, type));
    api.put(`/${path}/:ref/security-descriptor`, (c) => changeSecurityTag(c, type));
  }
}

const ROOT = "@root@";
const TYPE_WORDS: Record<EntityType, string> = { SO: "a folder", IO: "an asset", CO: "a content object" };

function conflict(message: string): HTTPException {
  return new HTTPException(409, { message });
}

async function move(c: EntityContext, type: EntityType): Promise<Response> {
  const { db } = c.get("svc");
  const e = writableEntity(c, c.req.param("ref"), type, Permission.MOVE);
  if (e.type === "CO") {
    throw conflict(
      `Content objects stay with their asset; move the asset instead (PUT ${ENTITY_API_PATH}/${ENTITY_PATH.IO}/${e.parent_ref ?? "{asset}"}/parent-ref)`,
    );
  }
  const body = (await c.req.text()).trim();
  const hint = `send the destination folder's reference as the text/plain body (e.g. 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f), or ${ROOT} for the top level`;
  if (body === "") throw new HTTPException(400, { message: `The request body is empty; ${hint}` });
  let destination: string | null = null;
  if (body !== ROOT) {
    if (!isUuid(body)) {
      throw new HTTPException(400, {
        message: `"${body.slice(0, 80)}" is not a folder reference; ${hint}`,
      });
    }
    destination = body.toLowerCase();
  }
  if (destination === null) {
    if (e.type !== "SO") {
      throw conflict(`Only folders can be at the top level; move asset ${e.ref} into a folder instead`);
    }
  } else {
    if (destination === e.ref) {
      const what = e.type === "SO" ? "Folder" : "Asset";
      throw conflict(`${what} ${e.ref} cannot be moved into itself; choose a folder to move it into`);
    }
    const dest = findEntity(db, destination);
    if (!dest) {
      throw new HTTPException(404, {
        message: `Destination folder ${destination} not found; ${hint}`,
      });
    }
    requirePermission(c, dest, Permission.READ_METADATA);
    requirePermission(c, dest, Permission.MOVE);
    if (dest.type !== "SO") {
      throw conflict(
        `Destination ${dest.ref} is ${TYPE_WORDS[dest.type]}; folders and assets can only be moved into a folder`,
      );
    }
    if (isSelfOrAncestor(db, e.ref, dest.ref)) {
      throw conflict(
        `Destination folder ${dest.ref} is inside ${e.ref}; a folder cannot be moved into its own subtree`,
      );
    }
  }
  const a = startAction(c, {
    kind: moveAction.kind,
    entityRef: e.ref,
    entityType: e.type,
    params: { destination, from: e.parent_ref },
  });
  return progressReply(c, a.id);
}

/** `includeDescendants`: absent = false; true/false in any case; anything else is refused. */
function includeDescendantsParam(c: EntityContext): boolean {
  const raw = c.req.query("includeDescendants");
  if (raw === undefined || raw.trim() === "") return false;
  const v = raw.trim().toLowerCase();
  if (v === "true" || v === "false") return v === "true";
  throw new HTTPException(400, {
    message: `Parameter includeDescendants must be true or false, got "${raw}"`,
  });
}

async function changeSecurityTag(c: EntityContext, type: EntityType): Promise<Response> {
  const { db } = c.get("svc");
  const e = writableEntity(c, c.req.param("ref"), type, Permission.CHANGE_SECURITY);
  const includeDescendants = includeDescendantsParam(c);
  const tag = (await c.req.text()).trim();
  const tags = securityTagNames(db);
  if (tag === "") {
    throw new HTTPException(400, {
      message: `The request body is empty; send the new security tag as the text/plain body, one of: ${tags.join(", ")}`,
    });
  }
  if (!tags.includes(tag)) {
    throw new HTTPException(400, {
      message: `Security tag "${tag.slice(0, 80)}" does not exist; the security tags are: ${tags.join(", ")}`,
    });
  }
  // Every entity the change covers needs the permission, so a refusal comes now, not half-way through.
  const caller = c.get("caller");
  const denied = securityTagTargets(db, e, includeDescendants).find(
    (t) => !caller.permissions.permits(t.security_tag, Permission.CHANGE_SECURITY),
  );
  if (denied) {
    throw new HTTPException(403, {
      message: `User ${caller.user.username} lacks the ${Permission.CHANGE_SECURITY} permission on security tag "${denied.security_tag}" of entity ${denied.ref}, which is under ${e.ref} and would change with it; nothing was changed`,
    });
  }
  const params: SecurityTagParams = { tag, includeDescendants, previous: e.security_tag };
  const a = startAction(c, {
    kind: securityTagAction.kind,
    entityRef: e.ref,
    entityType: e.type,
    params,
  });
  return progressReply(c, a.id);
}
