/**
 * A fast path for the XML the service sends most (lists and entity documents): one pass that checks the
 * document is well-formed *and* builds the same tree as xml.ts's fast-xml-parser setup, about ten times faster
 * than validating and then parsing (a 100-child listing: 0.12 ms of CPU instead of 0.93 ms on the machine
 * where it was measured).
 *
 * It reads a deliberately plain subset of XML and answers `undefined` for anything outside it, so the caller
 * falls back to the full validator and parser: no DOCTYPE, CDATA, processing instruction or comment inside
 * the root (before and after the root, comments are fine), no mixed content, ASCII names with at most one
 * prefix, no prefixed attributes other than namespace declarations. Inside the subset it is strict: every
 * element closes in order, one root, nothing but whitespace and comments around it, attributes quoted and
 * unique, no `<` in attribute values, and every `&` a well-formed reference (decoded by the same safe decoder,
 * so nothing declared or external is ever expanded). test/api/xml-fast.test.ts checks it against the parser.
 */

export type FastNode = string | FastElement;
export interface FastElement {
  [key: string]: FastNode | FastNode[] | undefined;
}

const GT = 62; // >
const SLASH = 47;
const EQ = 61;
const QUOT = 34;
const APOS = 39;
const QUESTION = 63;
const BANG = 33;
const COLON = 58;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}
function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === COLON;
}

/** Every `&` starts a reference the decoder understands (`&amp;`, `&#65;`, `&#x41;`, `&name;`). */
const BAD_AMPERSAND = /&(?!(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z_][\w.-]*);)/;

/**
 * Names that would reach an object's prototype or shadow its methods: fast-xml-parser refuses or renames them,
 * so documents using them are left to it.
 */
const RESERVED = new Set([
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "valueOf",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
]);
function checkedLocal(local: string): string {
  if (RESERVED.has(local)) throw OUTSIDE;
  return local;
}

class OutsideSubset extends Error {}
const OUTSIDE = new OutsideSubset();

interface Open {
  raw: string;
  local: string;
  el: FastElement;
  attrs: boolean;
  children: boolean;
  /** Where the content not yet checked begins: after the start tag, then after each child. */
  from: number;
}

/**
 * The parsed tree (root's local name → root value, as fast-xml-parser gives it with xml.ts's options), or
 * undefined when the document is outside the plain subset or not well-formed: then let the full validator and
 * parser decide, and word the error.
 */
export function parsePlainXml(
  xml: string,
  decode: (s: string) => string,
  isList: (localName: string) => boolean,
): FastElement | undefined {
  try {
    return parse(xml, decode, isList);
  } catch (err) {
    if (err === OUTSIDE) return undefined;
    throw err;
  }
}

