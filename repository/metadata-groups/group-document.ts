import { HTTPException } from "hono/http-exception";
import { parseXmlBody, standaloneXml, type XmlNode } from "../http/xml-body.js";
import { XmlWriter } from "../xml/writer.js";
import { elementNameOf, type GroupField, type MetadataGroup } from "./definition.js";

/**
 * A metadata group's XML document: root element = the group's element name in the group's namespace
 * (its schema URI), one child element per field (named by the field id), in the group's field order.
 * CSV edits build a new document, or merge values into the one an entity already has.
 */

/** Values a CSV row gives, by field id (only fields with a non-empty cell). */
export type FieldValues = ReadonlyMap<string, string>;

export type DocumentResult = { ok: true; xml: string; changed: string[] } | { ok: false; problem: string };

/** Why `value` does not fit `field`, or undefined when it does. */
export function valueProblem(field: GroupField, value: string): string | undefined {
  const what = `field "${field.id}" (${field.type})`;
  if (field.values && !field.values.includes(value)) {
    const allowed = field.values.map((v) => `"${v}"`).join(", ");
    return `"${value}" is not one of the values ${what} allows: ${allowed}`;
  }
  switch (field.type) {
    case "NUMBER":
      if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(value)) {
        return `"${value}" is not a number, which ${what} needs; write digits such as 42 or 3.5`;
      }
      return undefined;
    case "DATE":
      if (!isDate(value)) {
        return `"${value}" is not a date, which ${what} needs; write an ISO 8601 date such as 2024-01-31 (or 2024-01-31T12:00:00Z)`;
      }
      return undefined;
    case "STRING":
      if (field.maxLength !== undefined && [...value].length > field.maxLength) {
        return `The value of ${what} is ${[...value].length} characters long; it may have at most ${field.maxLength}`;
      }
      return undefined;
    default:
      return undefined;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 calendar date (or date-time) that exists: 2024-02-30 does not. */
function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d, h = "0", mi = "0", s = "0"] = m.slice(1).map((x) => x ?? "0") as string[];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  const sameDay =
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(mo) - 1 &&
    date.getUTCDate() === Number(d);
  return sameDay && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60;
}

/** The first problem among the given values, checked in the group's field order. */
function firstValueProblem(group: MetadataGroup, values: FieldValues): string | undefined {
  for (const f of group.fields) {
    const v = values.get(f.id);
    if (v === undefined) continue;
    const problem = valueProblem(f, v);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * A new document for an entity that has none of this group: the given values, plus the default value of
 * each required field (minOccurs ≥ 1) the row leaves empty. A required field with neither is a problem.
 */
export function newGroupDocument(group: MetadataGroup, values: FieldValues): DocumentResult {
  const problem = firstValueProblem(group, values);
  if (problem) return { ok: false, problem };
  const element = elementNameOf(group.schemaUri);
  const w = new XmlWriter(false).open(element, { xmlns: group.schemaUri });
  const written: string[] = [];
  for (const f of group.fields) {
    let v = values.get(f.id);
    if (v === undefined && f.minOccurs > 0) {
      if (f.defaultValue === "") {
        return {
          ok: false,
          problem: `Field "${f.id}" of group "${group.name}" is required (minOccurs ${f.minOccurs}) and has no default value; give it a value in this row`,
        };
      }
      v = f.defaultValue;
    }
    if (v === undefined) continue;
    w.leaf(f.id, v);
    written.push(f.id);
  }
  return { ok: true, xml: w.close(element).toString(), changed: written };
}

/**
 * The entity's existing document of this group with the given fields' values replaced (a field that
 * repeats keeps only the given value) and every other field, attribute and element kept as it was.
 * Fields the document lacks are inserted at their place in the group's field order.
 */
export function mergedGroupDocument(
  group: MetadataGroup,
  existing: string,
  values: FieldValues,
): DocumentResult {
  const problem = firstValueProblem(group, values);
  if (problem) return { ok: false, problem };
  const ns = group.schemaUri;
  const element = elementNameOf(ns);
  let root: XmlNode;
  try {
    root = parseXmlBody(existing, "");
  } catch (err) {
    if (!(err instanceof HTTPException)) throw err;
    return {
      ok: false,
      problem: `The entity's existing ${ns} document is not well-formed XML, so it cannot be updated; replace or delete it through the metadata API first`,
    };
  }
  if (root.ns !== ns || root.name !== element) {
    return {
      ok: false,
      problem: `The entity's existing ${ns} document has the root element {${root.ns}}${root.name}, not {${ns}}${element}; replace or delete it through the metadata API first`,
    };
  }
  const order = new Map(group.fields.map((f, i) => [f.id, i]));
  const changed: string[] = [];
  for (const f of group.fields) {
    const v = values.get(f.id);
    if (v === undefined) continue;
    const present = root.children.filter((c) => c.ns === ns && c.name === f.id);
    const [first, ...rest] = present;
    if (first) {
      if (rest.length === 0 && first.children.length === 0 && first.text === v) continue; // already so
      setText(first, v);
      for (const extra of rest) removeChild(root, extra);
    } else {
      insertChild(root, fieldElement(root, ns, f.id, v), order);
    }
    changed.push(f.id);
  }
  return { ok: true, xml: standaloneXml(root), changed };
}

function setText(node: XmlNode, value: string): void {
  node.children = [];
  node.text = value;
  node.content = [{ text: value }];
}

function removeChild(parent: XmlNode, node: XmlNode): void {
  parent.children = parent.children.filter((c) => c !== node);
  parent.content = parent.content.filter((c) => c !== node);
}

/** A field element written with the prefix the document already uses for the group's namespace. */
function fieldElement(root: XmlNode, ns: string, id: string, value: string): XmlNode {
  const rootPrefix = root.qname.includes(":") ? root.qname.slice(0, root.qname.indexOf(":")) : "";
  let prefix: string | undefined = root.scope.get(rootPrefix) === ns ? rootPrefix : undefined;
  if (prefix === undefined) {
    for (const [p, uri] of root.scope) {
      if (uri === ns) {
        prefix = p;
        break;
      }
    }
  }
  const declarations: Record<string, string> = prefix === undefined ? { xmlns: ns } : {};
  return {
    ns,
    name: id,
    qname: prefix ? `${prefix}:${id}` : id,
    attrs: {},
    children: [],
    text: value,
    scope: root.scope,
    declarations,
    content: [{ text: value }],
  };
}

/** Inserts before the first field element that comes later in the group's order, else after the last element. */
function insertChild(root: XmlNode, node: XmlNode, order: ReadonlyMap<string, number>): void {
  const mine = order.get(node.name) ?? Number.MAX_SAFE_INTEGER;
  let at = -1;
  let afterLastElement = root.content.length;
  for (let i = 0; i < root.content.length; i++) {
    const part = root.content[i];
    if (!part || !("qname" in part)) continue;
    afterLastElement = i + 1;
    const theirs = part.ns === node.ns ? order.get(part.name) : undefined;
    if (at === -1 && theirs !== undefined && theirs > mine) at = i;
  }
  if (at === -1) at = afterLastElement;
  root.content.splice(at, 0, node);
  root.children.push(node);
}
