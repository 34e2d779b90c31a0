import { XMLParser } from "fast-xml-parser";
import { expect } from "vitest";

/**
 * Reading Entity API replies in tests: by local name (like lenient clients), with the root element's
 * namespace declarations kept so tests can check the version of the reply.
 */

const localParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  textNodeName: "#text",
});
const prefixedParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  textNodeName: "#text",
});

// biome-ignore lint/suspicious/noExplicitAny: parsed XML is untyped by nature; tests assert on shapes.
export type Node = any;

export interface XmlReply {
  /** Local name of the root element. */
  rootName: string;
  /** The root element, read by local names. */
  root: Node;
  /** Default namespace (EntityAPI) and the namespace bound to `xip`. */
  ns: { entity: string | undefined; xip: string | undefined };
  /** The root element with prefixes kept (`xip:Ref`), for checking which elements carry the prefix. */
  prefixed: Node;
  text: string;
}

export function parseXml(text: string): XmlReply {
  const doc = localParser.parse(text) as Record<string, Node>;
  const rootName = Object.keys(doc).find((k) => k !== "?xml") as string;
  const prefixedDoc = prefixedParser.parse(text) as Record<string, Node>;
  const prefixedRootName = Object.keys(prefixedDoc).find((k) => k !== "?xml") as string;
  const prefixed = prefixedDoc[prefixedRootName];
  return {
    rootName,
    root: doc[rootName],
    ns: { entity: prefixed["@xmlns"], xip: prefixed["@xmlns:xip"] },
    prefixed,
    text,
  };
}

/** Fetches and parses an XML reply, asserting the status and the XML content type. */
export async function getXml(
  get: (path: string, init?: RequestInit) => Promise<Response>,
  path: string,
  status = 200,
): Promise<XmlReply> {
  const res = await get(path);
  const body = await res.text();
  expect(res.status, `${path}: ${body}`).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
  return parseXml(body);
}

/** Undefined, one element or several, as an array. */
export function arr(x: Node): Node[] {
  if (x === undefined || x === null || x === "") return [];
  return Array.isArray(x) ? x : [x];
}

/** Text content of a leaf read with attributes kept. */
export function text(x: Node): string {
  if (x === undefined || x === null) return "";
  if (typeof x === "object") return String(x["#text"] ?? "");
  return String(x);
}

export const ENTITY_NS = (v: string) => `http://preservica.com/EntityAPI/v${v}`;
export const XIP_NS = (v: string) => `http://preservica.com/XIP/v${v}`;

/** The JSON error body every failure carries. */
export async function jsonError(res: Response): Promise<{ success: boolean; message: string }> {
  return (await res.json()) as { success: boolean; message: string };
}
