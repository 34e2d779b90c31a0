import { type EntityDecoderOptions, type X2jOptions, XMLParser, XMLValidator } from "fast-xml-parser";
import { parsePlainXml } from "./xml-fast.js";

/**
 * XML from the service, read safely and by local name.
 *
 * - Safe for untrusted input: the entity decoder below knows only the five predefined XML entities and
 *   numeric character references. Entities declared in a DOCTYPE (billion laughs, external `SYSTEM`
 *   entities) are never expanded: a reference to one stays in the text as written. Nothing is fetched.
 * - Namespace-agnostic: prefixes are dropped and elements are read by local name, so EntityAPI/XIP v6.x,
 *   v7.x and newer namespaces all parse the same (the service's answer depends on its version and path).
 * - Everything stays a string (`1850` is a title, not a number; leading zeros and long ids survive).
 */

const XML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Text made safe for element content or a quoted attribute value of a request document. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] as string);
}

/** A parsed element: attributes under `@name`, text under `#text`, children under their local names. */
export interface XmlElement {
  [key: string]: XmlNode | XmlNode[] | undefined;
}
export type XmlNode = string | XmlElement;

/** Elements that are lists in some reply; always arrays in the parsed tree, even with one member. */
export const LIST_ELEMENTS: ReadonlySet<string> = new Set([
  "Child",
  "Fragment",
  "Identifier",
  "Link",
  "Representation",
  "ContentObject",
  "Generation",
  "Bitstream",
  "Fixity",
  "EventAction",
  "Event",
  "Entity",
  "Format",
  "Property",
  "RepresentationFormat",
  "RepresentationProperty",
  "IntegrityCheckHistory",
  "StorageLocation",
  "RetentionPolicy",
  "RetentionAssignment",
  "Tag",
  "Permission",
  "Role",
  "WorkflowContext",
  "WorkflowInstance",
  "Parameter",
]);

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function allowedCodePoint(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Decodes one reference; anything unknown (including DOCTYPE-declared entities) is left as written. */
function decodeReference(whole: string, body: string): string {
  if (body.startsWith("#")) {
    const cp =
      body[1] === "x" || body[1] === "X" ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return Number.isInteger(cp) && allowedCodePoint(cp) ? String.fromCodePoint(cp) : whole;
  }
  return PREDEFINED[body] ?? whole;
}

const REFERENCE = /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z_][\w.-]*);/g;

export function decodeXmlText(s: string): string {
  return s.indexOf("&") < 0 ? s : s.replace(REFERENCE, decodeReference);
}

/** fast-xml-parser's decoder hook, replaced by one that ignores every declared or external entity. */
const safeEntityDecoder: EntityDecoderOptions = {
  setExternalEntities: () => {},
  addInputEntities: () => {},
  reset: () => {},
  setXmlVersion: () => {},
  decode: decodeXmlText,
};

/**
 * What every parser of service XML shares: local names only, every value a string, and the safe entity
 * decoder. metadata-fields.ts builds its order-preserving parser on the same options.
 */
export const SAFE_PARSER_OPTIONS = {
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Enabled only so the parser hands text to our decoder; the decoder itself expands nothing declared.
  processEntities: { enabled: true, maxEntityCount: 100, maxEntitySize: 10_000 },
  htmlEntities: false,
  entityDecoder: safeEntityDecoder,
} satisfies X2jOptions;

const parser = new XMLParser({
  ...SAFE_PARSER_OPTIONS,
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  isArray: (name, _path, _isLeaf, isAttribute) => !isAttribute && LIST_ELEMENTS.has(name),
});

export class XmlParseError extends Error {
  override readonly name = "XmlParseError";
}

/**
 * Throws XmlParseError unless `text` is well-formed. The parser itself is lenient (a mismatched or
 * missing end tag still gives a tree), so check first: a broken document is an error rather than a
 * silently wrong answer.
 */
export function checkWellFormed(text: string): void {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const e = valid.err;
    throw new XmlParseError(`not well-formed XML: ${e.msg.slice(0, 200)} (line ${e.line}, column ${e.col})`);
  }
}

const isList = (name: string) => LIST_ELEMENTS.has(name);

