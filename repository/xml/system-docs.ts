import type { AdminXml } from "../store/system/read.js";
import { type Attrs, XmlWriter } from "./writer.js";

/**
 * Admin API documents for XML schemas, documents and transforms, in the ADMIN namespace of the service's
 * version (`http://preservica.com/AdminAPI/vX.Y`, which pyPreservica derives from the server's version).
 * pyPreservica finds `Schema`, `Document` and `Transform` anywhere below the root and reads their children
 * by local name in that namespace.
 */

export function adminNamespace(apiVersion: string): string {
  return `http://preservica.com/AdminAPI/v${apiVersion}`;
}

function writeSchema(w: XmlWriter, x: AdminXml, attrs?: Attrs): void {
  w.open("Schema", attrs)
    .leaf("SchemaUri", x.schemaUri ?? "")
    .leaf("Name", x.name);
  w.opt("Description", x.description).leaf("ApiId", x.apiId).close("Schema");
}

function writeDocument(w: XmlWriter, x: AdminXml, attrs?: Attrs): void {
  w.open("Document", attrs)
    .leaf("ApiId", x.apiId)
    .leaf("Name", x.name)
    .leaf("DocumentType", x.documentType ?? "");
  w.leaf("SchemaUri", x.schemaUri ?? "").close("Document");
}

function writeTransform(w: XmlWriter, x: AdminXml, attrs?: Attrs): void {
  w.open("Transform", attrs).opt("FromSchemaUri", x.fromUri).opt("ToSchemaUri", x.toUri).leaf("Name", x.name);
  w.leaf("Purpose", x.purpose ?? "")
    .leaf("ApiId", x.apiId)
    .close("Transform");
}

const WRITERS = { schema: writeSchema, document: writeDocument, transform: writeTransform } as const;
const LIST_NAMES = { schema: "Schemas", document: "Documents", transform: "Transforms" } as const;

/** `<SchemasResponse><Schemas><Schema>…` (likewise Documents, Transforms). */
export function adminXmlListDocument(apiVersion: string, kind: AdminXml["kind"], items: AdminXml[]): string {
  const list = LIST_NAMES[kind];
  const w = new XmlWriter().open(`${list}Response`, { xmlns: adminNamespace(apiVersion) }).open(list);
  for (const x of items) WRITERS[kind](w, x);
  return w.close(list).close(`${list}Response`).toString();
}

/** One schema, document or transform as its own document (`<Schema xmlns=ADMIN>…`). */
export function adminXmlDocument(apiVersion: string, x: AdminXml): string {
  const w = new XmlWriter();
  WRITERS[x.kind](w, x, { xmlns: adminNamespace(apiVersion) });
  return w.toString();
}
