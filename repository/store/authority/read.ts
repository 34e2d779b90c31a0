import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/** Reads of authority records (reference metadata): tables, and the records of a table. */

export interface AuthorityTableRow {
  ref: string;
  name: string;
  description: string | null;
  security_tag: string;
  display_field: string | null;
  /** JSON array, as sent. */
  metadata_connections: string | null;
  /** JSON array of field definitions `{name, …}`, as sent. */
  fields: string | null;
  created: string;
}

export interface AuthorityRecordRow {
  ref: string;
  table_ref: string;
  security_tag: string;
  /** JSON array of `{name, value}`. */
  field_values: string;
  created: string;
}

export function authorityTables(db: Db): AuthorityTableRow[] {
  return prepared(db, "SELECT * FROM authority_tables ORDER BY name, ref").all() as AuthorityTableRow[];
}

export function authorityTable(db: Db, ref: string): AuthorityTableRow | undefined {
  return prepared(db, "SELECT * FROM authority_tables WHERE ref = ?").get(ref) as
    | AuthorityTableRow
    | undefined;
}

export function authorityRecords(db: Db, tableRef: string): AuthorityRecordRow[] {
  return prepared(db, "SELECT * FROM authority_records WHERE table_ref = ? ORDER BY id").all(
    tableRef,
  ) as AuthorityRecordRow[];
}

export function authorityRecord(db: Db, ref: string): AuthorityRecordRow | undefined {
  return prepared(db, "SELECT * FROM authority_records WHERE ref = ?").get(ref) as
    | AuthorityRecordRow
    | undefined;
}

export function securityTagExists(db: Db, tag: string): boolean {
  return prepared(db, "SELECT 1 FROM security_tags WHERE name = ?").get(tag) !== undefined;
}
