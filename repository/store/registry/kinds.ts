/**
 * The kinds of item the preservation registry (PAR API) holds: the path segment that names each, the key
 * its list answers under (as the real registry and pyPreservica use them), the fields the PAR schema
 * requires of it, and the field that names it when the sender gives no `id.name`.
 */

export interface RegistryKind {
  /** Path segment: /Registry/par/{path}. */
  path: string;
  /** Key of the list reply: `{formatFamilies: [...]}`. */
  listKey: string;
  /** One item, for messages. */
  label: string;
  /** Top-level fields a document must have besides `id` (PAR schema 1.2). */
  required: readonly string[];
  /** Field whose text names the item when `id.name` is absent. */
  nameFrom?: string;
  /** Namespace of a new item's identifier when the sender gives none. */
  defaultNamespace: string;
}

export const PRESERVICA_NS = "http://par.preservica.com";
export const PRONOM_NS = "http://www.nationalarchives.gov.uk";

export const REGISTRY_KINDS: readonly RegistryKind[] = [
  {
    path: "format-families",
    listKey: "formatFamilies",
    label: "format family",
    required: [],
    nameFrom: "familyType",
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "file-formats",
    listKey: "fileFormats",
    label: "file format",
    required: [],
    defaultNamespace: PRONOM_NS,
  },
  {
    path: "preservation-action-types",
    listKey: "preservationActionTypes",
    label: "preservation action type",
    required: ["label"],
    nameFrom: "label",
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "properties",
    listKey: "parProperties",
    label: "property",
    required: ["class", "type"],
    nameFrom: "class",
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "representation-formats",
    listKey: "representationFormats",
    label: "representation format",
    required: ["name", "representationFormatSignature"],
    nameFrom: "name",
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "tools",
    listKey: "tools",
    label: "tool",
    required: ["toolName"],
    nameFrom: "toolName",
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "preservation-actions",
    listKey: "preservationActions",
    label: "preservation action",
    required: ["description", "type", "tool"],
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "business-rules",
    listKey: "businessRules",
    label: "business rule",
    required: [],
    defaultNamespace: PRESERVICA_NS,
  },
  {
    path: "rulesets",
    listKey: "ruleSets",
    label: "rule set",
    required: ["rules"],
    nameFrom: "name",
    defaultNamespace: PRESERVICA_NS,
  },
];

export function registryKind(path: string): RegistryKind | undefined {
  return REGISTRY_KINDS.find((k) => k.path === path);
}

/** A PRONOM-style format identifier: fmt/40, x-fmt/111, or a registry's own prefix (TSS-fmt/4). */
export const PUID = /^[A-Za-z][A-Za-z0-9-]{0,20}\/\d{1,6}$/;
