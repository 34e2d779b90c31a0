import { XMLParser } from "fast-xml-parser";
import { metadataFields } from "./metadata-fields.js";
import { checkWellFormed, escapeXml, SAFE_PARSER_OPTIONS, XmlParseError } from "./xml.js";

/**
 * Request XML for the Entity API's writes, built from values, never by pasting them in: every value is
 * escaped (`&`, `<`, `>`, quotes, so `]]>` cannot end anything), and characters XML 1.0 cannot carry are
 * refused. Also the field-map editing of descriptive documents: a flat document (a root element whose
 * children each hold one value: Dublin Core, metadata groups) is changed field by field, keeping every
 * other element as it was, and the change is shown as a diff of field values.
 */

export const OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const DC_ELEMENTS = "http://purl.org/dc/elements/1.1/";

/** A value or document that cannot be written: the message says what to send instead. */
export class InvalidMetadataError extends Error {
  override readonly name = "InvalidMetadataError";
}

// Characters XML 1.0 refuses (and lone surrogates); written as a string, since a literal would hold them.
// biome-ignore lint/complexity/useRegexLiterals: the literal form trips noControlCharactersInRegex.
const NOT_XML_CHAR = new RegExp(
  "[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]",
);

/**
 * `escapeXml`, but first refuses characters XML cannot hold, naming `what` held one: metadata comes from
 * people and files, and a clear refusal beats a document the service rejects half-way through a batch.
 */
