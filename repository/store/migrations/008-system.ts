import { BUILT_IN_PROPERTIES, BUILT_IN_XML } from "../system/built-ins.js";
import type { Migration } from "./index.js";

/**
 * Schema 8: system configuration of the Administration and Management API and the Authentication
 * Management API.
 * - `system_settings`: one JSON document per named setting (the authentication configuration, the
 *   thumbnail policy, the CMIS transform's Title/Description fields). A setting without a row has its
 *   default (the authentication configuration's default comes from the service's start-up options).
 * - `system_properties`: named string properties (admin only); built-in ones can be changed, not deleted.
 * - `admin_xml`: the XML schemas, documents and transforms of `/api/admin/{schemas,documents,transforms}`,
 *   with the built-in ones the service ships (restored by `/api/admin/notify-updates` if deleted).
 */
export const system: Migration = {
  version: 8,
  name: "system",
  up(db) {
    db.exec(`
      CREATE TABLE system_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        modified TEXT NOT NULL,
        modified_by TEXT NOT NULL
      );
      CREATE TABLE system_properties (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        built_in INTEGER NOT NULL DEFAULT 0,
        modified TEXT NOT NULL,
        modified_by TEXT NOT NULL
      );
      CREATE TABLE admin_xml (
        api_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('schema', 'document', 'transform')),
        name TEXT NOT NULL,
        description TEXT,
        original_name TEXT,
        document_type TEXT,
        schema_uri TEXT,
        from_uri TEXT,
        to_uri TEXT,
        purpose TEXT,
        content TEXT NOT NULL,
        built_in INTEGER NOT NULL DEFAULT 0,
        created TEXT NOT NULL,
        created_by TEXT NOT NULL
      );
      CREATE INDEX admin_xml_kind ON admin_xml (kind, name);
    `);
    const at = "2024-01-01T00:00:00.000Z";
    const prop = db.prepare(
      "INSERT INTO system_properties (name, value, description, built_in, modified, modified_by) VALUES (?, ?, ?, 1, ?, 'system')",
    );
    for (const p of BUILT_IN_PROPERTIES) prop.run(p.name, p.value, p.description, at);
    const xml = db.prepare(
      `INSERT INTO admin_xml (api_id, kind, name, description, original_name, document_type, schema_uri, from_uri,
         to_uri, purpose, content, built_in, created, created_by)
       VALUES (@apiId, @kind, @name, @description, @originalName, @documentType, @schemaUri, @fromUri, @toUri,
         @purpose, @content, 1, @at, 'system')`,
    );
    for (const x of BUILT_IN_XML) xml.run({ ...x, at });
  },
};
