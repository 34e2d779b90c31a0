import { XMLParser, XMLValidator } from "fast-xml-parser";
import { HTTPException } from "hono/http-exception";

/**
 * Reading XML that clients send (entity objects, metadata containers, identifiers, links, actions).
 * Untrusted input: a DOCTYPE is refused outright (so no entity, internal or external, is ever
 * expanded), only the five predefined entities and character references are decoded, and the
 * document must be well-formed with exactly one root element. Elements are matched by namespace and
 * local name, never by prefix: clients' XML libraries choose prefixes freely (`ns0:`, `xip:`, none).
 * End tags with a space before `>` (`</Link >`, sent by pyPreservica) are legal XML and accepted.
 * Characters XML 1.0 forbids (C0 controls but tab, newline and return; U+FFFE, U+FFFF), as such or as
 * character references, are refused too, and so are elements nested more than MAX_XML_DEPTH deep.
 */

export interface XmlNode {
  /** Namespace URI ("" when none). */
  ns: string;
  /** Local name. */
  name: string;
  /** Qualified name as written, e.g. `xip:Title`. */
  qname: string;
  /** Attributes by qualified name as written, namespace declarations excluded, values decoded. */
  attrs: Record<string, string>;
  children: XmlNode[];
  /** Character data directly inside the element (CDATA included), decoded, not trimmed. */
  text: string;
  /** Namespace bindings in scope at this element (prefix "" = default namespace). */
  scope: ReadonlyMap<string, string>;
  /** The element's own namespace declarations, as written. */
  declarations: Record<string, string>;
  /** Children and text in document order, for re-serialising embedded documents. */
  content: (XmlNode | { text: string; cdata?: boolean })[];
}

/** Deepest element nesting accepted: far beyond any request document, and it bounds the recursion below. */
export const MAX_XML_DEPTH = 100;

const parser = new XMLParser({
  maxNestedTags: MAX_XML_DEPTH,
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: "#cdata",
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** A 400 whose message says what is wrong with the XML and what to send instead. */
export function badXml(message: string): HTTPException {
  return new HTTPException(400, { message });
}

const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9a-fA-F]{1,6}));|&/g;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Decodes the predefined entities and character references; any other `&` is an error. */
function decode(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(
    REFERENCE,
    (
      whole: string,
      named: string | undefined,
      dec: string | undefined,
      hex: string | undefined,
      at: number,
    ) => {
      if (named) return PREDEFINED[named] as string;
      if (dec === undefined && hex === undefined) {
        const name = /^&([A-Za-z_][\w.-]*);/.exec(raw.slice(at))?.[1];
        throw badXml(
          name
            ? `The XML uses the entity &${name}; which XML does not define (DOCTYPE declarations are not accepted); write the character itself or a character reference such as &#160;`
            : "The XML has a bare '&'; write it as &amp;",
        );
      }
      const code = dec !== undefined ? Number(dec) : Number.parseInt(hex as string, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || isForbiddenChar(code)) {
        throw badXml(`The XML has a character reference to a code point XML does not allow (${whole})`);
      }
      return String.fromCodePoint(code);
    },
  );
}

