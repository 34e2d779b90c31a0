import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { utcInstant } from "../http/dates.js";
import { parsePaging } from "../http/paging.js";
import { isUuid } from "../http/params.js";
import { requestText } from "../http/request-text.js";
import { parseXmlBody, type XmlNode } from "../http/xml-body.js";
import { Permission } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { findEntity, tagsParam } from "../store/entities/read.js";
import type { EntityRecord, EntityType, Page } from "../store/entities/types.js";
import { EventType, recordChange } from "../store/events/write.js";
import { ENTITY_PATH, type ListMeta, type RenderContext } from "../xml/common.js";
import { type ApiVersion, resolveRequestedVersion } from "../xml/versions.js";

/** Shared plumbing of the Entity API read routes: version, URLs, refs, permissions, paging, replies. */

export type EntityEnv = {
  Variables: AppEnv["Variables"] & {
    /** Version and absolute base URL the reply is rendered for. */
    render: RenderContext;
  };
};
export type EntityContext = Context<EntityEnv>;

/** Where app.ts mounts the Entity API; response URLs are built on it. */
export const ENTITY_API_PATH = "/api/entity";
export const DEFAULT_PAGE_SIZE = 100;
const XML_CONTENT_TYPE = "application/xml;charset=UTF-8";

/**
 * Picks the reply's version: the `/vX.Y` path segment when present (404 for versions this service does
 * not speak), else the newest. Also fixes the absolute base URL on the request's own origin, keeping the
 * versioned prefix so every URL in the reply leads back to the same version.
 */
export function versionMiddleware(newest: ApiVersion) {
  return createMiddleware<EntityEnv>(async (c, next) => {
    const requested = c.req.param("version") as string | undefined;
    let version = newest;
    let base = `${new URL(c.req.url).origin}${ENTITY_API_PATH}`;
    if (requested) {
      const resolved = resolveRequestedVersion(requested, newest);
      if ("error" in resolved) throw new HTTPException(404, { message: resolved.error });
      version = resolved.version;
      base += `/v${version.label}`;
    }
    c.set("render", { version, base });
    await next();
  });
}

/** 400 unless `raw` (a value in a request body) is a UUID; returns it lower-cased (refs are stored lower-case). */
export function requireUuid(raw: string | undefined, what = "Entity reference"): string {
  return uuidOr(400, raw, what);
}

/**
 * A reference in the URL path, lower-cased. One that is not a UUID names nothing, so it answers 404 as
 * the real service does (pyPreservica turns only a 404 into ReferenceNotFoundException), with a message
 * that still says why.
 */
export function refInPath(raw: string | undefined, what = "Entity reference"): string {
  return uuidOr(404, raw, what);
}

function uuidOr(status: 400 | 404, raw: string | undefined, what: string): string {
  if (!raw || !isUuid(raw)) {
    // Clipped: the junk may be megabytes long (a body's element), and the message only needs to name it.
    const shown = raw === undefined ? "" : raw.length > 100 ? `${raw.slice(0, 100)}…` : raw;
    throw new HTTPException(status, {
      message: `${what} "${shown}" is not a UUID${status === 404 ? ", so nothing has it" : ""}; references look like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f`,
    });
  }
  return raw.toLowerCase();
}

const TYPE_NAMES: Record<EntityType, string> = {
  SO: "a structural object (folder)",
  IO: "an information object (asset)",
  CO: "a content object",
};
/** Every entity type with its path segment, for the routes registered once per type. */
export const ENTITY_TYPE_PATHS = Object.entries(ENTITY_PATH) as [EntityType, string][];

/**
 * The entity `rawRef` of `type` when the caller may read it: 404 for a malformed ref or when there is
 * no such entity of that type, 403 without Read Metadata on its security tag.
 */
export function readableEntity(c: EntityContext, rawRef: string | undefined, type: EntityType): EntityRecord {
  const ref = refInPath(rawRef);
  const e = findEntity(c.get("svc").db, ref);
  if (!e) throw new HTTPException(404, { message: `Entity ${ref} not found` });
  if (e.type !== type) {
    throw new HTTPException(404, {
      message: `Entity ${ref} not found among ${ENTITY_PATH[type]}: it is ${TYPE_NAMES[e.type]}; use ${ENTITY_API_PATH}/${ENTITY_PATH[e.type]}/${ref}`,
    });
  }
  requirePermission(c, e, Permission.READ_METADATA);
  return e;
}

export function requirePermission(c: EntityContext, e: EntityRecord, permission: Permission): void {
  const caller = c.get("caller");
  if (!caller.permissions.permits(e.security_tag, permission)) {
    throw new HTTPException(403, {
      message: `User ${caller.user.username} lacks the ${permission} permission on security tag "${e.security_tag}" of entity ${e.ref}`,
    });
  }
}

/** The caller's readable security tags, as the read queries take them. */
export function readableTags(c: EntityContext): string {
  return tagsParam(c.get("caller").permissions.tagsWith(Permission.READ_METADATA));
}

