import { HTTPException } from "hono/http-exception";
import { parseXmlBody, type XmlNode } from "../http/xml-body.js";

/**
 * XML documents inside a package (OPEX manifests, XIP metadata), parsed with the same safe parser as
 * request bodies (no DOCTYPE, no entity expansion, namespaces resolved), with messages that name the
 * document inside the package instead of a request body.
 */

/** Stands in for the example a request body error offers; cut from the message (a package has no sender to tell). */
const EXAMPLE_MARKER = "@@example@@";

export function parsePackageXml(text: string, path: string): XmlNode | { problem: string } {
  try {
    return parseXmlBody(text, EXAMPLE_MARKER);
  } catch (err) {
    if (!(err instanceof HTTPException)) throw err;
    const message = err.message
      .replaceAll("The request body", path)
      .replaceAll(`; send XML such as ${EXAMPLE_MARKER}`, "")
      .replaceAll(EXAMPLE_MARKER, "a well-formed document");
    return { problem: message };
  }
}

/** Trimmed text of the first child element with this local name; undefined when absent or empty. */
export function fieldText(node: XmlNode, name: string): string | undefined {
  const c = node.children.find((n) => n.name === name);
  const t = c?.text.trim();
  return t === undefined || t === "" ? undefined : t;
}