/** C0 controls other than tab, newline and return, and U+FFFE / U+FFFF: not characters of XML 1.0. */
function isForbiddenChar(code: number): boolean {
  return (code < 0x20 && code !== 0x9 && code !== 0xa && code !== 0xd) || code === 0xfffe || code === 0xffff;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: these characters are what it finds.
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

type RawNode = Record<string, unknown>;

/**
 * Parses an XML request body. Throws a 400 HTTPException that says what to fix when the text is
 * empty, not well-formed, has a DOCTYPE, uses undefined entities or has more than one root.
 */
export function parseXmlBody(text: string, example: string): XmlNode {
  const body = text.replace(/^\uFEFF/, "");
  if (body.trim() === "") throw badXml(`The request body is empty; send XML such as ${example}`);
  if (/<!DOCTYPE/i.test(body)) {
    throw badXml(
      "DOCTYPE declarations are not accepted (entities are never expanded); send the XML without a DOCTYPE",
    );
  }
  const forbidden = FORBIDDEN_CHAR.exec(body);
  if (forbidden) {
    const code = (forbidden[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
    const line = body.slice(0, forbidden.index).split("\n").length;
    throw badXml(
      `The XML holds a character XML does not allow (U+${code}, line ${line}); remove it, or send the text without control characters`,
    );
  }
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw badXml(
      `The request body is not well-formed XML (line ${line}${col ? `, column ${col}` : ""}: ${msg}); send XML such as ${example}`,
    );
  }
  let nodes: RawNode[];
  try {
    nodes = parser.parse(body) as RawNode[];
  } catch (err) {
    if (/nested tags/i.test((err as Error).message)) {
      throw badXml(
        `The XML nests elements more than ${MAX_XML_DEPTH} deep; request documents are far shallower: send XML such as ${example}`,
      );
    }
    throw badXml(`The request body is not well-formed XML; send XML such as ${example}`);
  }
  const roots = nodes.filter((n) => elementName(n) !== undefined);
  const strayText = nodes.some((n) => "#text" in n && String(n["#text"]).trim() !== "");
  if (roots.length !== 1 || strayText) {
    throw badXml(
      `The request body must hold exactly one root element (it has ${roots.length}); send XML such as ${example}`,
    );
  }
  return toNode(roots[0] as RawNode, new Map([["xml", "http://www.w3.org/XML/1998/namespace"]]));
}

function elementName(n: RawNode): string | undefined {
  return Object.keys(n).find((k) => k !== ":@" && k !== "#text" && k !== "#cdata" && !k.startsWith("?"));
}

function toNode(raw: RawNode, parentScope: ReadonlyMap<string, string>): XmlNode {
  const qname = elementName(raw) as string;
  const rawAttrs = (raw[":@"] ?? {}) as Record<string, string>;
  let scope = parentScope;
  const declarations: Record<string, string> = {};
  const attrs: Record<string, string> = {};
  for (const [name, value] of Object.entries(rawAttrs)) {
    const v = decode(String(value));
    if (name === "xmlns" || name.startsWith("xmlns:")) {
      if (scope === parentScope) scope = new Map(parentScope);
      (scope as Map<string, string>).set(name === "xmlns" ? "" : name.slice(6), v);
      declarations[name] = v;
    } else {
      attrs[name] = v;
    }
  }
  const colon = qname.indexOf(":");
  const prefix = colon < 0 ? "" : qname.slice(0, colon);
  const name = colon < 0 ? qname : qname.slice(colon + 1);
  const ns = scope.get(prefix);
  if (ns === undefined && prefix !== "") {
    throw badXml(`The XML uses the prefix "${prefix}:" without declaring it (xmlns:${prefix}="...")`);
  }
  const node: XmlNode = {
    ns: ns ?? "",
    name,
    qname,
    attrs,
    children: [],
    text: "",
    scope,
    declarations,
    content: [],
  };
  for (const child of (raw[qname] ?? []) as RawNode[]) {
    if ("#text" in child) {
      const t = decode(String(child["#text"]));
      node.text += t;
      node.content.push({ text: t });
    } else if ("#cdata" in child) {
      const t = ((child["#cdata"] ?? []) as RawNode[]).map((c) => String(c["#text"] ?? "")).join("");
      node.text += t;
      node.content.push({ text: t, cdata: true });
    } else if (elementName(child) !== undefined) {
      const el = toNode(child, scope);
      node.children.push(el);
      node.content.push(el);
    }
  }
  return node;
}

/** The first child element with this local name (in any namespace, or in `ns` when given). */
export function child(node: XmlNode, name: string, ns?: string): XmlNode | undefined {
  return node.children.find((c) => c.name === name && (ns === undefined || c.ns === ns));
}

/** Every child element with this local name. */
export function childrenNamed(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((c) => c.name === name);
}

/** Trimmed text of the first child with this local name; undefined when there is no such child. */
export function childText(node: XmlNode, name: string): string | undefined {
  const c = child(node, name);
  return c === undefined ? undefined : c.text.trim();
}

/** The first element with this local name at any depth below `node` (depth-first, document order). */
export function descendant(node: XmlNode, name: string): XmlNode | undefined {
  for (const c of node.children) {
    if (c.name === name) return c;
    const d = descendant(c, name);
    if (d) return d;
  }
  return undefined;
}

function escapeText(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttr(s: string): string {
  return escapeText(s)
    .replace(/"/g, "&quot;")
    .replace(/\t/g, "&#9;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;");
}

/** Prefixes used by element and attribute names in a subtree ("" for unprefixed elements). */
function usedPrefixes(node: XmlNode, out = new Set<string>()): Set<string> {
  const colon = node.qname.indexOf(":");
  out.add(colon < 0 ? "" : node.qname.slice(0, colon));
  for (const a of Object.keys(node.attrs)) {
    const i = a.indexOf(":");
    if (i > 0) out.add(a.slice(0, i));
  }
  for (const c of node.children) usedPrefixes(c, out);
  return out;
}

function serialise(node: XmlNode, extra: Record<string, string>): string {
  let out = `<${node.qname}`;
  for (const [k, v] of Object.entries({ ...extra, ...node.declarations })) out += ` ${k}="${escapeAttr(v)}"`;
  for (const [k, v] of Object.entries(node.attrs)) out += ` ${k}="${escapeAttr(v)}"`;
  if (node.content.length === 0) return `${out}/>`;
  out += ">";
  for (const part of node.content) {
    if ("qname" in part) out += serialise(part, {});
    else out += escapeText(part.text);
  }
  return `${out}</${node.qname}>`;
}

/**
 * An element as a standalone XML document: the namespace bindings it relied on from its ancestors
 * (for the prefixes it uses) are declared on it, so it means the same outside its container. An
 * unprefixed element with no default namespace in scope stays in no namespace.
 */
export function standaloneXml(node: XmlNode): string {
  const extra: Record<string, string> = {};
  for (const prefix of usedPrefixes(node)) {
    const attr = prefix === "" ? "xmlns" : `xmlns:${prefix}`;
    if (attr in node.declarations || prefix === "xml") continue;
    const uri = node.scope.get(prefix);
    if (uri !== undefined && uri !== "") extra[attr] = uri;
  }
  return serialise(node, extra);
}
