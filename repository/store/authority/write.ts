import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Writes of authority records. Callers record the config event in the same transaction. */

export interface AuthorityTableInput {
  ref: string;
  name: string;
  description: string | null;
  securityTag: string;
  displayField: string | null;
  metadataConnections: unknown[] | null;
  fields: unknown[] | null;
  created: string;
}

export function insertAuthorityTable(db: Db, t: AuthorityTableInput): void {
  prepared(
    db,
    `INSERT INTO authority_tables (ref, name, description, security_tag, display_field, metadata_connections, fields, created)
     VALUES (@ref, @name, @description, @securityTag, @displayField, @metadataConnections, @fields, @created)`,
  ).run({
    ...t,
    metadataConnections: t.metadataConnections ? JSON.stringify(t.metadataConnections) : null,
    fields: t.fields ? JSON.stringify(t.fields) : null,
  });
}

/** Deletes a table and its records. */
export function deleteAuthorityTable(db: Db, ref: string): void {
  prepared(db, "DELETE FROM authority_records WHERE table_ref = ?").run(ref);
  prepared(db, "DELETE FROM authority_tables WHERE ref = ?").run(ref);
}

export interface FieldValue {
  name: string;
  value: string;
}

export function insertAuthorityRecord(
  db: Db,
  r: { ref: string; tableRef: string; securityTag: string; fieldValues: FieldValue[]; created: string },
): void {
  prepared(
    db,
    `INSERT INTO authority_records (ref, table_ref, security_tag, field_values, created)
     VALUES (@ref, @tableRef, @securityTag, @fieldValues, @created)`,
  ).run({ ...r, fieldValues: JSON.stringify(r.fieldValues) });
}

export function deleteAuthorityRecord(db: Db, ref: string): void {
  prepared(db, "DELETE FROM authority_records WHERE ref = ?").run(ref);
}
