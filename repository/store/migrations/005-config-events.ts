import type { Migration } from "./index.js";

/**
 * Schema 5: config events, the Admin API's record of configuration changes (users, security tags and roles,
 * storage, settings, authentication, metadata schemas, the format registry). Every API that changes
 * configuration appends one in the same transaction as the change. Filtered by category and command type
 * (`/api/admin/config-events/filter-info` lists the values that occur).
 */
export const configEvents: Migration = {
  version: 5,
  name: "config-events",
  up(db) {
    db.exec(`
      CREATE TABLE config_events (
        id INTEGER PRIMARY KEY,
        ref TEXT NOT NULL UNIQUE,
        at TEXT NOT NULL,
        username TEXT NOT NULL,
        category TEXT NOT NULL,
        command_type TEXT NOT NULL,
        subject TEXT NOT NULL,
        summary TEXT NOT NULL,
        details TEXT
      );
      CREATE INDEX config_events_at ON config_events (at);
      CREATE INDEX config_events_filter ON config_events (category, command_type);
    `);
  },
};
