import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { parsePaging } from "../http/paging.js";
import { type Params, requestParams } from "../http/params.js";
import { runSearch, type Scope } from "../search/engine.js";
import { indexedFieldsView } from "../search/fields.js";
import { type EntityFile, fileOf, thumbnailOf } from "../search/files.js";
import { objectDetails } from "../search/object-details.js";
import { parseObjectId, parseSearchRequest, SearchInputError } from "../search/query.js";
import { Permission } from "../store/auth.js";
import { getEntity } from "../store/entities/read.js";
import type { EntityRow } from "../store/entities/types.js";
import { streamStoredFile } from "./byte-range.js";

/**
 * Content API (JSON): search and listings, object details, indexed fields, download and thumbnail.
 * Every reply is the envelope `{success, version, value}`. The four listing endpoints take their
 * parameters from the query string, a form-encoded (or multipart, or JSON) POST body, or both.
 */

type Ctx = Context<AppEnv>;

const DEFAULT_PAGE_SIZE = 25;
const TYPE_NAMES = { SO: "folder", IO: "asset", CO: "content object" } as const;
const ID_EXAMPLE = "sdb:IO|7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f";

function envelope<T>(c: Ctx, value: T) {
  return c.json({ success: true, version: 1, value });
}

/**
 * The entity an `id`-like parameter names, checked: 400 when malformed, 404 when unknown, deleted or of
 * another type than `types` allows, 403 when the caller may not read its metadata.
 */
function requireEntity(
  c: Ctx,
  raw: string | undefined,
  param: string,
  types: readonly EntityRow["type"][],
): EntityRow {
  if (raw === undefined || raw.trim() === "") {
    throw new HTTPException(400, { message: `Parameter ${param} is required, e.g. ${param}=${ID_EXAMPLE}` });
  }
  const id = parseObjectId(raw);
  if (!id) {
    throw new HTTPException(400, {
      message: `Parameter ${param} "${raw}" is not an object id; object ids look like ${ID_EXAMPLE}`,
    });
  }
  const { db } = c.get("svc");
  const entity = getEntity(db, id.ref);
  const wanted = types.map((t) => TYPE_NAMES[t]).join(" or ");
  if (!entity) throw new HTTPException(404, { message: `No ${wanted} with reference ${id.ref}` });
  if ((id.type && id.type !== entity.type) || !types.includes(entity.type)) {
    const hint = types.includes(entity.type) ? `; use sdb:${entity.type}|${entity.ref}` : "";
    throw new HTTPException(404, {
      message: `No ${id.type ? TYPE_NAMES[id.type] : wanted} with reference ${id.ref}: it is a ${TYPE_NAMES[entity.type]}${hint}`,
    });
  }
  if (!c.get("caller").permissions.permits(entity.security_tag, Permission.READ_METADATA)) {
    throw new HTTPException(403, {
      message: `You may not read ${TYPE_NAMES[entity.type]} ${entity.ref} (security tag ${entity.security_tag})`,
    });
  }
  return entity;
}

/** Turns a client mistake found while reading or running a search into a 400. */
function asBadRequest(err: unknown): never {
  if (err instanceof SearchInputError) throw new HTTPException(400, { message: err.message });
  // The FTS translation cannot produce a syntax error; should SQLite still reject the text, say so.
  if (err instanceof Error && /fts5|unterminated string|malformed MATCH/i.test(err.message)) {
    throw new HTTPException(400, { message: "The search text could not be understood; try plain words" });
  }
  throw err;
}

async function listing(c: Ctx, scopeOf: (params: Params) => Scope) {
  const params = await requestParams(c, { json: true });
  const { db, content } = c.get("svc");
  const scope = scopeOf(params);
  const paging = parsePaging((n) => params.get(n), DEFAULT_PAGE_SIZE);
  try {
    const request = parseSearchRequest(params);
    const visibleTags = c.get("caller").permissions.tagsWith(Permission.READ_METADATA);
    const page = await runSearch({ db, content, visibleTags }, request, scope, paging);
    return envelope(c, {
      objectIds: page.objectIds,
      totalHits: page.totalHits,
      metadata: page.metadata,
      facets: page.facets,
      simpleChildSearch: false,
      ...(page.highlighting ? { highlighting: page.highlighting } : {}),
    });
  } catch (err) {
    asBadRequest(err);
  }
}

/** The entity an `id` names, when the caller may download it (read it, and Download on its tag). */
function downloadableEntity(c: Ctx): EntityRow {
  const entity = requireEntity(c, c.req.query("id"), "id", ["IO", "CO", "SO"]);
  if (!c.get("caller").permissions.permits(entity.security_tag, Permission.DOWNLOAD)) {
    throw new HTTPException(403, {
      message: `You may not download ${TYPE_NAMES[entity.type]} ${entity.ref}: security tag ${entity.security_tag} does not give you Download`,
    });
  }
  return entity;
}

/** The image behind `thumbnail`: the custom preview first, else the entity's own file if an image. */
function thumbnailFile(c: Ctx): EntityFile {
  const entity = downloadableEntity(c);
  const file = thumbnailOf(c.get("svc").db, entity);
  if (!file) {
    throw new HTTPException(404, { message: `${TYPE_NAMES[entity.type]} ${entity.ref} has no thumbnail` });
  }
  return file;
}

/** The file behind `download`, after the Download permission check. */
function downloadableFile(c: Ctx): EntityFile {
  const entity = downloadableEntity(c);
  const file = fileOf(c.get("svc").db, entity);
  if (!file) {
    throw new HTTPException(404, {
      message:
        entity.type === "SO"
          ? `Folder ${entity.ref} has no content to download; download one of its assets (sdb:IO|…)`
          : `${TYPE_NAMES[entity.type]} ${entity.ref} has no stored file to download`,
    });
  }
  return file;
}

export function contentRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);

  const listings: Record<string, (c: Ctx, params: Params) => Scope> = {
    "/search": () => ({ kind: "everywhere" }),
    "/search-within": (c, params) => ({
      kind: "below",
      folderRef: requireEntity(c, params.get("parenthierarchy"), "parenthierarchy", ["SO"]).ref,
    }),
    "/top-level-list": () => ({ kind: "top-level" }),
    "/object-children": (c, params) => ({
      kind: "children",
      parentRef: requireEntity(c, params.get("id"), "id", ["SO", "IO", "CO"]).ref,
    }),
  };
  for (const [path, scopeOf] of Object.entries(listings)) {
    app.on(["GET", "POST"], path, (c) => listing(c, (params) => scopeOf(c, params)));
  }

  app.get("/object-details", (c) => {
    const entity = requireEntity(c, c.req.query("id"), "id", ["SO", "IO", "CO"]);
    const exclude = (c.req.query("excludeproperties") ?? "").toLowerCase().split(",");
    return envelope(
      c,
      objectDetails(c.get("svc").db, entity, {
        baseUrl: new URL(c.req.url).origin,
        permissions: c.get("caller").permissions,
        excludeHistory: exclude.includes("history"),
      }),
    );
  });

  app.get("/indexed-fields", (c) => envelope(c, indexedFieldsView(c.get("svc").apiVersion)));

  app.get("/download", (c) => streamStoredFile(c, c.get("svc").content, downloadableFile(c)));
  app.get("/thumbnail", (c) => streamStoredFile(c, c.get("svc").content, thumbnailFile(c), "inline"));

  return app;
}
