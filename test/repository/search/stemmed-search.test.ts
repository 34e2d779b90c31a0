import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { type Db, openDatabase, openDatabaseFile } from "../../../repository/store/db.js";
import type { EntityRow } from "../../../repository/store/entities/types.js";
import { insertEntity, reindexEntity } from "../../../repository/store/entities/write.js";
import {
  MIGRATIONS,
  migrate,
  SCHEMA_VERSION,
  schemaVersion,
} from "../../../repository/store/migrations/index.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";

/**
 * Stemmed full-text search (FTS5 porter over unicode61) through the Content API, the migration that
 * turns an unstemmed store into a stemmed one, and content objects in a folder's subtree.
 */

let repo: RunningRepository;
let token: string;
const e: Record<string, EntityRow> = {};

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  const add = (
    key: string,
    type: "SO" | "IO" | "CO",
    title: string,
    parent?: EntityRow,
    description?: string,
  ) => {
    e[key] = insertEntity(db, {
      type,
      title,
      description,
      securityTag: "open",
      parentRef: parent?.ref ?? null,
    });
    return e[key] as EntityRow;
  };
  const plans = add("plans", "SO", "Town plans");
  const sub = add("sub", "SO", "Harbour series", plans);
  add("maps", "IO", "Maps of the harbour", sub);
  add("map", "IO", "A map of the quay", plans);
  const book = add("book", "IO", "The minute book", plans);
  add("bookCo", "CO", "minute-book.tif", book);
  const minutes = add("minutes", "IO", "Council minutes 1901", sub, "Minutes of the council");
  add("minutesCo", "CO", "council-minutes.pdf", minutes);
  add("running", "IO", "Running costs of the lighthouse");
  add("elsewhereCo", "CO", "minutes-elsewhere.pdf", e.running);
  token = (await login(repo.url, "manager")).token;
});
afterAll(async () => {
  await repo?.close();
});

type Query = Record<string, string | object>;

async function search(endpoint: string, params: Query): Promise<string[]> {
  const form = new URLSearchParams({ max: "-1" });
  for (const [k, v] of Object.entries(params)) form.append(k, typeof v === "string" ? v : JSON.stringify(v));
  const res = await fetch(`${repo.url}/api/content/${endpoint}?${form}`, {
    headers: { "Preservica-Access-Token": token },
  });
  const body = (await res.json()) as { value?: { objectIds: string[] }; message?: string };
  expect(res.status, body.message).toBe(200);
  return [...(body.value?.objectIds ?? [])].sort();
}

/** Object ids of fixture entities, sorted like `search` answers. */
function ids(...keys: string[]): string[] {
  return keys
    .map((k) => {
      const row = e[k] as EntityRow;
      return `sdb:${row.type}|${row.ref}`;
    })
    .sort();
}

describe("stemmed search", () => {
  it('"map" and "maps" find the same assets', async () => {
    expect(await search("search", { q: "map" })).toEqual(ids("maps", "map"));
    expect(await search("search", { q: "maps" })).toEqual(ids("maps", "map"));
  });

  it('"minutes" finds "minute", and the other way round', async () => {
    expect(await search("search", { q: "minutes" })).toEqual(ids("book", "minutes"));
    expect(await search("search", { q: "minute" })).toEqual(ids("book", "minutes"));
  });

  it("a phrase still matches its words in order (stemmed), and only in order", async () => {
    expect(await search("search", { q: '"minute book"' })).toEqual(ids("book"));
    expect(await search("search", { q: '"minutes books"' })).toEqual(ids("book"));
    expect(await search("search", { q: '"book minute"' })).toEqual([]);
    expect(await search("search", { q: '"council minutes"' })).toEqual(ids("minutes"));
  });

  it("a trailing wildcard still finds words beginning with the prefix", async () => {
    expect(await search("search", { q: "map%" })).toEqual(ids("maps", "map"));
    expect(await search("search", { q: "harb*" })).toEqual(ids("sub", "maps"));
    expect(await search("search", { q: "lighth%" })).toEqual(ids("running"));
    expect(await search("search", { q: "minutes -book" })).toEqual(ids("minutes"));
  });

  it("the index follows a retitled entity (reindexEntity keeps the row in step)", async () => {
    const db = repo.svc.db;
    const row = e.running as EntityRow;
    db.prepare("UPDATE entities SET title = ? WHERE ref = ?").run("Lighthouse keepers' wages", row.ref);
    reindexEntity(db, row.ref);
    try {
      expect(await search("search", { q: "wage" })).toEqual(ids("running"));
      expect(await search("search", { q: "costs" })).toEqual([]);
      expect(db.prepare("SELECT count(*) AS n FROM entity_fts WHERE rowid = ?").get(row.id)).toEqual({
        n: 1,
      });
    } finally {
      db.prepare("UPDATE entities SET title = ? WHERE ref = ?").run(row.title, row.ref);
      reindexEntity(db, row.ref);
    }
  });
});

