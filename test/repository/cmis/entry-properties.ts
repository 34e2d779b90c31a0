import { arr, type Node, text } from "../entity-xml.js";

/** The properties of a CMIS Atom entry as property id → first value. */
export function props(entry: Node): Record<string, string> {
  const out: Record<string, string> = {};
  const p = entry.object.properties;
  for (const kind of Object.keys(p)) {
    if (kind.startsWith("@")) continue;
    for (const el of arr(p[kind])) out[el["@propertyDefinitionId"]] = text(arr(el.value)[0]);
  }
  return out;
}
