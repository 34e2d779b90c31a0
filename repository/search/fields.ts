import { newestVersion } from "../xml/versions.js";
import { DC_ELEMENTS, type DcElement, OAI_DC_SCHEMA } from "./dublin-core.js";

/**
 * The one list of fields the Content API indexes. `GET /api/content/indexed-fields` renders it, and the
 * search uses it to resolve every field named in `fields` (filters), `sort`, `facets` and `metadata`.
 *
 * | field                    | holds                                                        | filter | sort | facet |
 * |--------------------------|--------------------------------------------------------------|--------|------|-------|
 * | xip.reference            | the entity's ref (UUID)                                      | yes    | yes  |       |
 * | xip.title                | title                                                        | yes    | yes  |       |
 * | xip.description          | description                                                  | yes    | yes  |       |
 * | xip.document_type        | SO, IO or CO                                                 | yes    | yes  | yes   |
 * | xip.parent_ref           | ref of the parent folder ("" at the root)                    | yes    | yes  | yes   |
 * | xip.security_descriptor  | security tag                                                 | yes    | yes  | yes   |
 * | xip.created              | creation time, ISO 8601                                      | range  | yes  | year  |
 * | xip.top_level_so         | ref of the top-level folder above (itself for a top folder)  | yes    |      |       |
 * | xip.parent_hierarchy     | refs of every folder above (multi-valued): a folder's subtree | yes    |      |       |
 * | xip.identifier           | external identifiers, each "type value" (multi-valued)       | yes    | yes  | yes   |
 * | xip.format_group         | format groups of the asset's files (multi-valued)            | yes    |      | yes   |
 * | xip.full_text            | text of the asset's first text/* file, up to 100,000 chars   |        |      |       |
 * | oai_dc.<element>         | the 15 Dublin Core elements from the metadata (multi-valued) | yes    | yes  | yes   |
 *
 * Filter values match whole values, case-insensitively; `%` or `*` is a wildcard (`Annual%`).
 * xip.identifier matches either the whole "type value" or the value alone. xip.created takes a range
 * `[FROM TO UNTIL]` (Solr syntax; dates or timestamps, `*` for an open end, both ends inclusive and a
 * bare date as UNTIL covering that whole day) or a prefix such as `2021%`.
 */

export type FieldSource =
  | {
      kind: "column";
      column: "ref" | "title" | "description" | "type" | "parent_ref" | "security_tag" | "created";
    }
  | { kind: "top_level_so" }
  | { kind: "parent_hierarchy" }
  | { kind: "identifier" }
  | { kind: "format_group" }
  | { kind: "full_text" }
  | { kind: "dc"; element: DcElement };

export interface FieldDef {
  shortName: "xip" | "oai_dc";
  index: string;
  /** `shortName.index`, the name used on the wire. */
  key: string;
  displayName: string;
  type: string;
  multiValued: boolean;
  filterable: boolean;
  sortable: boolean;
  facetable: boolean;
  source: FieldSource;
}

function xip(
  index: string,
  displayName: string,
  type: string,
  source: FieldSource,
  caps: { filter?: boolean; sort?: boolean; facet?: boolean; multi?: boolean },
): FieldDef {
  return {
    shortName: "xip",
    index,
    key: `xip.${index}`,
    displayName,
    type,
    multiValued: caps.multi ?? false,
    filterable: caps.filter ?? false,
    sortable: caps.sort ?? false,
    facetable: caps.facet ?? false,
    source,
  };
}

const XIP_FIELDS: FieldDef[] = [
  xip(
    "reference",
    "Reference",
    "SINGLE_VALUED_STRING",
    { kind: "column", column: "ref" },
    { filter: true, sort: true },
  ),
  xip(
    "title",
    "Title",
    "SINGLE_VALUED_TEXT",
    { kind: "column", column: "title" },
    { filter: true, sort: true },
  ),
  xip(
    "description",
    "Description",
    "SINGLE_VALUED_TEXT",
    { kind: "column", column: "description" },
    { filter: true, sort: true },
  ),
  xip(
    "document_type",
    "Entity Type",
    "SINGLE_VALUED_STRING",
    { kind: "column", column: "type" },
    { filter: true, sort: true, facet: true },
  ),
  xip(
    "parent_ref",
    "Parent Reference",
    "SINGLE_VALUED_STRING",
    { kind: "column", column: "parent_ref" },
    { filter: true, sort: true, facet: true },
  ),
  xip(
    "security_descriptor",
    "Security Tag",
    "SINGLE_VALUED_STRING",
    { kind: "column", column: "security_tag" },
    { filter: true, sort: true, facet: true },
  ),
  xip(
    "created",
    "Created Date",
    "SINGLE_VALUED_DATE",
    { kind: "column", column: "created" },
    { filter: true, sort: true, facet: true },
  ),
  xip("top_level_so", "Top Level Folder", "SINGLE_VALUED_STRING", { kind: "top_level_so" }, { filter: true }),
  // pyPreservica's searches within a folder filter on it (search_index_filter_list with xip.parent_hierarchy).
  xip(
    "parent_hierarchy",
    "Parent Hierarchy",
    "MULTI_VALUED_STRING",
    { kind: "parent_hierarchy" },
    { filter: true, multi: true },
  ),
  xip(
    "identifier",
    "Identifier",
    "MULTI_VALUED_STRING",
    { kind: "identifier" },
    { filter: true, sort: true, facet: true, multi: true },
  ),
  xip(
    "format_group",
    "Format Group",
    "MULTI_VALUED_STRING",
    { kind: "format_group" },
    { filter: true, facet: true, multi: true },
  ),
  xip("full_text", "Full Text", "SINGLE_VALUED_TEXT", { kind: "full_text" }, {}),
];

const DC_FIELDS: FieldDef[] = DC_ELEMENTS.map((element) => ({
  shortName: "oai_dc" as const,
  index: element,
  key: `oai_dc.${element}`,
  displayName: `Dublin Core ${element[0]?.toUpperCase()}${element.slice(1)}`,
  type: element === "date" ? "MULTI_VALUED_DATE" : "MULTI_VALUED_STRING",
  multiValued: true,
  filterable: true,
  sortable: true,
  facetable: true,
  source: { kind: "dc", element },
}));

export const INDEXED_FIELDS: readonly FieldDef[] = [...XIP_FIELDS, ...DC_FIELDS];

const BY_KEY = new Map(INDEXED_FIELDS.map((f) => [f.key.toLowerCase(), f]));

/** The field named `name` (case-insensitive), or undefined when it is not indexed. */
export function findField(name: string): FieldDef | undefined {
  return BY_KEY.get(name.trim().toLowerCase());
}

/** The `indexed-fields` entries; the XIP fields carry the XIP namespace the Entity API answers in. */
export function indexedFieldsView(apiVersion: string) {
  const xipNs = newestVersion(apiVersion).xipNs;
  return INDEXED_FIELDS.map((f) => ({
    shortName: f.shortName,
    uri: f.shortName === "xip" ? xipNs : OAI_DC_SCHEMA,
    index: f.index,
    shortKey: f.key,
    displayName: f.displayName,
    type: f.type,
    facetable: f.facetable,
  }));
}
