import { XMLParser } from "fast-xml-parser";
import { checkWellFormed, SAFE_PARSER_OPTIONS } from "./xml.js";

/**
 * A descriptive metadata document (Dublin Core and other simple, record-like schemas) as a flat list of
 * name/value pairs in document order: element local names, nested elements as `parent/child`,
 * attributes as `element@attribute`, repeated elements kept where they stand. Parsed with xml.ts's safe
 * options (no DOCTYPE-declared or external entity is ever expanded), but order-preserving, because a
 * record's order is meaningful and xml.ts's object tree groups repeated elements together.
 */

export interface MetadataField {
  name: string;
  value: string;
}

const parser = new XMLParser({
  ...SAFE_PARSER_OPTIONS,
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  textNodeName: "#text",
  commentPropName: false,
});

type OrderedNode = Record<string, unknown> & { ":@"?: Record<string, string> };

function elementName(node: OrderedNode): string | undefined {
  return Object.keys(node).find((k) => k !== ":@" && k !== "#text");
}

function attributesOf(node: OrderedNode): [string, string][] {
  return Object.entries(node[":@"] ?? {}).filter(
    ([name]) => name !== "xmlns" && !name.startsWith("xmlns:") && name !== "schemaLocation",
  );
}

/** The document's root element name and its content as fields; throws XmlParseError when not XML. */
export function metadataFields(xml: string): { root: string; fields: MetadataField[] } {
  checkWellFormed(xml);
  const doc = parser.parse(xml) as OrderedNode[];
  const rootNode = doc.find((n) => elementName(n) !== undefined);
  const root = rootNode ? (elementName(rootNode) as string) : "";
  const fields: MetadataField[] = [];

  const visit = (nodes: OrderedNode[], prefix: string) => {
    for (const node of nodes) {
      const name = elementName(node);
      if (!name) continue;
      const path = `${prefix}${name}`;
      for (const [attr, value] of attributesOf(node)) {
        if (value.trim() !== "") fields.push({ name: `${path}@${attr}`, value: value.trim() });
      }
      const children = (node[name] as OrderedNode[] | undefined) ?? [];
      const text = children
        .map((c) => c["#text"])
        .filter((t): t is string => typeof t === "string")
        .join(" ")
        .trim();
      if (text !== "") fields.push({ name: path, value: text });
      const elements = children.filter((c) => elementName(c) !== undefined);
      if (elements.length > 0) visit(elements, `${path}/`);
    }
  };
  if (rootNode) {
    for (const [attr, value] of attributesOf(rootNode)) {
      if (value.trim() !== "") fields.push({ name: `@${attr}`, value: value.trim() });
    }
    visit(
      ((rootNode[root] as OrderedNode[] | undefined) ?? []).filter((c) => elementName(c) !== undefined),
      "",
    );
  }
  return { root, fields };
}