/**
 * Parses a document; the result maps the root element's local name to the root element. Most replies take
 * the one-pass fast path (xml-fast.ts: well-formedness checked while the tree is built); anything outside its
 * plain subset, or not well-formed, goes through the full validator and parser, which word the error.
 */
export function parseXml(text: string): XmlElement {
  return (parsePlainXml(text, decodeXmlText, isList) as XmlElement | undefined) ?? parseXmlFully(text);
}

/** Validates, then parses with fast-xml-parser: the reference the fast path is tested against. */
export function parseXmlFully(text: string): XmlElement {
  checkWellFormed(text);
  try {
    const doc = parser.parse(text) as XmlElement | string;
    if (!doc || typeof doc !== "object") throw new XmlParseError("no root element");
    return doc;
  } catch (err) {
    if (err instanceof XmlParseError) throw err;
    throw new XmlParseError(`not well-formed XML: ${(err as Error).message.slice(0, 200)}`, { cause: err });
  }
}

// ---- reading by local name -------------------------------------------------------------------------------

function asElement(node: XmlNode): XmlElement {
  return typeof node === "string" ? (node === "" ? {} : { "#text": node }) : node;
}

/** The document's root element and its local name. */
export function rootOf(doc: XmlElement): { name: string; el: XmlElement } {
  // for…in rather than Object.entries: every reader starts here, and entries builds an array of pairs.
  for (const name in doc) {
    const value = doc[name];
    if (!Object.hasOwn(doc, name) || name.startsWith("@") || name === "#text" || value === undefined)
      continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) return { name, el: asElement(first) };
  }
  throw new XmlParseError("no root element");
}

/** Child elements with this local name (always an array). */
export function all(el: XmlElement | undefined, name: string): XmlElement[] {
  const v = el?.[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(asElement);
}

/** The first child element with this local name. */
export function one(el: XmlElement | undefined, name: string): XmlElement | undefined {
  // all(el, name)[0], without the array: readers call this for every field they read.
  const v = el?.[name];
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : asElement(first);
}

/** Follows a path of local names through first children: `path(root, "Paging", "TotalResults")`. */
export function path(el: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let cur = el;
  for (const n of names) cur = one(cur, n);
  return cur;
}

/** Every descendant element with this local name, in document order (depth first). */
export function descendants(el: XmlElement | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith("@") || key === "#text" || value === undefined) continue;
      for (const child of Array.isArray(value) ? value : [value]) {
        const c = asElement(child);
        if (key === name) out.push(c);
        visit(c);
      }
    }
  };
  if (el) visit(el);
  return out;
}

/** The first descendant with this local name. */
export function find(el: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!el) return undefined;
  const direct = one(el, name);
  if (direct) return direct;
  return descendants(el, name)[0];
}

/** The element's own text (trimmed), or undefined when it has none. */
export function text(el: XmlElement | undefined): string | undefined {
  const t = el?.["#text"];
  if (t === undefined) return undefined;
  const s = Array.isArray(t) ? t.filter((x) => typeof x === "string").join("") : String(t);
  return s === "" ? undefined : s;
}

/** Text of the first child with this local name. */
export function childText(el: XmlElement | undefined, name: string): string | undefined {
  return text(one(el, name));
}

/** Attribute by local name. */
export function attr(el: XmlElement | undefined, name: string): string | undefined {
  const v = el?.[`@${name}`];
  return typeof v === "string" ? v : undefined;
}

/** Parses an integer element value leniently; undefined when absent or not a number. */
export function intText(el: XmlElement | undefined): number | undefined {
  const t = text(el);
  if (t === undefined || !/^-?\d+$/.test(t.trim())) return undefined;
  return Number(t.trim());
}

export function boolAttr(el: XmlElement | undefined, name: string): boolean | undefined {
  const v = attr(el, name)?.trim().toLowerCase();
  return v === undefined ? undefined : v === "true" || v === "1";
}

// ---- raw documents inside documents ----------------------------------------------------------------------

const NAME = "[A-Za-z_][\\w.-]*";

interface TagMatch {
  index: number;
  end: number;
  prefix: string;
  attrs: string;
  selfClosing: boolean;
}

