import { randomUUID } from "node:crypto";
import type { ConfigCategory, ConfigCommand } from "../config-events/write.js";
import { recordConfigEvent } from "../config-events/write.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import { BUILT_IN_XML, type XmlKind } from "./built-ins.js";
import { type AdminXml, adminXml, type SettingName, storedSetting, systemProperty } from "./read.js";

/**
 * Writes of the system configuration. Each runs in one transaction with the config event that records it,
 * so a change and its record are committed together or not at all.
 */

export interface Change {
  username: string;
  /** ISO time of the change. */
  at: string;
}

/** Replaces a named setting; records the before and after under `category`. */
export function putSetting(
  db: Db,
  name: SettingName,
  value: Record<string, unknown>,
  category: ConfigCategory,
  summary: string,
  who: Change,
): void {
  db.transaction(() => {
    const before = storedSetting(db, name)?.value ?? null;
    prepared(
      db,
      `INSERT INTO system_settings (name, value, modified, modified_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, modified = excluded.modified, modified_by = excluded.modified_by`,
    ).run(name, JSON.stringify(value), who.at, who.username);
    recordConfigEvent(db, {
      username: who.username,
      category,
      commandType: "UPDATE",
      subject: name,
      summary,
      details: { before, after: value },
      at: who.at,
    });
  })();
}

/**
 * Sets the session lifetime and ends, at once, every session already older than it: a token's expiry is
 * brought forward to its session's end, so neither a request nor a refresh with it succeeds afterwards.
 */
export function putAuthConfiguration(
  db: Db,
  maxSessionLifetimeMins: number,
  who: Change,
  nowMs: number,
): void {
  db.transaction(() => {
    putSetting(
      db,
      "auth.configuration",
      { maxSessionLifetimeMins },
      "AUTHENTICATION",
      `Set the maximum session lifetime to ${maxSessionLifetimeMins} minutes`,
      who,
    );
    prepared(
      db,
      `UPDATE tokens SET expires_at = MAX(session_start + ?, ?)
       WHERE revoked = 0 AND expires_at > ? AND expires_at > session_start + ?`,
    ).run(maxSessionLifetimeMins * 60_000, nowMs, nowMs, maxSessionLifetimeMins * 60_000);
  })();
}

function record(
  db: Db,
  who: Change,
  category: ConfigCategory,
  commandType: ConfigCommand,
  subject: string,
  summary: string,
  details: Record<string, unknown>,
): void {
  recordConfigEvent(db, {
    username: who.username,
    category,
    commandType,
    subject,
    summary,
    details,
    at: who.at,
  });
}

/** Creates or changes a system property. Returns whether it was new. */
export function setSystemProperty(
  db: Db,
  name: string,
  value: string,
  description: string | undefined,
  who: Change,
): boolean {
  return db.transaction(() => {
    const before = systemProperty(db, name);
    if (before) {
      prepared(
        db,
        "UPDATE system_properties SET value = ?, description = ?, modified = ?, modified_by = ? WHERE name = ?",
      ).run(value, description ?? before.description, who.at, who.username, name);
      record(db, who, "SYSTEM", "UPDATE", name, `Set system property ${name}`, {
        before: before.value,
        after: value,
      });
      return false;
    }
    prepared(
      db,
      "INSERT INTO system_properties (name, value, description, built_in, modified, modified_by) VALUES (?, ?, ?, 0, ?, ?)",
    ).run(name, value, description ?? "", who.at, who.username);
    record(db, who, "SYSTEM", "CREATE", name, `Added system property ${name}`, { value });
    return true;
  })();
}

export function deleteSystemProperty(db: Db, name: string, who: Change): void {
  db.transaction(() => {
    const before = systemProperty(db, name);
    prepared(db, "DELETE FROM system_properties WHERE name = ?").run(name);
    record(db, who, "SYSTEM", "DELETE", name, `Deleted system property ${name}`, {
      value: before?.value ?? null,
    });
  })();
}