export function escapeXmlStrict(value: string, what = "a value"): string {
  const bad = NOT_XML_CHAR.exec(value);
  if (bad) {
    const code = bad[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
    throw new InvalidMetadataError(
      `${what} holds the character U+${code}, which XML cannot carry; remove it and try again`,
    );
  }
  return escapeXml(value);
}

const el = (name: string, value: string, what?: string) =>
  `<${name}>${escapeXmlStrict(value, what)}</${name}>`;

// ---- Entity API request documents --------------------------------------------------------------------------

/** The XIP namespace a service of this version reads (servers before 6.2 used v6.0). */
export function xipNamespace(version: { major: number; minor: number }): string {
  const old = version.major < 6 || (version.major === 6 && version.minor < 2);
  return `http://preservica.com/XIP/${old || version.major === 0 ? "v6.0" : `v${version.major}.${version.minor}`}`;
}

const ENTITY_ELEMENT = { SO: "StructuralObject", IO: "InformationObject", CO: "ContentObject" } as const;

export interface EntityFields {
  ref: string;
  type: "SO" | "IO" | "CO";
  title: string;
  /** Empty or undefined clears it (the service reads an empty element as "none"). */
  description?: string;
  securityTag: string;
  customType?: string;
  parentRef?: string;
}

/** The body of a save (`PUT /api/entity/{path}/{ref}`), as pyPreservica's `save` sends it. */
export function entityXml(xip: string, e: EntityFields): string {
  const name = ENTITY_ELEMENT[e.type];
  return [
    `<${name} xmlns="${escapeXmlStrict(xip)}">`,
    el("Ref", e.ref),
    el("Title", e.title, "The title"),
    e.description ? el("Description", e.description, "The description") : "<Description/>",
    el("SecurityTag", e.securityTag),
    e.customType ? el("CustomType", e.customType) : "",
    e.parentRef ? el("Parent", e.parentRef) : "",
    `</${name}>`,
  ].join("");
}

/**
 * A descriptive document made ready to sit inside a container: well-formed, one root element, no XML
 * declaration (it cannot appear inside another document), no DOCTYPE (the service refuses them).
 */
export function standaloneDocument(xml: string): string {
  const doc = xml.replace(/^\uFEFF/, "").trim();
  if (/<!DOCTYPE/i.test(doc)) throw new InvalidMetadataError("The XML holds a DOCTYPE; send it without one");
  try {
    checkWellFormed(doc);
  } catch (err) {
    if (err instanceof XmlParseError) throw new InvalidMetadataError(`The XML is ${err.message}`);
    throw err;
  }
  const body = doc.replace(/^<\?xml[\s\S]*?\?>\s*/, "");
  if (!body.startsWith("<")) throw new InvalidMetadataError("The XML holds no element");
  escapeXmlStrict(body, "The XML");
  return body;
}

/** The namespace of a document's root element, or undefined when it has none. */
export function rootNamespace(xml: string): string | undefined {
  const flat = parseFlat(xml, false);
  return flat.ns;
}

/** `<xip:MetadataContainer>` for adding (no mref) or replacing (with mref) a fragment. */
export function metadataContainerXml(
  xip: string,
  c: { schema: string; entityRef: string; mref?: string; document: string },
): string {
  return [
    `<xip:MetadataContainer xmlns:xip="${escapeXmlStrict(xip)}" schemaUri="${escapeXmlStrict(c.schema, "The schema")}">`,
    c.mref ? el("xip:Ref", c.mref) : "",
    el("xip:Entity", c.entityRef),
    `<xip:Content>${standaloneDocument(c.document)}</xip:Content>`,
    "</xip:MetadataContainer>",
  ].join("");
}

export function identifierXml(xip: string, i: { type: string; value: string; entityRef: string }): string {
  return [
    `<Identifier xmlns="${escapeXmlStrict(xip)}">`,
    el("Type", i.type, "The identifier type"),
    el("Value", i.value, "The identifier value"),
    el("Entity", i.entityRef),
    "</Identifier>",
  ].join("");
}

export function linkXml(xip: string, l: { linkType: string; from: string; to: string }): string {
  return [
    `<Link xmlns="${escapeXmlStrict(xip)}">`,
    el("Type", l.linkType, "The relation"),
    el("FromEntity", l.from),
    el("ToEntity", l.to),
    "</Link>",
  ].join("");
}

// ---- field-map editing of flat documents -------------------------------------------------------------------

/** How to build and check a flat document of one schema. */
export interface FieldSchema {
  /** Schema URI of the fragment. */
  schema: string;
  /** Root element: its prefix (may be ""), local name and namespace. */
  root: { prefix: string; local: string; ns: string };
  /** Namespace of the field elements and the prefix used when it must be declared. */
  fieldNs: string;
  fieldPrefix: string;
  /** Field names in document order; undefined = any name already in the document. */
  fields?: readonly string[];
  /** Per field: most values allowed (undefined = any) and a controlled vocabulary. */
  rules?: Record<string, { max?: number; values?: readonly string[] }>;
}

export const DUBLIN_CORE_FIELDS = [
  "title",
  "creator",
  "subject",
  "description",
  "publisher",
  "contributor",
  "date",
  "type",
  "format",
  "identifier",
  "source",
  "language",
  "relation",
  "coverage",
  "rights",
] as const;

/** Simple Dublin Core as OAI-PMH and the service hold it: `oai_dc:dc` with `dc:` elements. */
export const DUBLIN_CORE: FieldSchema = {
  schema: OAI_DC_SCHEMA,
  root: { prefix: "oai_dc", local: "dc", ns: OAI_DC_SCHEMA },
  fieldNs: DC_ELEMENTS,
  fieldPrefix: "dc",
  fields: DUBLIN_CORE_FIELDS,
};

export interface GroupDefinition {
  schemaUri: string;
  fields: { id: string; maxOccurs?: number; values?: string[] }[];
}

/** A metadata group's documents: root = the last segment of its schema URI, one child per field id. */
export function groupFieldSchema(g: GroupDefinition): FieldSchema {
  const local = g.schemaUri.replace(/\/+$/, "").split("/").at(-1) ?? "group";
  const rules: FieldSchema["rules"] = {};
  for (const f of g.fields) {
    rules[f.id] = {
      ...(f.maxOccurs !== undefined && f.maxOccurs >= 0 ? { max: f.maxOccurs } : {}),
      ...(f.values?.length ? { values: f.values } : {}),
    };
  }
  return {
    schema: g.schemaUri,
    root: { prefix: "", local, ns: g.schemaUri },
    fieldNs: g.schemaUri,
    fieldPrefix: "",
    fields: g.fields.map((f) => f.id),
    rules,
  };
}

interface FlatChild {
  name: string;
  attrs: [string, string][];
  text: string;
}

interface FlatDoc {
  rootName: string;
  rootAttrs: [string, string][];
  /** Namespace of the root element. */
  ns?: string;
  /** Prefix → namespace declared on the root ("" = default). */
  decls: Map<string, string>;
  children: FlatChild[];
}

const rawParser = new XMLParser({
  ...SAFE_PARSER_OPTIONS,
  removeNSPrefix: false,
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  textNodeName: "#text",
  commentPropName: false,
  cdataPropName: false,
});

type Node = Record<string, unknown> & { ":@"?: Record<string, string> };

const nameOf = (n: Node) => Object.keys(n).find((k) => k !== ":@" && k !== "#text");
const split = (qname: string): [string, string] => {
  const i = qname.indexOf(":");
  return i < 0 ? ["", qname] : [qname.slice(0, i), qname.slice(i + 1)];
};

function declarationsOf(attrs: [string, string][]): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of attrs) {
    if (k === "xmlns") m.set("", v);
    else if (k.startsWith("xmlns:")) m.set(k.slice(6), v);
  }
  return m;
}

