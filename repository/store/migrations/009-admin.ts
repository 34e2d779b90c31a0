import type { Migration } from "./index.js";

/**
 * Schema 9: what the Admin and User APIs keep beyond the users, tags and permissions of schema 1.
 * - `system_roles`: roles an administrator added (the built-in SDB roles are not rows: they are the
 *   program's own, and always exist). Names are stored with the `ROLE_` prefix, as users' roles are.
 * - `password_resets`: codes mailed to the outbox by a password-reset request (and to a user an
 *   administrator created, who has no password yet). Only a SHA-256 of the code is kept, so the table
 *   gives no one a way in; a code is single-use and expires.
 */
export const admin: Migration = {
  version: 9,
  name: "admin",
  up(db) {
    db.exec(`
      CREATE TABLE system_roles (
        name       TEXT PRIMARY KEY,
        created    TEXT NOT NULL,
        created_by TEXT NOT NULL
      );
      CREATE TABLE password_resets (
        code_sha256 TEXT PRIMARY KEY,
        username    TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL,
        used        INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX password_resets_user ON password_resets (username);
    `);
  },
};
