import { XMLValidator } from "fast-xml-parser";

/**
 * A small, safe XML writer for the service's responses. Text and attribute values are always escaped;
 * the only way to put markup in is `raw`, used for stored metadata documents after `inlineableXml`
 * has checked them. Builds one string (responses are small and this is the hot path of entity GETs).
 */

// Characters XML 1.0 forbids anywhere (C0 controls except tab/newline/return, lone surrogates, FFFE/FFFF).
// They are dropped rather than escaped: no escape makes them legal, and one would break the whole reply.
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the characters XML forbids is the point.
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_SPECIALS = /[&<>]/;
const ATTR_SPECIALS = /[&<>"\t\n\r]/;

function escapeText(s: string): string {
  const clean = s.replace(FORBIDDEN, "");
  if (!TEXT_SPECIALS.test(clean)) return clean;
  return clean.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes an attribute value; whitespace characters become references so parsers keep them. */
function escapeAttr(s: string): string {
  const clean = s.replace(FORBIDDEN, "");
  if (!ATTR_SPECIALS.test(clean)) return clean;
  return clean
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/\t/g, "&#9;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;");
}

export type Attrs = Record<string, string | number | boolean | null | undefined>;

function attrString(attrs: Attrs | undefined): string {
  if (!attrs) return "";
  let out = "";
  for (const name in attrs) {
    const v = attrs[name];
    if (v === null || v === undefined) continue;
    out += ` ${name}="${escapeAttr(String(v))}"`;
  }
  return out;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

export class XmlWriter {
  private out: string;

  constructor(declaration = true) {
    this.out = declaration ? XML_DECLARATION : "";
  }

  open(name: string, attrs?: Attrs): this {
    this.out += `<${name}${attrString(attrs)}>`;
    return this;
  }

  close(name: string): this {
    this.out += `</${name}>`;
    return this;
  }

  /** `<name attrs>text</name>`, or `<name attrs/>` when text is empty. */
  leaf(name: string, text: string | number | boolean | null | undefined = "", attrs?: Attrs): this {
    const t = text === null || text === undefined ? "" : escapeText(String(text));
    this.out += t === "" ? `<${name}${attrString(attrs)}/>` : `<${name}${attrString(attrs)}>${t}</${name}>`;
    return this;
  }

  /** Like `leaf`, but writes nothing when the value is null or undefined (optional elements). */
  opt(name: string, text: string | number | null | undefined, attrs?: Attrs): this {
    if (text === null || text === undefined) return this;
    return this.leaf(name, text, attrs);
  }

  /** Appends character data (escaped). */
  text(s: string): this {
    this.out += escapeText(s);
    return this;
  }

  /** Appends markup verbatim. Only for documents that passed `inlineableXml`. */
  raw(xml: string): this {
    this.out += xml;
    return this;
  }

  toString(): string {
    return this.out;
  }
}

const LEADING_PROLOG = /^(?:\uFEFF)?\s*(?:<\?xml[^?]*\?>)?\s*(?:<!DOCTYPE((?:[^[>]|\[[^\]]*\])*)>)?\s*/;

/** Internal general entities whose replacement is plain text: the only kind expanded when inlining. */
const TEXT_ENTITY = /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"<&%]*)"|'([^'<&%]*)')\s*>/g;
const PREDEFINED_ENTITIES = new Set(["amp", "lt", "gt", "quot", "apos"]);
/** CDATA sections and comments (left alone), and named entity references (captured). */
const SECTIONS_AND_REFERENCES = /<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->|&([A-Za-z_][\w.-]*);/g;

/**
 * Replaces references to the text entities the dropped DOCTYPE declared with their text, as a parser
 * would have (a real server stores the parsed document). Undefined when a reference is left that only
 * the DOCTYPE could resolve: inlined, it would make the whole reply malformed for every client.
 */
function expandDeclaredEntities(body: string, doctype: string | undefined): string | undefined {
  const declared = new Map<string, string>();
  for (const m of (doctype ?? "").matchAll(TEXT_ENTITY)) {
    const [, name = "", doubleQuoted, singleQuoted] = m;
    // The first declaration of an entity binds (XML 1.0 §4.2).
    if (!declared.has(name)) {
      const value = doubleQuoted ?? singleQuoted ?? "";
      declared.set(name, value.replace(/"/g, "&quot;").replace(/'/g, "&apos;").replace(/>/g, "&gt;"));
    }
  }
  let resolved = true;
  const expanded = body.replace(SECTIONS_AND_REFERENCES, (whole, name: string | undefined) => {
    if (name === undefined || PREDEFINED_ENTITIES.has(name)) return whole;
    const text = declared.get(name);
    if (text === undefined) resolved = false;
    return text ?? whole;
  });
  return resolved ? expanded : undefined;
}

/**
 * Prepares a stored XML document for inlining inside another document: drops the BOM, XML declaration
 * and DOCTYPE (none is legal mid-document) after expanding the text entities it declared, and gives an
 * unqualified root `xmlns=""` when it declares no default namespace, so its unprefixed elements keep
 * the meaning they had standing alone instead of inheriting the response's EntityAPI namespace.
 * Returns undefined when the text is not well-formed XML or needs its DOCTYPE to be read.
 */
export function inlineableXml(stored: string): string | undefined {
  const prolog = LEADING_PROLOG.exec(stored);
  const body = expandDeclaredEntities(stored.slice(prolog?.[0].length ?? 0).trimEnd(), prolog?.[1]);
  if (body === undefined || !body.startsWith("<")) return undefined;
  if (XMLValidator.validate(body) !== true) return undefined;
  // Skip comments and processing instructions before the root, then read the root start tag.
  let at = 0;
  for (;;) {
    const m = /^\s*(?:<!--[\s\S]*?-->|<\?[\s\S]*?\?>)/.exec(body.slice(at));
    if (!m) break;
    at += m[0].length;
  }
  const startTag =
    /\s*<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/y;
  startTag.lastIndex = at;
  const root = startTag.exec(body);
  if (!root) return undefined;
  const [, , attrs = ""] = root;
  if (/\sxmlns\s*=/.test(attrs)) return body;
  const insertAt = body.indexOf("<", root.index) + 1 + (root[1]?.length ?? 0);
  return `${body.slice(0, insertAt)} xmlns=""${body.slice(insertAt)}`;
}
