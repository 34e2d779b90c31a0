import { describe, expect, it } from "vitest";
import { openDatabase } from "../../../repository/store/db.js";

/** The SQLite binding behind store/db.ts (libsql through its adapter) behaves as the code expects. */
describe("the SQLite binding", () => {
  const db = openDatabase(null);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b BLOB)");

  it("returns rows holding only their columns (no _metadata), from get, all and iterate", () => {
    db.prepare("INSERT INTO t (a, b) VALUES (?, ?)").run("x", Buffer.from([1, 2]));
    const row = db.prepare("SELECT * FROM t WHERE a = ?").get("x") as Record<string, unknown>;
    expect(Object.keys(row)).toEqual(["id", "a", "b"]);
    expect(JSON.stringify(row)).not.toContain("_metadata");
    expect(Buffer.isBuffer(row.b)).toBe(true);
    expect(Object.keys(db.prepare("SELECT * FROM t").all()[0] as object)).toEqual(["id", "a", "b"]);
    expect([...db.prepare("SELECT a FROM t").iterate()]).toEqual([{ a: "x" }]);
  });

  it("plucks the first column with get and all, and gives arrays in raw mode", () => {
    expect(db.prepare("SELECT a, id FROM t").pluck().get()).toBe("x");
    expect(db.prepare("SELECT a FROM t").pluck().all()).toEqual(["x"]);
    expect(db.prepare("SELECT a, 7 AS n FROM t").raw().get()).toEqual(["x", 7]);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
  });

  it("binds named parameters and reports changes and the new row id", () => {
    const info = db.prepare("INSERT INTO t (a) VALUES (@a)").run({ a: "y" });
    expect(info.changes).toBe(1);
    expect(db.prepare("SELECT a FROM t WHERE id = ?").pluck().get(info.lastInsertRowid)).toBe("y");
  });

  it("refuses a boolean with a TypeError instead of aborting the process", () => {
    expect(() => db.prepare("SELECT ?").get(true)).toThrow(TypeError);
    expect(() => db.prepare("SELECT @v").get({ v: false })).toThrow(TypeError);
  });

  it("rolls back a failed transaction, and a nested one alone through a savepoint", () => {
    const count = () => db.prepare("SELECT count(*) FROM t").pluck().get();
    const before = count();
    expect(() =>
      db.transaction(() => {
        db.prepare("INSERT INTO t (a) VALUES ('z')").run();
        throw new Error("refused");
      })(),
    ).toThrow("refused");
    expect(count()).toBe(before);
    db.transaction(() => {
      db.prepare("INSERT INTO t (a) VALUES ('outer')").run();
      expect(() =>
        db.transaction(() => {
          db.prepare("INSERT INTO t (a) VALUES ('inner')").run();
          throw new Error("inner refused");
        })(),
      ).toThrow("inner refused");
    }).immediate();
    expect(db.prepare("SELECT a FROM t WHERE a IN ('outer', 'inner')").pluck().all()).toEqual(["outer"]);
    expect(db.inTransaction).toBe(false);
  });

  it("has FTS5 with the porter tokenizer", () => {
    db.exec("CREATE VIRTUAL TABLE f USING fts5 (x, tokenize = 'porter unicode61')");
    db.prepare("INSERT INTO f (x) VALUES (?)").run("the harbours were surveyed");
    expect(db.prepare("SELECT count(*) FROM f WHERE f MATCH ?").pluck().get("harbour survey")).toBe(1);
  });
});
