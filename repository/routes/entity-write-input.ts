import { HTTPException } from "hono/http-exception";
import { isUuid } from "../http/params.js";
import { child, childText, type XmlNode } from "../http/xml-body.js";

/**
 * Reading the XIP documents clients send to the Entity API's basic writes. Elements are matched by
 * local name; the root must be in an XIP namespace of any version (`…/XIP/v6.0` from packages and old
 * clients, `…/XIP/v7.7` from current ones), whatever prefix the sender chose.
 */

export const XIP_NAMESPACE_PREFIX = "http://preservica.com/XIP/";

export function isXipNamespace(ns: string): boolean {
  return ns.startsWith(XIP_NAMESPACE_PREFIX);
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/** Sent text as a message shows it: at most 100 characters (junk may be megabytes long). */
function clip(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

function describeElement(node: XmlNode): string {
  return node.ns ? `<${node.name}> in namespace "${node.ns}"` : `<${node.name}> in no namespace`;
}

/** 400 unless `node` is `{XIP}expected`; the message names what was sent and what is expected. */
export function requireXipElement(node: XmlNode, expected: string, example: string): void {
  if (node.name === expected && isXipNamespace(node.ns)) return;
  throw badRequest(
    `The request body's root element is ${describeElement(node)}; expected <${expected}> in an XIP namespace (${XIP_NAMESPACE_PREFIX}vX.Y). Send XML such as ${example}`,
  );
}

/**
 * The XIP object element of a request: the root itself (`<StructuralObject xmlns=XIP>`), or the single
 * such element inside an `<XIP>` wrapper, as packages and the physical-asset request carry it.
 */
export function xipObject(root: XmlNode, expected: string, example: string): XmlNode {
  if (root.name === "XIP" && isXipNamespace(root.ns)) {
    const found = root.children.filter((c) => c.name === expected);
    if (found.length !== 1) {
      throw badRequest(
        `The <XIP> document must hold exactly one <${expected}> (it has ${found.length}); send XML such as ${example}`,
      );
    }
    return found[0] as XmlNode;
  }
  requireXipElement(root, expected, example);
  return root;
}

/** Trimmed text of a child element: undefined when the element is absent, "" when it is empty. */
export function fieldText(node: XmlNode, name: string): string | undefined {
  return childText(node, name);
}

/** The trimmed text of a child that must be present and not empty. */
export function requiredField(node: XmlNode, name: string, example: string): string {
  const text = fieldText(node, name);
  if (!text) {
    throw badRequest(
      `<${name}> is ${text === undefined ? "missing" : "empty"} in <${node.name}>; give it a value, as in ${example}`,
    );
  }
  return text;
}

/** A child holding an entity reference: undefined when absent or empty, lower-cased, 400 when no UUID. */
export function refField(node: XmlNode, name: string): string | undefined {
  const text = fieldText(node, name);
  if (!text) return undefined;
  if (!isUuid(text)) {
    throw badRequest(
      `<${name}> "${clip(text)}" is not an entity reference; references are UUIDs such as 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f`,
    );
  }
  return text.toLowerCase();
}

/** An optional text field: undefined when absent (leave it as it is), null when empty (clear it). */
export function clearableField(node: XmlNode, name: string): string | null | undefined {
  const text = fieldText(node, name);
  if (text === undefined) return undefined;
  return text === "" ? null : text;
}

/** 400 when the body names another entity than the one in the request path. */
export function requireSameEntity(node: XmlNode, name: string, pathRef: string): void {
  const named = refField(node, name);
  if (named !== undefined && named !== pathRef) {
    throw badRequest(
      `<${name}> ${named} differs from the entity in the request path (${pathRef}); send the request to that entity's URL or correct <${name}>`,
    );
  }
}

/** The child element `name`, or a 400 saying it is missing. */
export function requiredChild(node: XmlNode, name: string, example: string): XmlNode {
  const c = child(node, name);
  if (!c) throw badRequest(`<${node.name}> has no <${name}>; send XML such as ${example}`);
  return c;
}

/** An identifier's or link's ApiId from the path (`list` names the listing that gives them): 400 unless it looks like one. */
export function requireApiId(raw: string | undefined, what: string, list: string): string {
  if (!raw || !/^[A-Za-z0-9._-]{1,100}$/.test(raw)) {
    throw badRequest(
      `${what} "${clip(raw ?? "")}" is not an ApiId; take the ApiId from the entity's ${list}`,
    );
  }
  return raw;
}