/** A flat document; `strict` refuses nested elements (they cannot be edited as fields). */
function parseFlat(xml: string, strict = true): FlatDoc {
  const body = standaloneDocument(xml);
  const nodes = rawParser.parse(body) as Node[];
  const root = nodes.find((n) => nameOf(n) !== undefined);
  const rootName = root ? (nameOf(root) as string) : "";
  if (!root) throw new InvalidMetadataError("The XML holds no element");
  const rootAttrs = Object.entries(root[":@"] ?? {});
  const decls = declarationsOf(rootAttrs);
  const children: FlatChild[] = [];
  for (const c of (root[rootName] as Node[] | undefined) ?? []) {
    const name = nameOf(c);
    if (!name) {
      if (strict && String(c["#text"] ?? "").trim() !== "")
        throw new InvalidMetadataError(
          `The document's root <${rootName}> holds text of its own; edit it as whole XML`,
        );
      continue;
    }
    const inner = (c[name] as Node[] | undefined) ?? [];
    if (strict && inner.some((x) => nameOf(x) !== undefined))
      throw new InvalidMetadataError(
        `The document's <${name}> holds elements of its own, so it cannot be edited field by field; send the whole document as XML`,
      );
    const text = inner
      .map((x) => x["#text"])
      .filter((t) => t !== undefined)
      .join("");
    children.push({ name, attrs: Object.entries(c[":@"] ?? {}), text: String(text) });
  }
  const ns = decls.get(split(rootName)[0]);
  return { rootName, rootAttrs, decls, children, ...(ns ? { ns } : {}) };
}

function childNs(doc: FlatDoc, c: FlatChild): string | undefined {
  const [prefix] = split(c.name);
  return declarationsOf(c.attrs).get(prefix) ?? doc.decls.get(prefix);
}

function serialise(doc: FlatDoc): string {
  const attrs = (a: [string, string][]) => a.map(([k, v]) => ` ${k}="${escapeXmlStrict(v)}"`).join("");
  const kids = doc.children.map((c) =>
    c.text === ""
      ? `  <${c.name}${attrs(c.attrs)}/>`
      : `  <${c.name}${attrs(c.attrs)}>${escapeXmlStrict(c.text, `The value of ${split(c.name)[1]}`)}</${c.name}>`,
  );
  return [`<${doc.rootName}${attrs(doc.rootAttrs)}>`, ...kids, `</${doc.rootName}>`].join("\n");
}

/** A field's new values: a string, a list, or null / [] / "" to remove it. */
export type FieldValue = string | string[] | null;

/** The schema of an existing flat document whose schema we know nothing about: its own field names. */
export function documentFieldSchema(schema: string, xml: string): FieldSchema {
  const doc = parseFlat(xml);
  const [prefix, local] = split(doc.rootName);
  const ns = doc.ns ?? "";
  const names = [...new Set(doc.children.filter((c) => childNs(doc, c) === ns).map((c) => split(c.name)[1]))];
  return { schema, root: { prefix, local, ns }, fieldNs: ns, fieldPrefix: prefix, fields: names };
}

function emptyDocument(spec: FieldSchema): FlatDoc {
  const rootName = spec.root.prefix ? `${spec.root.prefix}:${spec.root.local}` : spec.root.local;
  const rootAttrs: [string, string][] = [
    [spec.root.prefix ? `xmlns:${spec.root.prefix}` : "xmlns", spec.root.ns],
  ];
  if (spec.fieldNs !== spec.root.ns)
    rootAttrs.push([spec.fieldPrefix ? `xmlns:${spec.fieldPrefix}` : "xmlns", spec.fieldNs]);
  return { rootName, rootAttrs, ns: spec.root.ns, decls: declarationsOf(rootAttrs), children: [] };
}

/** The qualified name field elements get in this document, declaring the namespace when it must. */
function fieldPrefixIn(doc: FlatDoc, spec: FieldSchema): string {
  for (const [p, uri] of doc.decls) if (uri === spec.fieldNs) return p;
  let p = spec.fieldPrefix || "f";
  for (let i = 1; doc.decls.has(p); i++) p = `${spec.fieldPrefix || "f"}${i}`;
  doc.rootAttrs.push([`xmlns:${p}`, spec.fieldNs]);
  doc.decls.set(p, spec.fieldNs);
  return p;
}