function parse(
  xml: string,
  decode: (s: string) => string,
  isList: (localName: string) => boolean,
): FastElement {
  const n = xml.length;
  let i = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (xml.startsWith("<?xml", i) && isSpace(xml.charCodeAt(i + 5))) {
    const end = xml.indexOf("?>", i);
    if (end < 0) throw OUTSIDE;
    i = end + 2;
  }
  const doc: FastElement = {};
  const stack: Open[] = [];
  let rootSeen = false;

  const localOf = (raw: string): string => {
    const colon = raw.indexOf(":");
    if (colon < 0) return checkedLocal(raw);
    if (colon === 0 || colon === raw.length - 1 || raw.indexOf(":", colon + 1) >= 0) throw OUTSIDE;
    return checkedLocal(raw.slice(colon + 1));
  };
  const readName = (from: number): number => {
    if (!isNameStart(xml.charCodeAt(from))) throw OUTSIDE;
    let j = from + 1;
    while (j < n && isNameChar(xml.charCodeAt(j))) j++;
    return j;
  };
  const text = (raw: string): string => {
    const t = raw.trim();
    if (t.indexOf("&") < 0) return t;
    if (BAD_AMPERSAND.test(t)) throw OUTSIDE;
    return decode(t);
  };
  const add = (parent: FastElement, name: string, value: FastNode) => {
    const existing = Object.hasOwn(parent, name) ? parent[name] : undefined;
    if (existing === undefined) parent[name] = isList(name) ? [value] : value;
    else if (Array.isArray(existing)) existing.push(value);
    else parent[name] = [existing, value];
  };

  while (i < n) {
    const lt = xml.indexOf("<", i);
    const top = stack[stack.length - 1];
    const segmentEnd = lt < 0 ? n : lt;
    if (!top) {
      // Outside the root: whitespace only.
      for (let j = i; j < segmentEnd; j++) if (!isSpace(xml.charCodeAt(j))) throw OUTSIDE;
    }
    if (lt < 0) break;
    const c = xml.charCodeAt(lt + 1);
    if (c === BANG) {
      // Comments around the root only; DOCTYPE and CDATA are for the full parser.
      if (top || !xml.startsWith("<!--", lt)) throw OUTSIDE;
      const end = xml.indexOf("-->", lt + 4);
      if (end < 0 || xml.slice(lt + 4, end).includes("--")) throw OUTSIDE;
      i = end + 3;
      continue;
    }
    if (c === QUESTION) throw OUTSIDE;
    if (c === SLASH) {
      if (!top) throw OUTSIDE;
      const nameEnd = readName(lt + 2);
      if (xml.slice(lt + 2, nameEnd) !== top.raw) throw OUTSIDE;
      let j = nameEnd;
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      if (xml.charCodeAt(j) !== GT) throw OUTSIDE;
      stack.pop();
      const parent = stack[stack.length - 1];
      close(top, lt, parent);
      if (parent) parent.from = j + 1;
      i = j + 1;
      continue;
    }
    // A start tag.
    if (top) {
      // Text before a child element: mixed content unless it is whitespace.
      for (let j = top.from; j < lt; j++) if (!isSpace(xml.charCodeAt(j))) throw OUTSIDE;
    } else if (rootSeen) {
      throw OUTSIDE; // a second root
    }
    const nameEnd = readName(lt + 1);
    const raw = xml.slice(lt + 1, nameEnd);
    const el: FastElement = {};
    let attrs = false;
    let j = nameEnd;
    let seen: string[] | undefined;
    for (;;) {
      const before = j;
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      const ch = xml.charCodeAt(j);
      if (ch === GT || ch === SLASH) break;
      if (j === before) throw OUTSIDE; // attributes are separated by whitespace
      const attrEnd = readName(j);
      const attrName = xml.slice(j, attrEnd);
      j = attrEnd;
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      if (xml.charCodeAt(j) !== EQ) throw OUTSIDE;
      j++;
      while (j < n && isSpace(xml.charCodeAt(j))) j++;
      const q = xml.charCodeAt(j);
      if (q !== QUOT && q !== APOS) throw OUTSIDE;
      const valueEnd = xml.indexOf(q === QUOT ? '"' : "'", j + 1);
      if (valueEnd < 0) throw OUTSIDE;
      const value = xml.slice(j + 1, valueEnd);
      if (value.indexOf("<") >= 0) throw OUTSIDE;
      j = valueEnd + 1;
      seen ??= [];
      if (seen.includes(attrName)) throw OUTSIDE;
      seen.push(attrName);
      if (attrName === "xmlns" || attrName.startsWith("xmlns:")) {
        localOf(attrName);
        continue; // namespace declarations are dropped, as removeNSPrefix does
      }
      if (attrName.indexOf(":") >= 0) throw OUTSIDE;
      checkedLocal(attrName);
      el[`@${attrName}`] = text(value);
      attrs = true;
    }
    const local = localOf(raw);
    const selfClosing = xml.charCodeAt(j) === SLASH;
    if (selfClosing) {
      if (xml.charCodeAt(j + 1) !== GT) throw OUTSIDE;
      j++;
    }
    const open: Open = { raw, local, el, attrs, children: false, from: j + 1 };
    if (top) top.children = true;
    else rootSeen = true;
    if (selfClosing) {
      close(open, j + 1, top);
      if (top) top.from = j + 1;
      i = j + 1;
      continue;
    }
    stack.push(open);
    i = j + 1;
  }
  if (stack.length > 0 || !rootSeen) throw OUTSIDE;
  return doc;

  /** Ends `open` (its content runs to `end`) and adds its value to `parent` (the document for the root). */
  function close(open: Open, end: number, parent: Open | undefined) {
    let value: FastNode;
    if (open.children) {
      // Element content: the text after the last child must be whitespace too.
      for (let k = open.from; k < end; k++) if (!isSpace(xml.charCodeAt(k))) throw OUTSIDE;
      value = open.el;
    } else {
      const t = end > open.from ? text(xml.slice(open.from, end)) : "";
      if (open.attrs) {
        if (t !== "") open.el["#text"] = t;
        value = open.el;
      } else {
        value = t;
      }
    }
    add(parent ? parent.el : doc, open.local, value);
  }
}
