import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { basicOrTokenUser } from "../http/basic-or-token.js";
import { isUuid, jsonObjectOf, MAX_JSON_DEPTH } from "../http/params.js";
import { Role, type User } from "../store/auth.js";
import { recordConfigEvent } from "../store/config-events/write.js";
import { PUID, REGISTRY_KINDS, type RegistryKind, registryKind } from "../store/registry/kinds.js";
import {
  type RegistryItemRow,
  registryItem,
  registryItemByName,
  registryItems,
  ruleSetsReferring,
} from "../store/registry/read.js";
import { deleteRegistryItem, insertRegistryItem, replaceRegistryItem } from "../store/registry/write.js";

/**
 * The PAR (Preservation Action Registries) API of the format registry, mounted at `/Registry/par` (where
 * pyPreservica calls it) and at `/api/Registry/par` (where the service's documentation puts it).
 *
 * Items are PAR JSON documents (`{id:{guid, name, namespace}, …}`), kept whole. Reads need no token, as
 * on the real registry. Additions, updates and deletions need the Registry Admin role
 * (ROLE_SDB_REGISTRY_ADMIN_USER): an access token, or HTTP Basic credentials, which the real registry
 * still accepts but has deprecated; an answer to Basic credentials says so in `Deprecation` and
 * `Warning` headers. POST and PUT answer 201 with the stored document, DELETE 204; every change records a
 * config event (category REGISTRY).
 *
 * File formats are addressed by PUID, slash included (`/file-formats/fmt/40`), or by GUID.
 */

type Ctx = Context<AppEnv>;

const BASIC_DEPRECATION =
  '299 - "Basic authentication on the PAR API is deprecated and will be removed; log in at /api/accesstoken/login and send the token in Preservica-Access-Token"';
/** Most rules a rule set may hold: far more than formats exist, far fewer than a runaway client sends. */
const MAX_RULES = 10_000;
const MAX_NAME = 256;

export function registryRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // File formats first: their key (a PUID) holds a slash, which the generic /:kind/:guid would split.
  app.get("/file-formats/:key{.+}", (c) =>
    c.json(document(existing(c, kindOf("file-formats"), c.req.param("key")))),
  );
  app.put("/file-formats/:key{.+}", (c) => update(c, kindOf("file-formats"), c.req.param("key")));
  app.delete("/file-formats/:key{.+}", (c) => remove(c, kindOf("file-formats"), c.req.param("key")));

  app.get("/:kind", (c) => list(c, kindOf(c.req.param("kind"))));
  app.post("/:kind", (c) => add(c, kindOf(c.req.param("kind"))));
  app.get("/:kind/:guid", (c) =>
    c.json(document(existing(c, kindOf(c.req.param("kind")), c.req.param("guid")))),
  );
  app.put("/:kind/:guid", (c) => update(c, kindOf(c.req.param("kind")), c.req.param("guid")));
  app.delete("/:kind/:guid", (c) => remove(c, kindOf(c.req.param("kind")), c.req.param("guid")));
  return app;
}

function kindOf(path: string): RegistryKind {
  const kind = registryKind(path);
  if (!kind) {
    throw new HTTPException(404, {
      message: `The registry has no "${path.slice(0, 60)}"; it holds ${REGISTRY_KINDS.map((k) => k.path).join(", ")}`,
    });
  }
  return kind;
}

function document(row: RegistryItemRow): unknown {
  return JSON.parse(row.document);
}

/** The item a path names: by GUID, or for file formats by PUID too. */
function findItem(c: Ctx, kind: RegistryKind, key: string): RegistryItemRow | undefined {
  const { db } = c.get("svc");
  if (isUuid(key)) return registryItem(db, kind.path, key.toLowerCase());
  return kind.path === "file-formats" ? registryItemByName(db, kind.path, key) : undefined;
}

function existing(c: Ctx, kind: RegistryKind, key: string): RegistryItemRow {
  const row = findItem(c, kind, key);
  if (row) return row;
  const how = kind.path === "file-formats" ? "a PUID such as fmt/18, or a GUID" : "a GUID";
  throw new HTTPException(404, {
    message: `No ${kind.label} "${key.slice(0, 80)}" in the registry; address one by ${how} from GET ${registryBase(c)}/${kind.path}`,
  });
}

function registryBase(c: Ctx): string {
  return c.req.path.startsWith("/api/") ? "/api/Registry/par" : "/Registry/par";
}

/**
 * GET /{kind}: every item of the kind. Business rules may be filtered as on the real registry, by the
 * headers `preservation-action-type` (GUIDs) and `file-format` (PUIDs), each comma-separated.
 */
