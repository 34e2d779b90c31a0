import { randomUUID } from "node:crypto";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/**
 * Appends a config event. Call it inside the transaction that makes the change, so a change and its record
 * are committed together or not at all.
 */

/** What was configured; `filter-info` lists the categories that occur. */
export type ConfigCategory =
  | "USER"
  | "SECURITY"
  | "STORAGE"
  | "SETTINGS"
  | "AUTHENTICATION"
  | "METADATA"
  | "REGISTRY"
  | "SYSTEM";

/** What was done to it. */
export type ConfigCommand = "CREATE" | "UPDATE" | "DELETE" | "APPLY" | "ENABLE" | "DISABLE";

export interface ConfigEventInput {
  username: string;
  category: ConfigCategory;
  commandType: ConfigCommand;
  /** What was changed: a user name, a tag, an adapter id, a setting's name. */
  subject: string;
  /** One line for a person: "Created user jdoe (ROLE_SDB_ACCESS_USER)". */
  summary: string;
  /** Before/after or parameters; never a password or a secret. */
  details?: Record<string, unknown>;
  /** For tests and seeds: when it happened (default now). */
  at?: string;
}

export function recordConfigEvent(db: Db, e: ConfigEventInput): string {
  const ref = randomUUID();
  prepared(
    db,
    `INSERT INTO config_events (ref, at, username, category, command_type, subject, summary, details)
     VALUES (@ref, @at, @username, @category, @commandType, @subject, @summary, @details)`,
  ).run({
    ref,
    at: e.at ?? new Date().toISOString(),
    username: e.username,
    category: e.category,
    commandType: e.commandType,
    subject: e.subject,
    summary: e.summary,
    details: e.details ? JSON.stringify(e.details) : null,
  });
  return ref;
}
