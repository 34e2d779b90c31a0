import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { requestText } from "../http/request-text.js";
import { checkRole, MANAGERS } from "../http/roles.js";
import { parseXmlBody, type XmlNode } from "../http/xml-body.js";
import type { XmlKind } from "../store/system/built-ins.js";
import { type AdminXml, adminXml, adminXmlContent, adminXmlList } from "../store/system/read.js";
import { addAdminXml, deleteAdminXml, type NewAdminXml } from "../store/system/write.js";
import { adminXmlDocument, adminXmlListDocument } from "../xml/system-docs.js";

/**
 * The Admin API's metadata schemas, XML documents and transforms (`/api/admin/{schemas,documents,transforms}`,
 * XML in the ADMIN namespace, as pyPreservica's AdminAPI reads and writes them): list, add (the XML is the
 * request body, the rest query parameters; 201), details, content, delete (204). A schema's URI is the
 * XSD's targetNamespace; a document's is its root element's namespace. Every request body is parsed with
 * the safe XML reader (no DOCTYPE, nothing expanded). The Admin API is for managers and administrators:
 * others get 403 (a missing or expired token 401).
 *
 * Mounted at `/api/admin` beside the other Admin API sub-apps; its paths are its own.
 */

type Ctx = Context<AppEnv>;

const XSD_NS = "http://www.w3.org/2001/XMLSchema";
const XSLT_NS = "http://www.w3.org/1999/XSL/Transform";

/** Document types the real service knows (pyPreservica's add_xml_document lists them). */
export const DOCUMENT_TYPES = [
  "MetadataTemplate",
  "MetadataDropdownLists",
  "CustomIndexDefinition",
  "UploadWizardConfigurationFile",
  "ConfigurationFile",
] as const;

/** Purposes of a transform: pyPreservica sends lower case; `cmis` gives Content API / CMIS metadata. */
export const TRANSFORM_PURPOSES = ["transform", "view", "edit", "cmis"] as const;

const PATHS: Record<XmlKind, string> = { schema: "schemas", document: "documents", transform: "transforms" };
const WORDS: Record<XmlKind, string> = { schema: "schema", document: "XML document", transform: "transform" };
/** Longest name, description or URI accepted in a query parameter. */
const MAX_PARAM = 1000;

export function adminMetadataRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const kind of ["schema", "document", "transform"] as const) {
    const base = `/${PATHS[kind]}`;
    app.use(base, requireToken, managersOnly);
    app.use(`${base}/*`, requireToken, managersOnly);
    app.get(base, (c) =>
      xml(c, adminXmlListDocument(c.get("svc").apiVersion, kind, adminXmlList(c.get("svc").db, kind))),
    );
    app.post(base, async (c) => {
      const input = await newItem(c, kind);
      const { db, apiVersion } = c.get("svc");
      const apiId = addAdminXml(db, input, who(c));
      return xml(c, adminXmlDocument(apiVersion, adminXml(db, kind, apiId) as AdminXml), 201);
    });
    app.get(`${base}/:apiId`, (c) => xml(c, adminXmlDocument(c.get("svc").apiVersion, known(c, kind))));
    app.get(`${base}/:apiId/content`, (c) => {
      const item = known(c, kind);
      return xml(c, adminXmlContent(c.get("svc").db, kind, item.apiId) ?? "");
    });
    app.delete(`${base}/:apiId`, (c) => {
      deleteAdminXml(c.get("svc").db, known(c, kind), who(c));
      return c.body(null, 204);
    });
  }
  return app;
}

const managersOnly = async (c: Ctx, next: () => Promise<void>) => {
  checkRole(c, MANAGERS, "use the Admin API's schemas, documents and transforms");
  await next();
};

function xml(c: Ctx, body: string, status: 200 | 201 = 200): Response {
  return c.body(body, status, { "Content-Type": "application/xml;charset=UTF-8" });
}

function who(c: Ctx) {
  const svc = c.get("svc");
  return { username: c.get("caller").user.username, at: new Date(svc.now()).toISOString() };
}

function known(c: Ctx, kind: XmlKind): AdminXml {
  const apiId = c.req.param("apiId") ?? "";
  const item = /^[0-9A-Za-z-]{1,64}$/.test(apiId) ? adminXml(c.get("svc").db, kind, apiId) : undefined;
  if (!item) {
    throw new HTTPException(404, {
      message: `No ${WORDS[kind]} with ApiId "${apiId.slice(0, 80)}"; GET /api/admin/${PATHS[kind]} lists them with their ApiId`,
    });
  }
  return item;
}