function list(c: Ctx, kind: RegistryKind): Response {
  let items = registryItems(c.get("svc").db, kind.path).map((r) => document(r) as Record<string, unknown>);
  if (kind.path === "business-rules") {
    const types = headerList(c, "preservation-action-type");
    const formats = headerList(c, "file-format");
    if (types.length > 0) items = items.filter((rule) => namesAny(rule.preservationActionTypes, "id", types));
    if (formats.length > 0)
      items = items.filter((rule) => formatsOf(c, rule).some((f) => formats.includes(f)));
  }
  return c.json({ [kind.listKey]: items });
}

function headerList(c: Ctx, name: string): string[] {
  return (c.req.header(name) ?? "")
    .split(",")
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== "");
}

/** Whether a list of `{id:{guid}}` (or `{guid}` when `inner` is absent) holds one of `guids`. */
function namesAny(list: unknown, inner: string, guids: string[]): boolean {
  if (!Array.isArray(list)) return false;
  return list.some((entry) => {
    const id = (entry as Record<string, unknown> | null)?.[inner] as Record<string, unknown> | undefined;
    return typeof id?.guid === "string" && guids.includes(id.guid.toLowerCase());
  });
}

/** The PUIDs a business rule applies to: its formats and those of its format families (lower case). */
function formatsOf(c: Ctx, rule: Record<string, unknown>): string[] {
  const { db } = c.get("svc");
  const names = (list: unknown) =>
    Array.isArray(list)
      ? list.flatMap((f) => (typeof f?.name === "string" ? [f.name.toLowerCase()] : []))
      : [];
  const fromFamilies = (Array.isArray(rule.formatFamilies) ? rule.formatFamilies : []).flatMap((fam) => {
    const guid = typeof fam?.guid === "string" ? fam.guid.toLowerCase() : "";
    const row = isUuid(guid) ? registryItem(db, "format-families", guid) : undefined;
    return row ? names((document(row) as Record<string, unknown>).fileFormats) : [];
  });
  return [...names(rule.formats), ...fromFamilies];
}

// --- writes ------------------------------------------------------------------------------------------

interface Writer {
  user: User;
  basic: boolean;
}

/**
 * The caller of a write: a token, or (deprecated) Basic credentials; 401 without either or when they
 * fail, 403 without the Registry Admin role.
 */
function registryAdmin(c: Ctx): Writer {
  if (/^Basic\s/i.test(c.req.header("authorization") ?? "")) {
    c.header("Deprecation", "true");
    c.header("Warning", BASIC_DEPRECATION);
  }
  const writer = basicOrTokenUser(c, {
    fail: (message) => {
      throw new HTTPException(401, { message });
    },
    needs:
      "Changing the registry needs authentication: log in at /api/accesstoken/login and send the token in Preservica-Access-Token",
  });
  if (!writer.user.roles.includes(Role.REGISTRY_ADMIN)) {
    throw new HTTPException(403, {
      message: `Only registry administrators may change the registry; user ${writer.user.username} lacks the ${Role.REGISTRY_ADMIN} role`,
    });
  }
  return writer;
}