export function paging(c: EntityContext): { start: number; max: number } {
  return parsePaging((name) => c.req.query(name), DEFAULT_PAGE_SIZE);
}

/**
 * Paging facts of a list reply. Next and Previous keep every other query parameter (filters) and are
 * absolute on the request's origin; Next appears only when more results remain, Previous only after the
 * first page (neither for max=0, which would send a client round in circles).
 */
export function listMeta(c: EntityContext, start: number, max: number, total: number): ListMeta {
  const self = c.req.url;
  const at = (from: number) => {
    const url = new URL(self);
    url.searchParams.set("start", String(from));
    url.searchParams.set("max", String(max));
    return url.toString();
  };
  const meta: ListMeta = { total, self };
  if (start > 0 && max > 0) meta.previous = at(Math.max(0, start - max));
  if (max > 0 && start + max < total) meta.next = at(start + max);
  return meta;
}

/**
 * A paged list as the Entity API answers it: start and max from the query, the page `read` returns,
 * and the document `render` writes with the paging facts (total, self, next, previous).
 */
export function pagedXml<T>(
  c: EntityContext,
  read: (start: number, max: number) => Page<T>,
  render: (items: T[], meta: ListMeta) => string,
): Response {
  const { start, max } = paging(c);
  const page = read(start, max);
  return xml(c, render(page.items, listMeta(c, start, max, page.total)));
}

export function xml(c: EntityContext, body: string): Response {
  return c.body(body, 200, { "Content-Type": XML_CONTENT_TYPE });
}

/** A positive integer path segment (representation, generation and bitstream numbers). */
export function requireIndex(raw: string | undefined, what: string): number {
  if (!raw || !/^[1-9]\d{0,8}$/.test(raw)) {
    throw new HTTPException(400, { message: `${what} must be a positive whole number, got "${raw ?? ""}"` });
  }
  return Number(raw);
}

/**
 * An ISO 8601 date or date-time query parameter as a UTC ISO string (the form stored dates use), so
 * string comparison in SQL orders correctly. A `+` in an offset arrives as a space when the client did
 * not percent-encode it; that is repaired rather than rejected.
 */
export function isoParam(c: EntityContext, name: string, required: boolean): string | null {
  const raw = c.req.query(name);
  if (raw === undefined || raw.trim() === "") {
    if (required) {
      throw new HTTPException(400, {
        message: `Parameter ${name} is required: an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00Z`,
      });
    }
    return null;
  }
  const instant = utcInstant(raw.trim().replace(/ (\d{2}:?\d{2})$/, "+$1"));
  if (instant === undefined) {
    throw new HTTPException(400, {
      message: `Parameter ${name} must be an ISO 8601 date such as 2024-01-31 or 2024-01-31T12:00:00Z, got "${raw}"`,
    });
  }
  return instant;
}

// ---------------------------------------------------------------------------------------------------
// The write side

/**
 * The entity `rawRef` of `type` when the caller may read it and holds `permission` on its security
 * tag: 404 as `readableEntity`, then 403 (never 401: clients re-login forever on 401).
 */
export function writableEntity(
  c: EntityContext,
  rawRef: string | undefined,
  type: EntityType,
  permission: Permission,
): EntityRecord {
  const e = readableEntity(c, rawRef, type);
  requirePermission(c, e, permission);
  return e;
}

/**
 * The request body parsed as XML (see http/xml-body.ts); `example` shows what to send instead. Read
 * with `requestText`, so the ISO-8859-1 bodies some pyPreservica calls send keep their accents.
 */
export async function xmlRequest(c: EntityContext, example: string): Promise<XmlNode> {
  return parseXmlBody(await requestText(c.req), example);
}

/**
 * One change to an entity and its event, in one transaction: `write` makes the change, `detail` says
 * what it did (from what `write` returned, when that names something new). Returns what `write` did.
 */
export function changeEntity<T>(
  c: EntityContext,
  e: { ref: string },
  commandType: string,
  write: (db: Db) => T,
  detail: string | ((result: T) => string),
): T {
  const { db } = c.get("svc");
  return db.transaction(() => {
    const result = write(db);
    recordEntityChange(c, e, commandType, typeof detail === "string" ? detail : detail(result));
    return result;
  })();
}

/**
 * Records the event of a change the caller made to one entity (type Modified unless given), in the
 * transaction the caller runs; see store/events/write.ts.
 */
export function recordEntityChange(
  c: EntityContext,
  e: { ref: string },
  commandType: string,
  detail: string,
  type: string = EventType.MODIFIED,
): string {
  return recordChange(c.get("svc").db, {
    username: c.get("caller").user.username,
    date: nowIso(c),
    type,
    commandType,
    entityRefs: [e.ref],
    detail,
  });
}

/** The reply to a request that started a long-running action: the progress token as plain text. */
export function progressReply(c: EntityContext, actionId: string, status: 200 | 202 = 202): Response {
  return c.body(actionId, status, { "Content-Type": "text/plain;charset=UTF-8" });
}

/** 204 No Content, as clients expect from deletions of sub-resources. */
export function noContent(c: EntityContext): Response {
  return c.body(null, 204);
}
