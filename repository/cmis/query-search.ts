import { HTTPException } from "hono/http-exception";
import { runSearch, type Scope } from "../search/engine.js";
import { findField } from "../search/fields.js";
import { toFtsQuery } from "../search/fts.js";
import { type FieldFilter, parseObjectId, SearchInputError, type SearchRequest } from "../search/query.js";
import { Permission } from "../store/auth.js";
import type { ContentStore } from "../store/content-store.js";
import { getEntity } from "../store/entities/read.js";
import { cmisFields } from "../store/system/read.js";
import { type CmisObject, entityObject, ROOT_ID, requireEntityOrRoot, type ViewContext } from "./objects.js";
import { type CmisQuery, CmisQueryError } from "./query.js";
import { typeById } from "./types.js";

/**
 * Runs a parsed CMIS query through the Content API's search engine: the same full-text index, the
 * same filters and the same rule that only entities on tags with Read Metadata exist for the caller.
 * `cmis:document` is `xip.document_type` IO, `cmis:folder` SO; CONTAINS is the search text; IN_FOLDER
 * and IN_TREE are the engine's children and subtree scopes; cmis:name comparisons filter `xip.title`.
 */

export interface QueryPage {
  items: CmisObject[];
  total: number;
  hasMoreItems: boolean;
}

function field(key: string) {
  const f = findField(key);
  if (!f) throw new Error(`search field ${key} is missing`);
  return f;
}

/** The select list checked against the type's properties: every name must be one of them. */
export function checkSelect(q: CmisQuery): void {
  const type = typeById(q.from);
  const known = new Set(type?.properties.map((p) => p.id));
  for (const name of q.select) {
    if (!known.has(name)) {
      throw new CmisQueryError(
        `${name} is not a property of ${q.from}; GET …/type?id=${q.from} lists them (or SELECT *)`,
      );
    }
  }
}

function scopeOf(ctx: ViewContext, q: CmisQuery): Scope {
  if (!q.folder) return { kind: "everywhere" };
  const name = q.folder.tree ? "IN_TREE" : "IN_FOLDER";
  if (q.folder.id.trim() === ROOT_ID) return q.folder.tree ? { kind: "everywhere" } : { kind: "top-level" };
  if (!parseObjectId(q.folder.id)) {
    throw new CmisQueryError(
      `${name}('${q.folder.id.slice(0, 100)}'): not a folder id; folder ids look like sdb:SO|<ref>, or ${ROOT_ID}`,
    );
  }
  // Unknown (404) and unreadable (403) folders answer as they do everywhere else on the endpoint.
  const folder = requireEntityOrRoot(ctx, q.folder.id, name);
  if (folder?.type !== "SO") {
    throw new CmisQueryError(`${name}('${q.folder.id}'): that is a document (an asset), not a folder`);
  }
  return q.folder.tree
    ? { kind: "below", folderRef: folder.ref }
    : { kind: "children", parentRef: folder.ref };
}

/**
 * cmis:name is the Title the CMIS transform picks. Search indexes the entity's own title, so a name
 * comparison is answered only while the transform takes Title from xip.title (the default); with
 * another source it would compare something other than the names shown, and is refused instead.
 */
function nameFilters(ctx: ViewContext, q: CmisQuery): FieldFilter[] {
  if (q.names.length === 0) return [];
  const source = cmisFields(ctx.db).titleField;
  if (source !== "xip.title") {
    throw new CmisQueryError(
      `cmis:name comparisons are not available: the CMIS transform takes names from ${source}, which search does not match names against (use CONTAINS, or set the transform's Title to xip.title)`,
    );
  }
  const title = field("xip.title");
  return q.names.map((n) => ({ field: title, values: [n.value], negate: false }));
}

export async function runCmisQuery(
  ctx: ViewContext & { content: ContentStore },
  q: CmisQuery,
  page: { skip: number; max: number },
): Promise<QueryPage> {
  checkSelect(q);
  const scope = scopeOf(ctx, q);
  const req: SearchRequest = {
    text: q.contains === undefined ? { kind: "all" } : toFtsQuery(q.contains),
    refs: [],
    filters: [
      {
        field: field("xip.document_type"),
        values: [q.from === "cmis:folder" ? "SO" : "IO"],
        negate: false,
      },
      ...nameFilters(ctx, q),
    ],
    sort: [],
    facets: [],
    metadata: [],
  };
  const visibleTags = ctx.permissions.tagsWith(Permission.READ_METADATA);
  let result: Awaited<ReturnType<typeof runSearch>>;
  try {
    result = await runSearch({ db: ctx.db, content: ctx.content, visibleTags }, req, scope, {
      start: page.skip,
      max: page.max,
    });
  } catch (err) {
    if (err instanceof SearchInputError) throw new CmisQueryError(err.message);
    throw err;
  }
  const items = result.objectIds.flatMap((id) => {
    const ref = parseObjectId(id)?.ref;
    const e = ref ? getEntity(ctx.db, ref) : undefined;
    return e ? [entityObject(ctx, e)] : [];
  });
  return {
    items,
    total: result.totalHits,
    hasMoreItems: page.skip + result.objectIds.length < result.totalHits,
  };
}

/** A query refusal as the endpoint answers it: 400, CMIS invalidArgument, naming what to change. */
export function invalidArgument(err: CmisQueryError): HTTPException {
  return new HTTPException(400, { message: `CMIS invalidArgument: ${err.message}` });
}
