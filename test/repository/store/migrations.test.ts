import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Db, openDatabase, openDatabaseFile } from "../../../repository/store/db.js";
import { SCHEMA_1 } from "../../../repository/store/migrations/001-initial.js";
import { MIGRATIONS, SCHEMA_VERSION, schemaVersion } from "../../../repository/store/migrations/index.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** Numbered migrations: a fresh store and one written by the first release both end up current. */

const tables = (db: Db) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((r) => r.name);

describe("schema migrations", () => {
  it("numbers migrations 1, 2, … without gaps, and writes the newest", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it("brings a fresh store to the newest schema", () => {
    const db = openDatabase(tempDir("migrations-test-"));
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(tables(db)).toEqual(
      expect.arrayContaining(["entities", "actions", "action_items", "retention_policies"]),
    );
    db.close();
  });

  it("upgrades a store written by the first release (schema 1) and keeps its data", () => {
    const dir = tempDir("migrations-test-");
    // Exactly what the first release did on open: its schema, then schema_version 1.
    const old = openDatabaseFile(join(dir, "repository.sqlite"));
    old.exec(SCHEMA_1);
    old.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
    old
      .prepare(
        "INSERT INTO entities (ref, type, title, security_tag, created, modified) VALUES ('a', 'SO', 'Old folder', 'open', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')",
      )
      .run();
    old.close();

    const db = openDatabase(dir);
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    const row = db.prepare("SELECT title, deleted, deletion_id FROM entities WHERE ref = 'a'").get();
    expect(row).toEqual({ title: "Old folder", deleted: 0, deletion_id: null });
    expect(tables(db)).toContain("actions");
    db.close();
    // Opening again applies nothing twice.
    const again = openDatabase(dir);
    expect(schemaVersion(again)).toBe(SCHEMA_VERSION);
    again.close();
  });

  it("refuses a store written by a newer program, naming both versions", () => {
    const dir = tempDir("migrations-test-");
    const db = openDatabase(dir);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1));
    db.close();
    expect(() => openDatabase(dir)).toThrow(
      new RegExp(`schema ${SCHEMA_VERSION + 1}, this program knows ${SCHEMA_VERSION}`),
    );
  });

  it("leaves the store as it was when a migration fails part-way", () => {
    const dir = tempDir("migrations-test-");
    const old = openDatabaseFile(join(dir, "repository.sqlite"));
    old.exec(SCHEMA_1);
    old.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
    // A table the second migration creates already exists: its CREATE fails half-way through.
    old.exec("CREATE TABLE previews (x INTEGER)");
    old.close();
    expect(() => openDatabase(dir)).toThrow(/previews/);
    const check = openDatabaseFile(join(dir, "repository.sqlite"));
    expect(schemaVersion(check)).toBe(1);
    expect(tables(check)).not.toContain("actions");
    check.close();
  });
});
