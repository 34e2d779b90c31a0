import { type EntityDecoderOptions, XMLParser, XMLValidator } from "fast-xml-parser";
import { decodeXmlText, XmlParseError } from "./xml.js";

/**
 * A descriptive metadata document (Dublin Core and other simple, record-like schemas) as a flat list of
 * name/value pairs in document order: element local names, nested elements as `parent/child`,
 * attributes as `element@attribute`, repeated elements kept where they stand. Parsed with the same safety
 * as xml.ts (no DOCTYPE-declared or external entity is ever expanded), but order-preserving, because a
 * record's order is meaningful and xml.ts's object tree groups repeated elements together.
 */

export interface MetadataField {
  name: string;
  value: string;
}

const decoder: EntityDecoderOptions = {
  setExternalEntities: () => {},
  addInputEntities: () => {},
  reset: () => {},
  setXmlVersion: () => {},
  decode: decodeXmlText,
};

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  textNodeName: "#text",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
  processEntities: { enabled: true, maxEntityCount: 100, maxEntitySize: 10_000 },
  htmlEntities: false,
  entityDecoder: decoder,
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
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new XmlParseError(`not well-formed XML: ${valid.err.msg.slice(0, 200)} (line ${valid.err.line})`);
  }
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