export interface NewAdminXml {
  kind: XmlKind;
  name: string;
  description?: string | null;
  originalName?: string | null;
  documentType?: string | null;
  schemaUri?: string | null;
  fromUri?: string | null;
  toUri?: string | null;
  purpose?: string | null;
  content: string;
}

const KIND_WORD: Record<XmlKind, string> = {
  schema: "schema",
  document: "XML document",
  transform: "transform",
};

function insertXml(db: Db, x: NewAdminXml & { apiId: string; builtIn: boolean }, who: Change): void {
  prepared(
    db,
    `INSERT INTO admin_xml (api_id, kind, name, description, original_name, document_type, schema_uri, from_uri,
       to_uri, purpose, content, built_in, created, created_by)
     VALUES (@apiId, @kind, @name, @description, @originalName, @documentType, @schemaUri, @fromUri, @toUri,
       @purpose, @content, @builtIn, @at, @username)`,
  ).run({
    apiId: x.apiId,
    kind: x.kind,
    name: x.name,
    description: x.description ?? null,
    originalName: x.originalName ?? null,
    documentType: x.documentType ?? null,
    schemaUri: x.schemaUri ?? null,
    fromUri: x.fromUri ?? null,
    toUri: x.toUri ?? null,
    purpose: x.purpose ?? null,
    content: x.content,
    builtIn: x.builtIn ? 1 : 0,
    at: who.at,
    username: who.username,
  });
}

function xmlDetails(x: NewAdminXml): Record<string, unknown> {
  const details: Record<string, unknown> = { name: x.name };
  for (const key of ["documentType", "schemaUri", "fromUri", "toUri", "purpose", "originalName"] as const) {
    if (x[key]) details[key] = x[key];
  }
  return details;
}

/** Stores a schema, document or transform; returns its ApiId. */
export function addAdminXml(db: Db, x: NewAdminXml, who: Change): string {
  const apiId = randomUUID().replaceAll("-", "");
  db.transaction(() => {
    insertXml(db, { ...x, apiId, builtIn: false }, who);
    record(db, who, "METADATA", "CREATE", x.name, `Added ${KIND_WORD[x.kind]} ${x.name}`, {
      apiId,
      ...xmlDetails(x),
    });
  })();
  return apiId;
}

export function deleteAdminXml(db: Db, x: AdminXml, who: Change): void {
  db.transaction(() => {
    prepared(db, "DELETE FROM admin_xml WHERE kind = ? AND api_id = ?").run(x.kind, x.apiId);
    record(db, who, "METADATA", "DELETE", x.name, `Deleted ${KIND_WORD[x.kind]} ${x.name}`, {
      apiId: x.apiId,
      ...xmlDetails({ ...x, content: "" }),
    });
  })();
}

export interface RestoredXml {
  kind: XmlKind;
  apiId: string;
  name: string;
}

/**
 * `/notify-updates`: puts back every built-in schema, document and transform that is missing (deleted, or
 * added by a release newer than the store), leaving the ones present and everything users added alone.
 */
export function restoreBuiltIns(db: Db, who: Change): { restored: RestoredXml[]; unchanged: number } {
  return db.transaction(() => {
    const restored: RestoredXml[] = [];
    for (const b of BUILT_IN_XML) {
      if (adminXml(db, b.kind, b.apiId)) continue;
      insertXml(db, { ...b, builtIn: true }, { username: "system", at: who.at });
      restored.push({ kind: b.kind, apiId: b.apiId, name: b.name });
    }
    record(
      db,
      who,
      "SYSTEM",
      "APPLY",
      "notify-updates",
      restored.length > 0
        ? `Updated the built-in documents: restored ${restored.map((r) => r.name).join(", ")}`
        : "Updated the built-in documents: all were up to date",
      { restored },
    );
    return { restored, unchanged: BUILT_IN_XML.length - restored.length };
  })();
}
