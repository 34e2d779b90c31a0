import { XMLParser } from "fast-xml-parser";

/**
 * A namespace-aware walk over a stored metadata fragment. fast-xml-parser keeps prefixes as written,
 * so the walk resolves them against the `xmlns` declarations in scope: a Dublin Core element is found
 * by its namespace, whatever prefix (or default namespace) the depositor chose.
 */

export interface XmlElement {
  /** Namespace URI ("" when none). */
  ns: string;
  localName: string;
  /** Text directly inside the element (child elements' text excluded), whitespace-normalised. */
  text: string;
  /** Whether the element has child elements. */
  hasChildren: boolean;
  depth: number;
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Decodes numeric character references (&#233;) as well as the five XML entities.
  htmlEntities: true,
});

/** Calls `visit` for every element in document order; malformed XML yields no elements. */
export function walkXml(xml: string, visit: (el: XmlElement) => void): void {
  let nodes: unknown;
  try {
    nodes = parser.parse(xml);
  } catch {
    return;
  }
  if (Array.isArray(nodes)) walkNodes(nodes as Node[], new Map(), 0, visit);
}

function walkNodes(
  nodes: Node[],
  scope: Map<string, string>,
  depth: number,
  visit: (el: XmlElement) => void,
) {
  for (const node of nodes) {
    const tag = Object.keys(node).find((k) => k !== ":@" && k !== "#text");
    if (tag === undefined || tag.startsWith("?")) continue;
    const attrs = (node[":@"] ?? {}) as Record<string, string>;
    let inner = scope;
    for (const [name, value] of Object.entries(attrs)) {
      if (name === "xmlns" || name.startsWith("xmlns:")) {
        if (inner === scope) inner = new Map(scope);
        inner.set(name === "xmlns" ? "" : name.slice(6), String(value));
      }
    }
    const colon = tag.indexOf(":");
    const prefix = colon < 0 ? "" : tag.slice(0, colon);
    const localName = colon < 0 ? tag : tag.slice(colon + 1);
    const children = (Array.isArray(node[tag]) ? node[tag] : []) as Node[];
    const text = children
      .filter((c) => "#text" in c)
      .map((c) => String(c["#text"]))
      .join(" ")
      .replace(/\s+/g, " ")
      .trim();
    const hasChildren = children.some((c) => !("#text" in c));
    visit({ ns: inner.get(prefix) ?? "", localName, text, hasChildren, depth });
    walkNodes(children, inner, depth + 1, visit);
  }
}