function normalise(v: FieldValue): string[] {
  if (v === null) return [];
  return (Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Applies a field map to a flat document (or builds a new one when `xml` is undefined): each named field's
 * elements are replaced by the new values at the place the first one stood (new fields go in schema order);
 * every other element stays as it was. Throws InvalidMetadataError for unknown fields or broken rules.
 */
export function applyFields(
  spec: FieldSchema,
  xml: string | undefined,
  changes: Record<string, FieldValue>,
): string {
  const doc = xml === undefined ? emptyDocument(spec) : parseFlat(xml);
  const order = spec.fields ?? [];
  for (const name of Object.keys(changes)) {
    if (spec.fields && !spec.fields.includes(name)) {
      throw new InvalidMetadataError(
        `"${name}" is not a field of ${spec.schema}; its fields: ${spec.fields.join(", ")}`,
      );
    }
    if (!/^[A-Za-z_][\w.-]*$/.test(name)) throw new InvalidMetadataError(`"${name}" is not a field name`);
  }
  for (const [name, raw] of Object.entries(changes)) {
    const values = normalise(raw);
    const rule = spec.rules?.[name];
    if (rule?.max !== undefined && values.length > rule.max)
      throw new InvalidMetadataError(
        `${name} takes at most ${rule.max} value${rule.max === 1 ? "" : "s"}; ${values.length} were given`,
      );
    for (const v of values) {
      if (rule?.values && !rule.values.includes(v))
        throw new InvalidMetadataError(`${name} must be one of: ${rule.values.join(", ")} (not "${v}")`);
      escapeXmlStrict(v, `The value of ${name}`);
    }
    const isField = (c: FlatChild) => split(c.name)[1] === name && childNs(doc, c) === spec.fieldNs;
    const first = doc.children.findIndex(isField);
    let at = first;
    if (at < 0) {
      // New field: after the last field that comes before it in the schema's order, else before the first
      // that comes after it, else at the end.
      const rank = order.indexOf(name);
      const rankOf = (c: FlatChild) =>
        childNs(doc, c) === spec.fieldNs ? order.indexOf(split(c.name)[1]) : -1;
      at = doc.children.length;
      if (rank >= 0) {
        const after = doc.children.findLastIndex((c) => rankOf(c) >= 0 && rankOf(c) < rank);
        const before = doc.children.findIndex((c) => rankOf(c) > rank);
        if (after >= 0) at = after + 1;
        else if (before >= 0) at = before;
      }
    }
    const existing = doc.children.find(isField);
    const prefix = existing ? split(existing.name)[0] : fieldPrefixIn(doc, spec);
    const qname = prefix ? `${prefix}:${name}` : name;
    const attrs = existing?.attrs.filter(([k]) => k === "xmlns" || k.startsWith("xmlns:")) ?? [];
    const kept = doc.children.filter((c) => !isField(c));
    const insertAt = doc.children.slice(0, at).filter((c) => !isField(c)).length;
    kept.splice(insertAt, 0, ...values.map((text) => ({ name: qname, attrs, text })));
    doc.children = kept;
  }
  return serialise(doc);
}

// ---- diffs ---------------------------------------------------------------------------------------------------

export interface FieldChange {
  field: string;
  before: string[];
  after: string[];
}

function grouped(xml: string | undefined): Map<string, string[]> {
  const m = new Map<string, string[]>();
  if (xml === undefined) return m;
  for (const f of metadataFields(xml).fields) {
    const list = m.get(f.name) ?? [];
    list.push(f.value);
    m.set(f.name, list);
  }
  return m;
}

/** The fields whose values differ between two documents (either may be absent), in document order. */
export function fieldDiff(before: string | undefined, after: string | undefined): FieldChange[] {
  const a = grouped(before);
  const b = grouped(after);
  const names = [...new Set([...b.keys(), ...a.keys()])];
  const out: FieldChange[] = [];
  for (const field of names) {
    const x = a.get(field) ?? [];
    const y = b.get(field) ?? [];
    if (x.length !== y.length || x.some((v, i) => v !== y[i])) out.push({ field, before: x, after: y });
  }
  return out;
}

/** `creator: "A" → "B"` for a person to read; long values clipped. */
export function diffLine(c: FieldChange, max = 200): string {
  const show = (vs: string[]) =>
    vs.length === 0
      ? "(none)"
      : vs.map((v) => `"${v.length > max ? `${v.slice(0, max - 1)}…` : v}"`).join(", ");
  return `${c.field}: ${show(c.before)} → ${show(c.after)}`;
}
