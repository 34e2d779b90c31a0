import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import type { BuiltInXml, XmlKind } from "./built-ins.js";

/**
 * Reads of the system configuration (migration 10): named settings, system properties, and the XML
 * schemas, documents and transforms of the Admin API.
 */

/** Names of the settings kept in `system_settings`, one JSON document each. */
export const SETTING = {
  AUTH: "auth.configuration",
  THUMBNAILS: "thumbnail.policy",
  CMIS: "cmis.transform",
} as const;
export type SettingName = (typeof SETTING)[keyof typeof SETTING];

export interface StoredSetting {
  value: Record<string, unknown>;
  modified: string;
  modifiedBy: string;
}

export function storedSetting(db: Db, name: SettingName): StoredSetting | undefined {
  const row = prepared(db, "SELECT value, modified, modified_by FROM system_settings WHERE name = ?").get(
    name,
  ) as { value: string; modified: string; modified_by: string } | undefined;
  if (!row) return undefined;
  return {
    value: JSON.parse(row.value) as Record<string, unknown>,
    modified: row.modified,
    modifiedBy: row.modified_by,
  };
}

/** The authentication configuration (the Authentication Management API's AuthConfigProxy). */
export interface AuthConfiguration {
  maxSessionLifetimeMins: number;
}

/** The configured session lifetime; `fallback` (the start-up option) until an administrator sets one. */
export function authConfiguration(db: Db, fallbackMins: number): AuthConfiguration {
  const stored = storedSetting(db, SETTING.AUTH)?.value.maxSessionLifetimeMins;
  return { maxSessionLifetimeMins: typeof stored === "number" ? stored : fallbackMins };
}

/** How the service shows thumbnails: whether at all, and the largest size generated. */
export interface ThumbnailPolicy {
  enabled: boolean;
  /** Images themselves stand in as thumbnails when an asset has no custom preview. */
  useImageContent: boolean;
  maxWidth: number;
  maxHeight: number;
}

export const DEFAULT_THUMBNAIL_POLICY: ThumbnailPolicy = {
  enabled: true,
  useImageContent: true,
  maxWidth: 256,
  maxHeight: 256,
};

export function thumbnailPolicy(db: Db): ThumbnailPolicy {
  return {
    ...DEFAULT_THUMBNAIL_POLICY,
    ...(storedSetting(db, SETTING.THUMBNAILS)?.value as Partial<ThumbnailPolicy>),
  };
}

/**
 * The CMIS transform's choice of the metadata fields that give an object's Title and Description in the
 * Content API's object details (and CMIS): `xip.title` / `xip.description` (the entity's own), a Dublin
 * Core element `oai_dc.<element>`, or any element of a metadata schema in Clark notation
 * `{namespace}localName`. An entity without a value in the chosen field shows its own.
 */
export interface CmisFields {
  titleField: string;
  descriptionField: string;
}

export const DEFAULT_CMIS_FIELDS: CmisFields = {
  titleField: "xip.title",
  descriptionField: "xip.description",
};

export function cmisFields(db: Db): CmisFields {
  return { ...DEFAULT_CMIS_FIELDS, ...(storedSetting(db, SETTING.CMIS)?.value as Partial<CmisFields>) };
}

export interface SystemProperty {
  name: string;
  value: string;
  description: string;
  builtIn: boolean;
  modified: string;
  modifiedBy: string;
}

interface PropertyRow {
  name: string;
  value: string;
  description: string;
  built_in: number;
  modified: string;
  modified_by: string;
}

function propertyOf(r: PropertyRow): SystemProperty {
  return {
    name: r.name,
    value: r.value,
    description: r.description,
    builtIn: r.built_in === 1,
    modified: r.modified,
    modifiedBy: r.modified_by,
  };
}

export function systemProperties(db: Db): SystemProperty[] {
  return (prepared(db, "SELECT * FROM system_properties ORDER BY name").all() as PropertyRow[]).map(
    propertyOf,
  );
}

export function systemProperty(db: Db, name: string): SystemProperty | undefined {
  const row = prepared(db, "SELECT * FROM system_properties WHERE name = ?").get(name) as
    | PropertyRow
    | undefined;
  return row ? propertyOf(row) : undefined;
}

/** A schema, document or transform of the Admin API (content read separately: it can be large). */
export interface AdminXml extends Omit<BuiltInXml, "content"> {
  builtIn: boolean;
  created: string;
  createdBy: string;
}

interface AdminXmlRow {
  api_id: string;
  kind: XmlKind;
  name: string;
  description: string | null;
  original_name: string | null;
  document_type: string | null;
  schema_uri: string | null;
  from_uri: string | null;
  to_uri: string | null;
  purpose: string | null;
  built_in: number;
  created: string;
  created_by: string;
}

const XML_COLUMNS =
  "api_id, kind, name, description, original_name, document_type, schema_uri, from_uri, to_uri, purpose, built_in, created, created_by";

function adminXmlOf(r: AdminXmlRow): AdminXml {
  return {
    apiId: r.api_id,
    kind: r.kind,
    name: r.name,
    description: r.description,
    originalName: r.original_name,
    documentType: r.document_type,
    schemaUri: r.schema_uri,
    fromUri: r.from_uri,
    toUri: r.to_uri,
    purpose: r.purpose,
    builtIn: r.built_in === 1,
    created: r.created,
    createdBy: r.created_by,
  };
}

export function adminXmlList(db: Db, kind: XmlKind): AdminXml[] {
  const rows = prepared(db, `SELECT ${XML_COLUMNS} FROM admin_xml WHERE kind = ? ORDER BY name, api_id`).all(
    kind,
  ) as AdminXmlRow[];
  return rows.map(adminXmlOf);
}

export function adminXml(db: Db, kind: XmlKind, apiId: string): AdminXml | undefined {
  const row = prepared(db, `SELECT ${XML_COLUMNS} FROM admin_xml WHERE kind = ? AND api_id = ?`).get(
    kind,
    apiId,
  ) as AdminXmlRow | undefined;
  return row ? adminXmlOf(row) : undefined;
}

export function adminXmlContent(db: Db, kind: XmlKind, apiId: string): string | undefined {
  const row = prepared(db, "SELECT content FROM admin_xml WHERE kind = ? AND api_id = ?").get(kind, apiId) as
    | { content: string }
    | undefined;
  return row?.content;
}
