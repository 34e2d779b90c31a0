import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { cmisCaller } from "../cmis/auth.js";
import {
  ACTIONS_TYPE,
  allowableActionsDocument,
  CMIS_NS,
  CmisUrls,
  ENTRY_TYPE,
  entryDocument,
  FEED_TYPE,
  objectFeed,
  QUERY_TYPE,
  queryFeed,
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
import { CmisQueryError, parseCmisQuery } from "../cmis/query.js";
import { invalidArgument, runCmisQuery } from "../cmis/query-search.js";
import { TYPES, typeById } from "../cmis/types.js";
import type { AppEnv } from "../context.js";
import { MAX_PAGE_SIZE } from "../http/paging.js";
import { requestText } from "../http/request-text.js";
import { child, parseXmlBody } from "../http/xml-body.js";
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

interface QueryOptions {
  skip: number;
  max: number;
  includeAllowableActions: boolean;
  searchAllVersions: boolean;
}

/**
 * One page of a query's results as a feed. Every document here is its only version, so
 * searchAllVersions=true is refused as CMIS asks of a repository without capabilityAllVersionsSearchable.
 */
async function queryResults(c: Ctx, statement: string, o: QueryOptions): Promise<string> {
  const u = urls(c);
  try {
    if (o.searchAllVersions) {
      throw new CmisQueryError(
        "searchAllVersions=true is not supported (capabilityAllVersionsSearchable false; every document is its only version)",
      );
    }
    const query = parseCmisQuery(statement);
    const ctx = { ...view(c), content: c.get("svc").content };
    const page = await runCmisQuery(ctx, query, { skip: o.skip, max: o.max });
    const at = (skip: number) => u.query(statement, skip, o.max, o.includeAllowableActions || undefined);
    const lastStart = o.max > 0 ? Math.max(0, Math.floor((page.total - 1) / o.max) * o.max) : 0;
    return queryFeed(
      u,
      statement,
      page.items,
      {
        self: at(o.skip),
        first: at(0),
        previous: o.skip > 0 && o.max > 0 ? at(Math.max(0, o.skip - o.max)) : undefined,
        next: page.hasMoreItems && o.max > 0 ? at(o.skip + o.max) : undefined,
        last: at(lastStart),
        total: page.total,
        hasMoreItems: page.hasMoreItems,
      },
      {
        includeAllowableActions: o.includeAllowableActions,
        select: query.select.length > 0 ? new Set(query.select) : undefined,
      },
      rootObject(c.get("svc").db).modified,
    );
  } catch (err) {
    if (err instanceof CmisQueryError) throw invalidArgument(err);
    throw err;
  }
}

/** GET R/query?q=…: the query URI template. */
async function queryByGet(c: Ctx): Promise<Response> {
  const statement = c.req.query("q");
  if (statement === undefined || statement.trim() === "") {
    throw new HTTPException(400, {
      message:
        "CMIS invalidArgument: parameter q is required, e.g. q=SELECT * FROM cmis:document WHERE CONTAINS('harbour')",
    });
  }
  const xml = await queryResults(c, statement, {
    skip: countParam(c, "skipCount", 0),
    max: Math.min(countParam(c, "maxItems", DEFAULT_PAGE_SIZE), MAX_PAGE_SIZE),
    includeAllowableActions: booleanParam(c, "includeAllowableActions"),
    searchAllVersions: booleanParam(c, "searchAllVersions"),
  });
  return reply(c, xml, FEED_TYPE);
}

const QUERY_EXAMPLE = `<cmis:query xmlns:cmis="${CMIS_NS}"><cmis:statement>SELECT * FROM cmis:document</cmis:statement></cmis:query>`;

/** A boolean or count element of a posted query (absent: the default); 400 when it is neither. */
function queryValue(
  raw: string | undefined,
  name: string,
  kind: "boolean" | "count",
  fallback: number | boolean,
) {
  if (raw === undefined || raw === "") return fallback;
  if (kind === "boolean" && /^(true|false)$/i.test(raw)) return raw.toLowerCase() === "true";
  if (kind === "count" && /^\d{1,15}$/.test(raw)) return Number(raw);
  throw new HTTPException(400, {
    message: `CMIS invalidArgument: cmis:${name} must be ${kind === "boolean" ? "true or false" : "a non-negative integer"}`,
  });
}

/** POST R/query with a cmis:query document (application/cmisquery+xml): the query collection. */
async function queryByPost(c: Ctx): Promise<Response> {
  const doc = parseXmlBody(await requestText(c.req), QUERY_EXAMPLE);
  if (doc.name !== "query" || doc.ns !== CMIS_NS) {
    throw new HTTPException(400, {
      message: `CMIS invalidArgument: the body must be a cmis:query document (${QUERY_TYPE}), such as ${QUERY_EXAMPLE}`,
    });
  }
  const text = (name: string) => child(doc, name, CMIS_NS)?.text.trim();
  const statement = child(doc, "statement", CMIS_NS)?.text ?? "";
  if (statement.trim() === "") {
    throw new HTTPException(400, {
      message: `CMIS invalidArgument: cmis:statement is required, as in ${QUERY_EXAMPLE}`,
    });
  }
  const o: QueryOptions = {
    skip: queryValue(text("skipCount"), "skipCount", "count", 0) as number,
    max: Math.min(
      queryValue(text("maxItems"), "maxItems", "count", DEFAULT_PAGE_SIZE) as number,
      MAX_PAGE_SIZE,
    ),
    includeAllowableActions: queryValue(
      text("includeAllowableActions"),
      "includeAllowableActions",
      "boolean",
      false,
    ) as boolean,
    searchAllVersions: queryValue(
      text("searchAllVersions"),
      "searchAllVersions",
      "boolean",
      false,
    ) as boolean,
  };
  const xml = await queryResults(c, statement, o);
  // 201 Created with the feed, and where the same page can be read again (CMIS AtomPub, query collection).
  const location = urls(c).query(statement, o.skip, o.max, o.includeAllowableActions || undefined);
  return c.body(xml, 201, {
    "Content-Type": `${FEED_TYPE};charset=UTF-8`,
    Location: location,
    "Content-Location": location,
  });
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
  app.get("/:repo/query", queryByGet);
  app.post("/:repo/query", queryByPost);
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