describe("content objects in a folder's subtree", () => {
  const coFilter = { fields: [{ name: "xip.document_type", values: ["CO"] }] };

  it("search-within includes the content objects of assets below the folder", async () => {
    const plans = (e.plans as EntityRow).ref;
    expect(await search("search-within", { q: { q: "%", ...coFilter }, parenthierarchy: plans })).toEqual(
      ids("bookCo", "minutesCo"),
    );
    expect(
      await search("search-within", { q: { q: "council", ...coFilter }, parenthierarchy: plans }),
    ).toEqual(ids("minutesCo"));
    // One level down: only the series' asset's content object.
    const sub = (e.sub as EntityRow).ref;
    expect(await search("search-within", { q: { q: "%", ...coFilter }, parenthierarchy: sub })).toEqual(
      ids("minutesCo"),
    );
  });

  it("without a content-object filter, search-within still lists folders and assets only", async () => {
    const plans = (e.plans as EntityRow).ref;
    expect(await search("search-within", { q: "%", parenthierarchy: plans })).toEqual(
      ids("sub", "maps", "map", "book", "minutes"),
    );
  });

  it("the xip.top_level_so filter covers content objects too", async () => {
    const plans = (e.plans as EntityRow).ref;
    const q = {
      q: "%",
      fields: [
        { name: "xip.document_type", values: ["CO"] },
        { name: "xip.top_level_so", values: [plans] },
      ],
    };
    expect(await search("search", { q })).toEqual(ids("bookCo", "minutesCo"));
  });
});

describe("migration 004", () => {
  it("turns an unstemmed store (schema 3) into a stemmed one, keeping every row", () => {
    const dir = tempDir("stemmed-search-");
    const old = openDatabaseFile(join(dir, "repository.sqlite"));
    migrate(old, MIGRATIONS.slice(0, 3));
    expect(schemaVersion(old)).toBe(3);
    const maps = insertEntity(old, { type: "IO", title: "Maps of the harbour", securityTag: "open" });
    insertEntity(old, {
      type: "IO",
      title: "Council minutes",
      description: "Café accounts",
      securityTag: "open",
    });
    const match = (db: Db, q: string) =>
      (db.prepare("SELECT rowid FROM entity_fts WHERE entity_fts MATCH ?").all(q) as { rowid: number }[]).map(
        (r) => r.rowid,
      );
    // The old tokenizer does not stem: this is what the migration changes.
    expect(match(old, "map")).toEqual([]);
    old.close();

    const db = openDatabase(dir);
    try {
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      const sql = (
        db.prepare("SELECT sql FROM sqlite_master WHERE name = 'entity_fts'").get() as { sql: string }
      ).sql;
      expect(sql).toContain("porter unicode61 remove_diacritics 2");
      expect(
        db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'entity_fts_unstemmed%'").all(),
      ).toEqual([]);
      expect(match(db, "map")).toEqual([maps.id]);
      expect(match(db, "minute")).toHaveLength(1);
      expect(match(db, "cafe")).toHaveLength(1);
      expect(db.prepare("SELECT count(*) AS n FROM entity_fts").get()).toEqual({ n: 2 });
    } finally {
      db.close();
    }
  });

  it("fresh stores are stemmed from the start", () => {
    const db = openDatabase(null);
    try {
      const row = insertEntity(db, { type: "SO", title: "Surveys", securityTag: "open" });
      expect(db.prepare("SELECT rowid FROM entity_fts WHERE entity_fts MATCH 'survey'").all()).toEqual([
        { rowid: row.id },
      ]);
    } finally {
      db.close();
    }
  });
});
