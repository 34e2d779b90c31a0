import type { Db } from "../db.js";
import { nameGuid } from "../registry/ids.js";
import type { Migration } from "./index.js";

/**
 * Schema 6: the preservation registry (PAR API) and authority records (reference metadata).
 *
 * Registry items are PAR JSON documents kept whole (`document`), keyed by kind and GUID, with the
 * identifier's name (a PUID for file formats) and namespace pulled out for lookups. Every store starts
 * with the registry content the service itself relies on: the file formats its format identification
 * (repository/formats.ts) can answer, their families, the preservation action types, the identification
 * tool and action, one business rule and the default rule set. The list is written out here, not
 * imported, because a released migration must insert the same rows forever.
 *
 * Authority tables hold records of field values (a table of places, of people), each record with a
 * security tag.
 */

const PRESERVICA_NS = "http://par.preservica.com";
const PRONOM_NS = "http://www.nationalarchives.gov.uk";
/** When the built-in content was written; its localLastModifiedDate. */
const BUILT_IN_DATE = "2024-01-01T00:00:00.000Z";

interface BuiltInFormat {
  puid: string;
  name: string;
  version: string | null;
  mimeType: string;
  extensions: string[];
  family: string;
}

/** Every PUID repository/formats.ts can answer (the test in test/repository/registry checks it). */
const FORMATS: BuiltInFormat[] = [
  {
    puid: "x-fmt/111",
    name: "Plain Text File",
    version: null,
    mimeType: "text/plain",
    extensions: ["txt"],
    family: "text",
  },
  {
    puid: "x-fmt/18",
    name: "Comma Separated Values",
    version: null,
    mimeType: "text/csv",
    extensions: ["csv"],
    family: "spreadsheet",
  },
  {
    puid: "fmt/101",
    name: "Extensible Markup Language",
    version: "1.0",
    mimeType: "application/xml",
    extensions: ["xml"],
    family: "text",
  },
  {
    puid: "fmt/817",
    name: "JSON Data Interchange Format",
    version: null,
    mimeType: "application/json",
    extensions: ["json"],
    family: "text",
  },
  {
    puid: "fmt/14",
    name: "Acrobat PDF 1.0 - Portable Document Format",
    version: "1.0",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/15",
    name: "Acrobat PDF 1.1 - Portable Document Format",
    version: "1.1",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/16",
    name: "Acrobat PDF 1.2 - Portable Document Format",
    version: "1.2",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/17",
    name: "Acrobat PDF 1.3 - Portable Document Format",
    version: "1.3",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/18",
    name: "Acrobat PDF 1.4 - Portable Document Format",
    version: "1.4",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/19",
    name: "Acrobat PDF 1.5 - Portable Document Format",
    version: "1.5",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/20",
    name: "Acrobat PDF 1.6 - Portable Document Format",
    version: "1.6",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/276",
    name: "Acrobat PDF 1.7 - Portable Document Format",
    version: "1.7",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/1129",
    name: "Acrobat PDF 2.0 - Portable Document Format",
    version: "2.0",
    mimeType: "application/pdf",
    extensions: ["pdf"],
    family: "document",
  },
  {
    puid: "fmt/11",
    name: "Portable Network Graphics",
    version: "1.0",
    mimeType: "image/png",
    extensions: ["png"],
    family: "image",
  },
  {
    puid: "fmt/41",
    name: "Raw JPEG Stream",
    version: null,
    mimeType: "image/jpeg",
    extensions: ["jpg", "jpeg"],
    family: "image",
  },
  {
    puid: "fmt/42",
    name: "JPEG File Interchange Format",
    version: "1.00",
    mimeType: "image/jpeg",
    extensions: ["jpg", "jpeg"],
    family: "image",
  },
  {
    puid: "fmt/43",
    name: "JPEG File Interchange Format",
    version: "1.01",
    mimeType: "image/jpeg",
    extensions: ["jpg", "jpeg"],
    family: "image",
  },
  {
    puid: "fmt/44",
    name: "JPEG File Interchange Format",
    version: "1.02",
    mimeType: "image/jpeg",
    extensions: ["jpg", "jpeg"],
    family: "image",
  },
  {
    puid: "fmt/353",
    name: "Tagged Image File Format",
    version: null,
    mimeType: "image/tiff",
    extensions: ["tif", "tiff"],
    family: "image",
  },
  {
    puid: "fmt/3",
    name: "Graphics Interchange Format",
    version: "87a",
    mimeType: "image/gif",
    extensions: ["gif"],
    family: "image",
  },
  {
    puid: "fmt/4",
    name: "Graphics Interchange Format",
    version: "89a",
    mimeType: "image/gif",
    extensions: ["gif"],
    family: "image",
  },
  {
    puid: "fmt/6",
    name: "Waveform Audio",
    version: null,
    mimeType: "audio/x-wav",
    extensions: ["wav"],
    family: "audio",
  },
  {
    puid: "fmt/141",
    name: "Waveform Audio (PCMWAVEFORMAT)",
    version: null,
    mimeType: "audio/x-wav",
    extensions: ["wav"],
    family: "audio",
  },
  {
    puid: "fmt/142",
    name: "Waveform Audio (WAVEFORMATEX)",
    version: null,
    mimeType: "audio/x-wav",
    extensions: ["wav"],
    family: "audio",
  },
  {
    puid: "fmt/143",
    name: "Waveform Audio (WAVEFORMATEXTENSIBLE)",
    version: null,
    mimeType: "audio/x-wav",
    extensions: ["wav"],
    family: "audio",
  },
  {
    puid: "x-fmt/263",
    name: "ZIP Format",
    version: null,
    mimeType: "application/zip",
    extensions: ["zip"],
    family: "archive",
  },
];

