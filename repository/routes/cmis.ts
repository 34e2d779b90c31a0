import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { cmisCaller } from "../cmis/auth.js";
import {
  ACTIONS_TYPE,
  allowableActionsDocument,
  CmisUrls,
  ENTRY_TYPE,
  entryDocument,
  FEED_TYPE,
  objectFeed,
  REPOSITORY_ID,
  SERVICE_TYPE,
  serviceDocument,
  typeEntryDocument,
  typesFeed,
} from "../cmis/documents.js";
import {
  type CmisObject,
  childPage,
  entityObject,
  parentObject,
  ROOT_ID,
  requireEntityOrRoot,
  requireObject,
  rootObject,
  type ViewContext,
} from "../cmis/objects.js";
import { TYPES, typeById } from "../cmis/types.js";
import type { AppEnv } from "../context.js";
import { MAX_PAGE_SIZE } from "../paging.js";
import { Permission } from "../store/auth.js";
import { streamStoredFile } from "./byte-range.js";

/**
 * CMIS 1.1 AtomPub binding at `/api/cmis/atom`, read-only, as the real service offers it: the service
 * document, the two base types, objects by id, a folder's children (paged), an object's parents, the
 * allowable actions and an asset's content stream. Folders and assets the caller may read (Read
 * Metadata on the security tag) hang under one synthetic root folder (`root`) whose children are the
 * top level; content needs Download as well. Create, update, delete and set-content are refused (405,
 * CMIS `notSupported`), and the allowable actions say so beforehand. Errors are the service's JSON.
 *
 * Authentication: an access token, or HTTP Basic (cmis/auth.ts).
 */

type Ctx = Context<AppEnv>;

const DEFAULT_PAGE_SIZE = 100;

function view(c: Ctx): ViewContext {
  return { db: c.get("svc").db, permissions: c.get("caller").permissions, origin: new URL(c.req.url).origin };
}

function urls(c: Ctx): CmisUrls {
  return new CmisUrls(`${new URL(c.req.url).origin}/api/cmis/atom`);
}

function reply(c: Ctx, xml: string, type: string): Response {
  return c.body(xml, 200, { "Content-Type": `${type};charset=UTF-8` });
}

/** Only one repository lives here; any other id in the path is a 404 that names it. */
function checkRepository(c: Ctx): void {
  const repo = c.req.param("repo");
  if (repo !== REPOSITORY_ID) {
    throw new HTTPException(404, {
      message: `No CMIS repository "${(repo ?? "").slice(0, 100)}": the one repository is ${REPOSITORY_ID} (see the service document at /api/cmis/atom)`,
    });
  }
}

function booleanParam(c: Ctx, name: string): boolean {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return false;
  const v = raw.trim().toLowerCase();
  if (v === "true" || v === "false") return v === "true";
  throw new HTTPException(400, { message: `Parameter ${name} must be true or false` });
}

function countParam(c: Ctx, name: string, fallback: number): number {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d{1,15}$/.test(raw.trim())) {
    throw new HTTPException(400, {
      message: `Parameter ${name} must be a non-negative integer, e.g. ${name}=0`,
    });
  }
  return Number(raw.trim());
}

const entryOptions = (c: Ctx) => ({ includeAllowableActions: booleanParam(c, "includeAllowableActions") });

/** A folder, or 400 (CMIS invalidArgument) for a document: only folders have children. */
function requireFolder(c: Ctx, ctx: ViewContext): CmisObject {
  const o = requireObject(ctx, c.req.query("id"));
  if (o.baseType !== "cmis:folder") {
    throw new HTTPException(400, {
      message: `${o.id} is a document (an asset); only folders have children: use sdb:SO|… or ${ROOT_ID}`,
    });
  }
  return o;
}

