import { escapeXml } from "./files.js";

/** Descriptive metadata documents the seeds attach to entities as fragments. */

export const OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const DC_ELEMENTS = "http://purl.org/dc/elements/1.1/";
/** A local schema of the fictional archive, to show entities with more than one fragment. */
export const ACCESSION_SCHEMA = "http://harbourtown.example.org/schema/accession/v1";

export const LinkType = {
  IS_PART_OF: "http://purl.org/dc/terms/isPartOf",
  REFERENCES: "http://purl.org/dc/terms/references",
  IS_VERSION_OF: "http://purl.org/dc/terms/isVersionOf",
  IS_REFERENCED_BY: "http://purl.org/dc/terms/isReferencedBy",
} as const;
export type LinkType = (typeof LinkType)[keyof typeof LinkType];

/** Dublin Core elements, in the order they are written; repeatable ones take lists. */
export interface DublinCore {
  title: string;
  creator?: string[];
  subject?: string[];
  description?: string;
  publisher?: string;
  date?: string;
  type?: string;
  format?: string;
  identifier?: string[];
  language?: string;
  coverage?: string;
  rights?: string;
}

const DC_ORDER = [
  "title",
  "creator",
  "subject",
  "description",
  "publisher",
  "date",
  "type",
  "format",
  "identifier",
  "language",
  "coverage",
  "rights",
] as const;

/** The element values of a DublinCore record in document order, as `dcDocument` writes them. */
export function dcValues(dc: DublinCore): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const name of DC_ORDER) {
    const v = dc[name];
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) if (item) out.push({ name, value: item });
  }
  return out;
}

/** An `oai_dc:dc` document (the shape OAI-PMH and the real service use). */
export function dcDocument(dc: DublinCore): string {
  const lines: string[] = [];
  for (const name of DC_ORDER) {
    const v = dc[name];
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v])
      lines.push(`  <dc:${name}>${escapeXml(item)}</dc:${name}>`);
  }
  return [
    `<oai_dc:dc xmlns:oai_dc="${OAI_DC_SCHEMA}" xmlns:dc="${DC_ELEMENTS}">`,
    ...lines,
    "</oai_dc:dc>",
  ].join("\n");
}

export interface Accession {
  accessionNumber: string;
  dateReceived: string;
  depositor: string;
  extent: string;
  custodialHistory: string;
  accessConditions: string;
}

/** The archive's own accession record (its local schema, default namespace). */
export function accessionDocument(a: Accession): string {
  const fields = Object.entries(a).map(([k, v]) => `  <${k}>${escapeXml(v)}</${k}>`);
  return [`<accession xmlns="${ACCESSION_SCHEMA}">`, ...fields, "</accession>"].join("\n");
}

/** Same text the full-text index holds for a fragment (tags removed, white space collapsed). */
export function fragmentText(xml: string): string {
  return xml
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
