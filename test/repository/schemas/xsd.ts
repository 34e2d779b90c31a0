import { readFileSync } from "node:fs";
import {
  XmlBufferInputProvider,
  XmlDocument,
  XmlElement,
  XmlValidateError,
  XsdValidator,
  xmlRegisterInputProvider,
} from "libxml2-wasm";

/**
 * XSD validation of what the service emits, against the official schemas kept in test/fixtures/schemas
 * (their provenance is in PROVENANCE.md there). The validator is libxml2 compiled to WebAssembly
 * (npm `libxml2-wasm`): the same engine as Debian's xmllint, in-process, so each schema is compiled once
 * and hundreds of documents validate in milliseconds, with nothing to install beside `npm ci`.
 */

const DIR = new URL("../../fixtures/schemas/", import.meta.url);

/** XIP schema files by the API version whose namespace they declare. */
export const XIP_SCHEMA_FILES: Record<string, string> = {
  "6.0": "XIP-v6.0.xsd",
  "6.2": "XIP-v6.2.xsd",
  "6.9": "XIP-v6.9.xsd",
  "7.0": "XIP-v7.0.xsd",
  "7.7": "XIP-v7.7.xsd",
};
export const OPEX_SCHEMA_FILE = "OPEX-Metadata-v1.2.xsd";

/**
 * A wrapper schema in a namespace of its own, importing the official one, so the two XIP parts the
 * Entity API emits that the XIP schema has as local elements only can be validated against their
 * official types: `xip:Event` (a standalone event of /events, type EventType) and
 * `xip:MetadataContainer` (the fragment of MetadataResponse, type MetadataType). The schema itself is
 * untouched.
 */
export const PART_NS = "urn:x-preservation-mcp:test:xip-part";

const files = new XmlBufferInputProvider({});
xmlRegisterInputProvider(files);

function load(file: string): string {
  const text = readFileSync(new URL(file, DIR), "utf8");
  files.addBuffer(file, new TextEncoder().encode(text));
  return text;
}

function validatorOf(schema: string): XsdValidator {
  const doc = XmlDocument.fromString(schema);
  try {
    return XsdValidator.fromDoc(doc);
  } finally {
    doc.dispose();
  }
}

export function targetNamespace(schemaText: string): string {
  const m = /targetNamespace="([^"]+)"/.exec(schemaText);
  if (!m?.[1]) throw new Error("schema without a targetNamespace");
  return m[1];
}

export interface XipSchema {
  version: string;
  ns: string;
  validator: XsdValidator;
}

export function loadXipSchema(version: string): XipSchema {
  const file = XIP_SCHEMA_FILES[version];
  if (!file) throw new Error(`no XIP schema for ${version}`);
  const ns = targetNamespace(load(file));
  const wrapper = `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xip="${ns}" targetNamespace="${PART_NS}">
  <xs:import namespace="${ns}" schemaLocation="${file}"/>
  <xs:element name="Event" type="xip:EventType"/>
  <xs:element name="MetadataContainer" type="xip:MetadataType"/>
</xs:schema>`;
  return { version, ns, validator: validatorOf(wrapper) };
}

export function loadOpexSchema(): XsdValidator {
  return validatorOf(load(OPEX_SCHEMA_FILE));
}

/** The schema's complaints about one document (empty: valid). A document that is not XML says so. */
export function validate(validator: XsdValidator, xml: string): string[] {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (e) {
    return [`not well-formed: ${(e as Error).message}`];
  }
  try {
    validator.validate(doc);
    return [];
  } catch (e) {
    if (e instanceof XmlValidateError) return e.details.map((d) => d.message.trim());
    throw e;
  } finally {
    doc.dispose();
  }
}

/** The children of XIPType in the schema's order (it is a sequence). */
const XIP_ORDER = [
  "StructuralObject",
  "InformationObject",
  "Representation",
  "ContentObject",
  "Generation",
  "Bitstream",
  "Identifier",
  "Link",
  "Restriction",
  "Metadata",
  "EventAction",
];

export interface XipPart {
  /** Local name of the XIP element as the service sent it. */
  name: string;
  /** The document that validates it: `xip:XIP` around it, or the part wrapper for Event/MetadataContainer. */
  document: string;
}

/**
 * The XIP parts of an Entity API reply: every outermost element in the XIP namespace (an EntityResponse's
 * xip:InformationObject, each xip:Identifier of an IdentifiersResponse, …), each made into a document the
 * schema can judge. The reply's own namespace declarations are carried over, so embedded metadata keeps
 * the meaning it has in the reply.
 */
export function xipParts(reply: string, xipNs: string): XipPart[] {
  const doc = XmlDocument.fromString(reply);
  try {
    return partsOf(doc.root, xipNs);
  } finally {
    doc.dispose();
  }
}

function partsOf(root: XmlElement, xipNs: string): XipPart[] {
  const declarations = Object.entries(root.nsDeclarations)
    .map(([prefix, uri]) => (prefix ? ` xmlns:${prefix}="${uri}"` : ` xmlns="${uri}"`))
    .join("");
  const outermost = root.find(
    "//*[namespace-uri() = $ns and not(ancestor::*[namespace-uri() = $ns])]".replaceAll("$ns", `'${xipNs}'`),
  );
  const parts: { name: string; text: string }[] = [];
  for (const node of outermost) {
    if (!(node instanceof XmlElement)) continue;
    parts.push({ name: node.name, text: node.toString({ format: false }) });
  }
  const inXip = parts
    .filter((p) => XIP_ORDER.includes(p.name))
    .sort((a, b) => XIP_ORDER.indexOf(a.name) - XIP_ORDER.indexOf(b.name));
  const out: XipPart[] = inXip.map((p) => ({
    name: p.name,
    document: `<xip:XIP${declarations.includes("xmlns:xip=") ? "" : ` xmlns:xip="${xipNs}"`}${declarations}>${p.text}</xip:XIP>`,
  }));
  for (const p of parts) {
    if (XIP_ORDER.includes(p.name)) continue;
    // Renames the outermost tag only: its children stay in the XIP namespace, as the official type wants.
    const prefix = /^<([A-Za-z_][\w.-]*):/.exec(p.text)?.[1];
    const renamed = prefix
      ? p.text
          .replace(new RegExp(`^<${prefix}:${p.name}`), `<part:${p.name}`)
          .replace(new RegExp(`</${prefix}:${p.name}>$`), `</part:${p.name}>`)
      : p.text;
    out.push({
      name: p.name,
      document: renamed.replace(`<part:${p.name}`, `<part:${p.name} xmlns:part="${PART_NS}"${declarations}`),
    });
  }
  return out;
}