async function jsonDocument(c: Ctx, kind: RegistryKind): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  const example = exampleOf(kind);
  const body = jsonObjectOf(text, {
    tooDeep: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels; send a ${kind.label} document such as ${example}`,
    notJson: `The request body is not valid JSON; send a ${kind.label} document such as ${example}`,
    notObject: `A ${kind.label} must be a JSON object, such as ${example}`,
  });
  return body as Record<string, unknown>;
}

function exampleOf(kind: RegistryKind): string {
  if (kind.path === "file-formats")
    return '{"id":{"name":"fmt/40"},"name":"Microsoft Word Document","version":"97-2003"}';
  if (kind.path === "rulesets")
    return '{"name":"Images","rules":[{"format":{"name":"fmt/11"},"businessRule":{"guid":"<business rule GUID>"}}]}';
  const fields = kind.required.map((f) => `"${f}":"…"`).join(",");
  return `{"id":{"name":"my-${kind.path.replace(/s$/, "")}"}${fields ? `,${fields}` : ""}}`;
}

interface ParId {
  guid?: string;
  name?: string;
  namespace?: string;
}

/** The `id` a document gives (all parts optional), checked. */
function givenId(kind: RegistryKind, doc: Record<string, unknown>): ParId {
  if (doc.id === undefined || doc.id === null) return {};
  if (typeof doc.id !== "object" || Array.isArray(doc.id)) {
    throw new HTTPException(400, {
      message: `"id" must be an object {guid, name, namespace}, such as ${exampleOf(kind)}`,
    });
  }
  const id = doc.id as Record<string, unknown>;
  const text = (part: string, max: number): string | undefined => {
    const v = id[part];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" || v.trim() === "" || v.length > max) {
      throw new HTTPException(400, {
        message: `"id.${part}" must be a non-empty string of at most ${max} characters`,
      });
    }
    return v.trim();
  };
  const guid = text("guid", 36);
  if (guid !== undefined && !isUuid(guid)) {
    throw new HTTPException(400, {
      message: `"id.guid" must be a GUID such as ${randomUUID()}, or left out for the registry to choose one`,
    });
  }
  return { guid: guid?.toLowerCase(), name: text("name", MAX_NAME), namespace: text("namespace", 1024) };
}

/** The full identifier of a document about to be stored, and the document with it. */
function completeDocument(
  c: Ctx,
  kind: RegistryKind,
  doc: Record<string, unknown>,
  id: ParId,
  guid: string,
): { name: string; namespace: string; document: Record<string, unknown> } {
  for (const field of kind.required) {
    if (doc[field] === undefined || doc[field] === null || doc[field] === "") {
      throw new HTTPException(400, {
        message: `A ${kind.label} needs "${field}"; send a document such as ${exampleOf(kind)}`,
      });
    }
  }
  const fallback = kind.nameFrom ? doc[kind.nameFrom] : undefined;
  const name =
    id.name ??
    (typeof fallback === "string" && fallback.trim() !== "" ? fallback.trim().slice(0, MAX_NAME) : undefined);
  if (!name) {
    const hint =
      kind.path === "file-formats" ? "the format's PUID, such as fmt/40" : "a short name such as my-item";
    throw new HTTPException(400, {
      message: `A ${kind.label} needs "id.name" (${hint}); send a document such as ${exampleOf(kind)}`,
    });
  }
  if (kind.path === "file-formats" && !PUID.test(name)) {
    throw new HTTPException(400, {
      message: `A file format's "id.name" is its PUID, such as fmt/40 or x-fmt/111; "${name.slice(0, 60)}" is not one`,
    });
  }
  const namespace = id.namespace ?? kind.defaultNamespace;
  const extra = kind.path === "rulesets" ? { rules: checkedRules(c, doc.rules) } : {};
  const { id: _drop, localLastModifiedDate: _set, ...rest } = doc;
  const document = { id: { guid, name, namespace }, ...rest, ...extra, localLastModifiedDate: nowIso(c) };
  return { name, namespace, document };
}

/**
 * A rule set's rules: each maps a file format (by GUID or PUID) to a business rule (by GUID or name), both
 * of which must be in the registry; stored with their full identifiers.
 */
function checkedRules(c: Ctx, raw: unknown): unknown[] {
  const { db } = c.get("svc");
  const example = '{"format":{"name":"fmt/11"},"businessRule":{"guid":"<business rule GUID>"}}';
  if (!Array.isArray(raw) || raw.length > MAX_RULES) {
    throw new HTTPException(400, {
      message: `"rules" must be a list of at most ${MAX_RULES} rules such as ${example}`,
    });
  }
  return raw.map((rule, i) => {
    const r = rule as Record<string, unknown> | null;
    if (typeof r !== "object" || r === null || Array.isArray(r)) {
      throw new HTTPException(400, { message: `Rule ${i + 1} must be an object such as ${example}` });
    }
    const format = referenced(db, "file-formats", r.format, `rule ${i + 1}'s "format"`, example);
    const businessRule = referenced(
      db,
      "business-rules",
      r.businessRule,
      `rule ${i + 1}'s "businessRule"`,
      example,
    );
    return { ...r, format, businessRule };
  });
}

function referenced(db: Ctx["var"]["svc"]["db"], kind: string, raw: unknown, what: string, example: string) {
  const ref = raw as Record<string, unknown> | null;
  const guid = typeof ref?.guid === "string" ? ref.guid.toLowerCase() : undefined;
  const name = typeof ref?.name === "string" ? ref.name : undefined;
  const row =
    guid && isUuid(guid)
      ? registryItem(db, kind, guid)
      : name
        ? registryItemByName(db, kind, name)
        : undefined;
  if (!row) {
    throw new HTTPException(400, {
      message: `${what} names no ${kind.replace(/s$/, "").replace("-", " ")} in the registry; give its guid (or name) from GET /Registry/par/${kind}, as in ${example}`,
    });
  }
  return { guid: row.guid, name: row.name, namespace: row.namespace };
}