/** A query parameter: trimmed, bounded, free of control characters; undefined when absent or empty. */
function param(c: Ctx, name: string): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length > 1) {
    throw new HTTPException(400, { message: `Send ${name} once (it was sent ${values.length} times)` });
  }
  const v = values[0]?.trim();
  if (!v) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these characters are what it refuses.
  if (v.length > MAX_PARAM || /[\u0000-\u001f\u007f\uFFFE\uFFFF]/.test(v)) {
    throw new HTTPException(400, {
      message: `${name} must be at most ${MAX_PARAM} characters without control characters`,
    });
  }
  return v;
}

function required(c: Ctx, name: string, kind: XmlKind, example: string): string {
  const v = param(c, name);
  if (v === undefined) {
    throw new HTTPException(400, {
      message: `The query parameter ${name} is required to add a ${WORDS[kind]}: POST /api/admin/${PATHS[kind]}?${example} with the XML as the body`,
    });
  }
  return v;
}

const EXAMPLES: Record<XmlKind, { query: string; body: string }> = {
  schema: {
    query: "name=My%20schema&description=...&originalName=my.xsd",
    body: `<xs:schema xmlns:xs="${XSD_NS}" targetNamespace="https://example.org/my-schema">…</xs:schema>`,
  },
  document: {
    query: "name=My%20template&type=MetadataTemplate",
    body: '<my:record xmlns:my="https://example.org/my-schema">…</my:record>',
  },
  transform: {
    query:
      "name=My%20view&from=https://example.org/my-schema&to=http://www.w3.org/1999/xhtml&purpose=view&originalName=view.xslt",
    body: `<xsl:stylesheet version="1.0" xmlns:xsl="${XSLT_NS}">…</xsl:stylesheet>`,
  },
};

/** Validates a POST completely (parameters, then the XML) before anything is stored. */
async function newItem(c: Ctx, kind: XmlKind): Promise<NewAdminXml> {
  const ex = EXAMPLES[kind];
  const name = required(c, "name", kind, ex.query);
  const text = (await requestText(c.req)).replace(/^\uFEFF/, "");
  const base = { kind, name, originalName: param(c, "originalName") ?? null };
  if (kind === "schema") {
    const description = param(c, "description") ?? null;
    const root = parseXmlBody(text, ex.body);
    const schemaUri = schemaTargetNamespace(root, ex.body);
    const existing = adminXmlList(c.get("svc").db, "schema").find((s) => s.schemaUri === schemaUri);
    if (existing) {
      throw new HTTPException(409, {
        message: `A schema for ${schemaUri} exists already (ApiId ${existing.apiId}); delete it first to replace it`,
      });
    }
    return { ...base, description, schemaUri, content: text };
  }
  if (kind === "document") {
    const type = required(c, "type", kind, ex.query);
    const documentType = DOCUMENT_TYPES.find((t) => t.toLowerCase() === type.toLowerCase());
    if (!documentType) {
      throw new HTTPException(400, {
        message: `Unknown document type "${type.slice(0, 80)}"; use one of ${DOCUMENT_TYPES.join(", ")}`,
      });
    }
    const root = parseXmlBody(text, ex.body);
    return { ...base, documentType, schemaUri: root.ns, content: text };
  }
  const fromUri = param(c, "from") ?? null;
  const toUri = param(c, "to") ?? null;
  const purposeParam = required(c, "purpose", kind, ex.query).toLowerCase();
  const purpose = TRANSFORM_PURPOSES.find((p) => p === purposeParam);
  if (!purpose) {
    throw new HTTPException(400, {
      message: `Unknown transform purpose "${purposeParam.slice(0, 80)}"; use one of ${TRANSFORM_PURPOSES.join(", ")}`,
    });
  }
  const root = parseXmlBody(text, ex.body);
  if (root.ns !== XSLT_NS || (root.name !== "stylesheet" && root.name !== "transform")) {
    throw new HTTPException(400, {
      message: `A transform is an XSLT stylesheet (root element stylesheet or transform in ${XSLT_NS}); send one such as ${ex.body}`,
    });
  }
  return { ...base, fromUri, toUri, purpose, content: text };
}

/** The schema URI of an XSD: its root must be xs:schema, and its targetNamespace gives the URI. */
function schemaTargetNamespace(root: XmlNode, example: string): string {
  if (root.ns !== XSD_NS || root.name !== "schema") {
    throw new HTTPException(400, {
      message: `The body is not an XML schema (its root must be schema in ${XSD_NS}); send an XSD such as ${example}`,
    });
  }
  const target = root.attrs.targetNamespace?.trim();
  if (!target) {
    throw new HTTPException(400, {
      message:
        'The XSD has no targetNamespace, which gives the schema\'s URI; add targetNamespace="<your schema URI>" to its root',
    });
  }
  if (target.length > MAX_PARAM) {
    throw new HTTPException(400, { message: `The targetNamespace is longer than ${MAX_PARAM} characters` });
  }
  return target;
}