const FAMILIES: { name: string; familyType: string; description: string }[] = [
  { name: "text", familyType: "Text File Formats", description: "Plain and structured text" },
  { name: "document", familyType: "Document File Formats", description: "Page-based documents" },
  { name: "spreadsheet", familyType: "Spreadsheet File Formats", description: "Tabular data" },
  { name: "image", familyType: "Image File Formats", description: "Raster images" },
  { name: "audio", familyType: "Audio File Formats", description: "Sound recordings" },
  { name: "archive", familyType: "Archive File Formats", description: "Containers of other files" },
];

const ACTION_TYPES = ["Identification", "Characterisation", "Validation", "Migration"];

const IDENTIFICATION_TOOL = "signature-identification";
const IDENTIFICATION_ACTION = "identify-by-signature";
const IDENTIFICATION_RULE = "identify-known-formats";
const DEFAULT_RULE_SET = "default";

type Kind =
  | "format-families"
  | "file-formats"
  | "preservation-action-types"
  | "tools"
  | "preservation-actions"
  | "business-rules"
  | "rulesets";

function parId(kind: Kind, name: string, namespace = PRESERVICA_NS) {
  return { guid: nameGuid(kind, name), name, namespace };
}

function insertItem(db: Db, kind: Kind, id: { guid: string; name: string; namespace: string }, body: object) {
  const document = { id, ...body, localLastModifiedDate: BUILT_IN_DATE };
  db.prepare(
    `INSERT INTO registry_items (kind, guid, name, namespace, document, built_in, modified)
     VALUES (?, ?, ?, ?, ?, 1, ?)`,
  ).run(kind, id.guid, id.name, id.namespace, JSON.stringify(document), BUILT_IN_DATE);
}

function insertBuiltIns(db: Db): void {
  const formatId = (puid: string) => parId("file-formats", puid, PRONOM_NS);
  for (const f of FORMATS) {
    insertItem(db, "file-formats", formatId(f.puid), {
      name: f.name,
      ...(f.version ? { version: f.version } : {}),
      description: `${f.name}${f.version ? ` version ${f.version}` : ""}, identified by the repository service`,
      types: [f.mimeType],
      aliases: f.extensions.map((e) => `.${e}`),
      families: [parId("format-families", f.family)],
    });
  }
  for (const fam of FAMILIES) {
    insertItem(db, "format-families", parId("format-families", fam.name), {
      familyType: fam.familyType,
      description: fam.description,
      fileFormats: FORMATS.filter((f) => f.family === fam.name).map((f) => formatId(f.puid)),
    });
  }
  for (const label of ACTION_TYPES) {
    insertItem(db, "preservation-action-types", parId("preservation-action-types", label.toLowerCase()), {
      label,
    });
  }
  insertItem(db, "tools", parId("tools", IDENTIFICATION_TOOL), {
    toolName: "Repository format identification",
    toolLabel: "Signature and extension identification",
    toolVersion: "1.0",
    toolPublisher: "preservation-mcp",
    toolOperatingEnvironments: ["Node.js"],
  });
  insertItem(db, "preservation-actions", parId("preservation-actions", IDENTIFICATION_ACTION), {
    description: "Identify a file's format from its first bytes, then from its file name's extension",
    type: { id: parId("preservation-action-types", "identification"), label: "Identification" },
    tool: parId("tools", IDENTIFICATION_TOOL),
  });
  const rule = parId("business-rules", IDENTIFICATION_RULE);
  insertItem(db, "business-rules", rule, {
    notes: "Every file is identified by signature and extension when it is ingested or its content replaced",
    formatFamilies: FAMILIES.map((fam) => parId("format-families", fam.name)),
    preservationActionTypes: [
      { id: parId("preservation-action-types", "identification"), label: "Identification" },
    ],
    preservationActions: [
      { preservationAction: parId("preservation-actions", IDENTIFICATION_ACTION), priority: 1 },
    ],
  });
  insertItem(db, "rulesets", parId("rulesets", DEFAULT_RULE_SET), {
    name: "Default",
    description: "The registry's built-in rules: every known format is identified on ingest",
    rules: FORMATS.map((f) => ({ format: formatId(f.puid), businessRule: rule })),
  });
}

export const registry: Migration = {
  version: 6,
  name: "registry",
  up(db) {
    db.exec(`
      CREATE TABLE registry_items (
        kind TEXT NOT NULL,
        guid TEXT NOT NULL,
        name TEXT NOT NULL,
        namespace TEXT NOT NULL,
        document TEXT NOT NULL,
        built_in INTEGER NOT NULL DEFAULT 0,
        modified TEXT NOT NULL,
        PRIMARY KEY (kind, guid)
      );
      CREATE INDEX registry_items_name ON registry_items (kind, name);

      CREATE TABLE authority_tables (
        ref TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT,
        security_tag TEXT NOT NULL,
        display_field TEXT,
        metadata_connections TEXT,
        fields TEXT,
        created TEXT NOT NULL
      );
      CREATE TABLE authority_records (
        id INTEGER PRIMARY KEY,
        ref TEXT NOT NULL UNIQUE,
        table_ref TEXT NOT NULL REFERENCES authority_tables (ref),
        security_tag TEXT NOT NULL,
        field_values TEXT NOT NULL,
        created TEXT NOT NULL
      );
      CREATE INDEX authority_records_table ON authority_records (table_ref, id);
    `);
    insertBuiltIns(db);
  },
};