function childrenFeed(c: Ctx): Response {
  const ctx = view(c);
  const u = urls(c);
  const folder = requireFolder(c, ctx);
  const skip = countParam(c, "skipCount", 0);
  const max = Math.min(countParam(c, "maxItems", DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE);
  const page = childPage(ctx, folder.entity, skip, max);
  const more = skip + page.items.length < page.total;
  const lastStart = max > 0 ? Math.max(0, Math.floor((page.total - 1) / max) * max) : 0;
  const xml = objectFeed(
    u,
    `Children of ${folder.id === ROOT_ID ? "the root folder" : folder.name}`,
    folder,
    page.items,
    {
      self: u.children(folder.id, skip, max),
      first: u.children(folder.id, 0, max),
      previous: skip > 0 && max > 0 ? u.children(folder.id, Math.max(0, skip - max), max) : undefined,
      next: more && max > 0 ? u.children(folder.id, skip + max, max) : undefined,
      last: u.children(folder.id, lastStart, max),
      total: page.total,
      hasMoreItems: more,
    },
    entryOptions(c),
  );
  return reply(c, xml, FEED_TYPE);
}

function parentsFeed(c: Ctx): Response {
  const ctx = view(c);
  const u = urls(c);
  const e = requireEntityOrRoot(ctx, c.req.query("id"));
  if (!e)
    throw new HTTPException(400, { message: "The root folder has no parents; ask for another object's" });
  const o = entityObject(ctx, e);
  const parent = parentObject(ctx, e);
  const items = parent ? [parent] : [];
  const xml = objectFeed(
    u,
    `Parents of ${o.name}`,
    o,
    items,
    { self: u.parents(o.id), total: items.length, hasMoreItems: false },
    entryOptions(c),
  );
  return reply(c, xml, FEED_TYPE);
}

/** Writes are refused: the endpoint is read-only, as the real service's is. */
function refuseWrite(c: Ctx): Response {
  const what: Record<string, string> = {
    POST: "create objects",
    PUT: "update objects or set content",
    DELETE: "delete objects or content",
  };
  const doing = what[c.req.method] ?? `${c.req.method} anything`;
  return c.json(
    {
      success: false,
      message: `The CMIS endpoint is read-only (CMIS notSupported): it cannot ${doing}; use the Entity API at /api/entity for changes`,
    },
    405,
    { Allow: "GET, HEAD", Connection: "close" },
  );
}

export function cmisRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(cmisCaller);

  app.get("/", (c) => {
    const asked = c.req.query("repositoryId");
    if (asked !== undefined && asked !== "" && asked !== REPOSITORY_ID) {
      throw new HTTPException(404, {
        message: `No CMIS repository "${asked.slice(0, 100)}": the one repository is ${REPOSITORY_ID}`,
      });
    }
    return reply(c, serviceDocument(urls(c)), SERVICE_TYPE);
  });

  app.use("/:repo/*", async (c, next) => {
    checkRepository(c);
    await next();
  });

  app.get("/:repo/id", (c) => {
    const o = requireObject(view(c), c.req.query("id"));
    return reply(c, entryDocument(urls(c), o, entryOptions(c)), ENTRY_TYPE);
  });

  app.get("/:repo/children", childrenFeed);
  app.get("/:repo/parents", parentsFeed);

  app.get("/:repo/allowableactions", (c) => {
    const o = requireObject(view(c), c.req.query("id"));
    return reply(c, allowableActionsDocument(o), ACTIONS_TYPE);
  });

  app.get("/:repo/content", (c) => {
    const ctx = view(c);
    const o = requireObject(ctx, c.req.query("id"));
    if (o.baseType !== "cmis:document" || !o.entity) {
      throw new HTTPException(409, {
        message: `${o.id} is a folder, which has no content stream (CMIS constraint); ask for an asset's (sdb:IO|…)`,
      });
    }
    if (!ctx.permissions.permits(o.entity.security_tag, Permission.DOWNLOAD)) {
      throw new HTTPException(403, {
        message: `You may not download asset ${o.entity.ref}: security tag ${o.entity.security_tag} does not give you Download`,
      });
    }
    if (!o.file) {
      throw new HTTPException(409, {
        message: `Asset ${o.entity.ref} has no stored file, so no content stream (CMIS constraint)`,
      });
    }
    return streamStoredFile(c, c.get("svc").content, o.file);
  });

  app.get("/:repo/type", (c) => {
    const id = c.req.query("id");
    if (!id)
      throw new HTTPException(400, { message: "Parameter id is required: cmis:folder or cmis:document" });
    const t = typeById(id);
    if (!t) {
      throw new HTTPException(404, {
        message: `No type "${id.slice(0, 100)}": this repository has cmis:folder and cmis:document`,
      });
    }
    return reply(c, typeEntryDocument(urls(c), t, rootObject(c.get("svc").db).created), ENTRY_TYPE);
  });

  app.get("/:repo/types", (c) => {
    const u = urls(c);
    const typeId = c.req.query("typeId");
    const updated = rootObject(c.get("svc").db).created;
    if (typeId !== undefined && typeId !== "") {
      if (!typeById(typeId)) {
        throw new HTTPException(404, {
          message: `No type "${typeId.slice(0, 100)}": this repository has cmis:folder and cmis:document`,
        });
      }
      // The base types have no subtypes here.
      return reply(c, typesFeed(u, u.types(typeId), [], updated), FEED_TYPE);
    }
    return reply(c, typesFeed(u, u.types(), TYPES, updated), FEED_TYPE);
  });

  // Create (POST to a children collection), update (PUT an entry), delete (DELETE an entry or a
  // folder tree), set or delete content (PUT or DELETE the content stream): all refused.
  app.on(["POST", "PUT", "PATCH", "DELETE"], ["/", "/:repo/*"], refuseWrite);

  return app;
}
