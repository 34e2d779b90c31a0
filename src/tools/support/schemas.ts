/**
 * Short names for metadata schemas. Fragments are identified by their schema's namespace URI, which is
 * long and unfriendly; a model asks for "oai_dc" or "accession". Well-known schemas get their usual
 * prefix, any other the last meaningful segment of its URI (version segments skipped).
 */

const KNOWN: Record<string, string> = {
  "http://www.openarchives.org/OAI/2.0/oai_dc/": "oai_dc",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://purl.org/dc/terms/": "dcterms",
  "http://www.loc.gov/mods/v3": "mods",
  "http://www.loc.gov/MARC21/slim": "marc21",
  "urn:isbn:1-931666-22-9": "ead",
  "http://ead3.archivists.org/schema/": "ead3",
  "http://www.loc.gov/standards/premis": "premis",
  "http://www.loc.gov/premis/v3": "premis",
  "http://www.openarchives.org/OAI/2.0/": "oai",
  "http://www.lido-schema.org": "lido",
};

const VERSION = /^(v?\d+([._-]\d+)*|latest|schema|ns|xsd)$/i;

export function schemaName(uri: string): string {
  const known = KNOWN[uri] ?? KNOWN[uri.replace(/\/$/, "")] ?? KNOWN[`${uri}/`];
  if (known) return known;
  const parts = uri
    .replace(/^[a-z]+:\/\/[^/]+/i, "")
    .replace(/^urn:/i, "")
    .split(/[/#:]+/)
    .map((p) => p.replace(/\.xsd$/i, ""))
    .filter((p) => p !== "" && !VERSION.test(p));
  return (parts.at(-1) ?? uri).toLowerCase();
}

/** Whether `wanted` (a short name or a URI) names `schemaUri`; trailing slashes and case ignored. */
export function schemaMatches(schemaUri: string, wanted: string): boolean {
  const norm = (s: string) => s.trim().replace(/\/+$/, "").toLowerCase();
  return norm(schemaUri) === norm(wanted) || schemaName(schemaUri) === wanted.trim().toLowerCase();
}

/**
 * What a person calls a family of schemas, by the short names of its members. "Dublin Core" or "DC" is what
 * people say, while the fragment's schema is usually oai_dc: the family is tried when no schema matches
 * exactly, so an exact name still picks one fragment out of several of the family.
 */
const FAMILIES: Record<string, readonly string[]> = {
  dc: ["oai_dc", "dc", "dcterms"],
  dublincore: ["oai_dc", "dc", "dcterms"],
  oaidc: ["oai_dc"],
};

/** Whether `wanted` names the family `schemaUri` belongs to ("Dublin Core", "DC" for oai_dc). */
export function schemaFamilyMatches(schemaUri: string, wanted: string): boolean {
  const key = wanted
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
  return FAMILIES[key]?.includes(schemaName(schemaUri)) ?? false;
}