function findStartTag(xml: string, local: string, from: number): TagMatch | undefined {
  const re = new RegExp(
    `<(?:(${NAME}):)?${local}((?:\\s+[^\\s=/>]+\\s*=\\s*(?:"[^"]*"|'[^']*'))*)\\s*(/?)>`,
    "g",
  );
  re.lastIndex = from;
  const m = re.exec(xml);
  if (!m) return undefined;
  return {
    index: m.index,
    end: m.index + m[0].length,
    prefix: m[1] ?? "",
    attrs: m[2] ?? "",
    selfClosing: m[3] === "/",
  };
}

function declarations(attrs: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of attrs.matchAll(/\sxmlns(?::([\w.-]+))?\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out.set(m[1] ?? "", m[2] ?? m[3] ?? "");
  }
  return out;
}

/**
 * The verbatim XML text inside `<…:container><…:child>HERE</…:child>` of a reply, e.g. the descriptive
 * metadata document inside `MetadataContainer/Content`. A namespace prefix the inner document uses but
 * declared only on an enclosing element is re-declared on its root, so the text stands alone.
 * Returns undefined when there is no such element, "" when it is empty.
 */
export function innerXml(xml: string, container: string, child: string): string | undefined {
  const outer = findStartTag(xml, container, 0);
  if (!outer) return undefined;
  const open = findStartTag(xml, child, outer.end);
  if (!open) return undefined;
  if (open.selfClosing) return "";
  // The container's own child closes last: take the last matching end tag before the container's end tag.
  const containerEnd = xml.search(new RegExp(`</(?:${NAME}:)?${container}\\s*>`));
  const limit = containerEnd < 0 ? xml.length : containerEnd;
  const closeName = open.prefix ? `${open.prefix}:${child}` : child;
  const closeRe = new RegExp(`</${closeName.replace(/[.]/g, "\\.")}\\s*>`, "g");
  let closeAt = -1;
  for (const m of xml.slice(0, limit).matchAll(closeRe)) if (m.index >= open.end) closeAt = m.index;
  if (closeAt < 0) return undefined;
  const inner = xml.slice(open.end, closeAt).trim();
  const cdata = /^<!\[CDATA\[([\s\S]*)\]\]>$/.exec(inner);
  if (cdata) return cdata[1] ?? "";
  // A document the service could not inline comes as escaped text.
  if (!inner.startsWith("<")) return decodeXmlText(inner);

  // Namespaces in scope from the document root down to the child element.
  const inScope = new Map<string, string>();
  const rootTag = /<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/.exec(
    xml.replace(/^\uFEFF?\s*(<\?[\s\S]*?\?>\s*)?/, ""),
  );
  for (const attrs of [rootTag?.[2] ?? "", outer.attrs, open.attrs]) {
    for (const [p, uri] of declarations(attrs)) inScope.set(p, uri);
  }
  const innerRoot =
    /^((?:<!--[\s\S]*?-->\s*|<\?[\s\S]*?\?>\s*)*)<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)/.exec(
      inner,
    );
  if (!innerRoot) return inner;
  const rootName = innerRoot[2] ?? "";
  const rootAttrs = innerRoot[3] ?? "";
  // New declarations go after the root's own attributes.
  const insertAt = innerRoot[0].length;
  const declared = declarations(rootAttrs);
  const used = new Set<string>();
  for (const m of inner.matchAll(/<\/?([A-Za-z_][\w.-]*):[A-Za-z_]/g)) if (m[1]) used.add(m[1]);
  for (const m of inner.matchAll(/\s([A-Za-z_][\w.-]*):[\w.-]+\s*=/g))
    if (m[1] && m[1] !== "xmlns") used.add(m[1]);
  let extra = "";
  for (const p of used) {
    const uri = inScope.get(p);
    if (p !== "xml" && uri !== undefined && !declared.has(p)) extra += ` xmlns:${p}="${uri}"`;
  }
  // An unprefixed root inherits the enclosing default namespace; declare it so the text stands alone.
  if (!rootName.includes(":") && !declared.has("") && inScope.get("")) {
    extra += ` xmlns="${inScope.get("")}"`;
  }
  return extra ? inner.slice(0, insertAt) + extra + inner.slice(insertAt) : inner;
}