function duplicatePuid(c: Ctx, kind: RegistryKind, name: string, guid: string): void {
  if (kind.path !== "file-formats") return;
  const other = registryItemByName(c.get("svc").db, kind.path, name);
  if (other && other.guid !== guid) {
    throw new HTTPException(409, {
      message: `The registry already has file format ${name} (guid ${other.guid}); change it with PUT ${registryBase(c)}/file-formats/${name}`,
    });
  }
}

/** POST /{kind}: adds an item; 201 with the stored document. */
async function add(c: Ctx, kind: RegistryKind): Promise<Response> {
  const writer = registryAdmin(c);
  const doc = await jsonDocument(c, kind);
  const id = givenId(kind, doc);
  const { db } = c.get("svc");
  const guid = id.guid ?? randomUUID();
  if (id.guid && registryItem(db, kind.path, guid)) {
    throw new HTTPException(409, {
      message: `The registry already has ${kind.label} ${guid}; change it with PUT ${registryBase(c)}/${kind.path}/${guid}, or leave "id.guid" out to add a new one`,
    });
  }
  const item = completeDocument(c, kind, doc, id, guid);
  duplicatePuid(c, kind, item.name, guid);
  db.transaction(() => {
    insertRegistryItem(db, {
      kind: kind.path,
      guid,
      ...item,
      modified: item.document.localLastModifiedDate as string,
    });
    recordConfigEvent(db, {
      username: writer.user.username,
      category: "REGISTRY",
      commandType: "CREATE",
      subject: `${kind.path}/${item.name}`,
      summary: `Added ${kind.label} ${item.name}`,
      details: { kind: kind.path, guid, name: item.name, basicAuthentication: writer.basic },
    });
  })();
  return c.json(item.document, 201);
}

/** PUT /{kind}/{guid}: replaces an item's document (its GUID stays); 201 with the stored document. */
async function update(c: Ctx, kind: RegistryKind, key: string): Promise<Response> {
  const writer = registryAdmin(c);
  const row = existing(c, kind, key);
  const doc = await jsonDocument(c, kind);
  const id = givenId(kind, doc);
  if (id.guid && id.guid !== row.guid) {
    throw new HTTPException(400, {
      message: `"id.guid" ${id.guid} differs from the ${kind.label} being updated (${row.guid}); a GUID cannot change: leave it out or send ${row.guid}`,
    });
  }
  // An update that leaves out the name keeps the item's name (a file format keeps its PUID).
  const item = completeDocument(
    c,
    kind,
    doc,
    { ...id, name: id.name ?? row.name, namespace: id.namespace ?? row.namespace },
    row.guid,
  );
  duplicatePuid(c, kind, item.name, row.guid);
  const { db } = c.get("svc");
  db.transaction(() => {
    replaceRegistryItem(db, {
      kind: kind.path,
      guid: row.guid,
      ...item,
      modified: item.document.localLastModifiedDate as string,
    });
    recordConfigEvent(db, {
      username: writer.user.username,
      category: "REGISTRY",
      commandType: "UPDATE",
      subject: `${kind.path}/${item.name}`,
      summary: `Updated ${kind.label} ${item.name}`,
      details: {
        kind: kind.path,
        guid: row.guid,
        name: item.name,
        previousName: row.name,
        basicAuthentication: writer.basic,
      },
    });
  })();
  return c.json(item.document, 201);
}

/**
 * DELETE /{kind}/{guid}: 204. The service's built-in items (the formats it identifies, its identification
 * tool and rules) and items a rule set still names are refused with 409.
 */
function remove(c: Ctx, kind: RegistryKind, key: string): Response {
  const writer = registryAdmin(c);
  const row = existing(c, kind, key);
  if (row.built_in === 1) {
    throw new HTTPException(409, {
      message: `${kind.label} ${row.name} is built in: the service's own format identification relies on it, so it cannot be deleted (it can be updated with PUT)`,
    });
  }
  const { db } = c.get("svc");
  const users = ruleSetsReferring(db, row.guid);
  if (users.length > 0) {
    throw new HTTPException(409, {
      message: `${kind.label} ${row.name} is named by rule set${users.length > 1 ? "s" : ""} ${users.join(", ")}; remove it from their rules first`,
    });
  }
  db.transaction(() => {
    deleteRegistryItem(db, kind.path, row.guid);
    recordConfigEvent(db, {
      username: writer.user.username,
      category: "REGISTRY",
      commandType: "DELETE",
      subject: `${kind.path}/${row.name}`,
      summary: `Deleted ${kind.label} ${row.name}`,
      details: { kind: kind.path, guid: row.guid, name: row.name, basicAuthentication: writer.basic },
    });
  })();
  return c.body(null, 204);
}
