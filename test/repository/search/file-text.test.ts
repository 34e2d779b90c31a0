import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IdentifiedFormat } from "../../../repository/formats.js";
import { ensureFileText, FILE_TEXT_MAX_BYTES } from "../../../repository/search/file-text.js";
import { type RunningRepository, startRepository } from "../../../repository/server.js";
import type { ContentStore } from "../../../repository/store/content-store.js";
import { type Db, openDatabaseFile } from "../../../repository/store/db.js";
import type { EntityRow } from "../../../repository/store/entities/types.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
  reindexEntity,
} from "../../../repository/store/entities/write.js";
import { addReplacementGeneration } from "../../../repository/store/files/write.js";
import { MIGRATIONS, migrate } from "../../../repository/store/migrations/index.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { pdfWithPages } from "./pdf-fixture.js";

/** Words inside assets' text files are searchable (entity_fts.file_text, search/file-text.ts). */

/** An asset with one content object holding `bytes` as its Preservation file. */
function assetWithFile(
  db: Db,
  content: ContentStore,
  title: string,
  file: { name: string; mimeType: string; bytes: Buffer },
): { io: EntityRow; co: EntityRow } {
  const io = insertEntity(db, { type: "IO", title, securityTag: "open" });
  const co = insertEntity(db, { type: "CO", title: file.name, securityTag: "open", parentRef: io.ref });
  addRepresentation(db, io.ref, "Preservation", "Preservation", [co.ref]);
  const gen = addGeneration(db, co.ref, { label: file.name });
  addBitstream(db, gen, { filename: file.name, mimeType: file.mimeType, blob: content.put(file.bytes) });
  return { io, co };
}

async function searchIds(repo: RunningRepository, token: string, q: string): Promise<string[]> {
  const form = new URLSearchParams({ q, max: "-1" });
  const res = await fetch(`${repo.url}/api/content/search?${form}`, {
    headers: { "Preservica-Access-Token": token },
  });
  const body = (await res.json()) as { value?: { objectIds: string[] }; message?: string };
  expect(res.status, body.message).toBe(200);
  return [...(body.value?.objectIds ?? [])].sort();
}

const id = (e: EntityRow) => `sdb:${e.type}|${e.ref}`;

describe("words inside files", () => {
  let repo: RunningRepository;
  let token: string;
  const a = {} as Record<
    "transcript" | "register" | "record" | "json" | "pdf" | "report" | "big",
    { io: EntityRow; co: EntityRow }
  >;
  const search = (q: string) => searchIds(repo, token, q);

  beforeAll(async () => {
    repo = await startTestRepository();
    const { db, content } = repo.svc;
    a.transcript = assetWithFile(db, content, "Oral history 12", {
      name: "transcript.txt",
      mimeType: "text/plain",
      bytes: Buffer.from("Interview with the lighthouse keepers about the great storms of 1953."),
    });
    a.register = assetWithFile(db, content, "Burial register", {
      name: "register.csv",
      mimeType: "text/csv",
      bytes: Buffer.from("name,year,parish\nAnn Pilbeam,1887,Saint Clement\n"),
    });
    a.record = assetWithFile(db, content, "Catalogue record", {
      name: "record.xml",
      mimeType: "application/xml",
      bytes: Buffer.from(
        '<?xml version="1.0"?><rec xmlns="urn:x"><note kind="zebra">Caf&#233; &amp; tearooms</note></rec>',
      ),
    });
    a.json = assetWithFile(db, content, "Survey data", {
      name: "survey.json",
      mimeType: "application/json",
      bytes: Buffer.from('{"site": "quarry", "finds": ["flint scrapers"]}'),
    });
    a.pdf = assetWithFile(db, content, "Scanned letter", {
      name: "letter.pdf",
      mimeType: "application/pdf",
      bytes: Buffer.from("%PDF-1.4 walrus walrus walrus"),
    });
    a.report = assetWithFile(db, content, "Annual report", {
      name: "report.pdf",
      mimeType: "application/pdf",
      bytes: pdfWithPages([
        ["Harbour Board annual report"],
        ["Dredging of the outer basin", "The cormorants nested on the breakwater."],
      ]),
    });
    a.big = assetWithFile(db, content, "Long log", {
      name: "log.txt",
      mimeType: "text/plain",
      bytes: Buffer.concat([
        Buffer.from("beginning "),
        Buffer.alloc(FILE_TEXT_MAX_BYTES, " "),
        Buffer.from("farbeyondthecap"),
      ]),
    });
    token = (await login(repo.url, "manager")).token;
  });
  afterAll(async () => {
    await repo?.close();
  });

  it("finds an asset by a word of its text file, stemmed", async () => {
    expect(await search("keepers")).toEqual([id(a.transcript.io)]);
    expect(await search("storm")).toEqual([id(a.transcript.io)]);
    expect(await search('"great storms"')).toEqual([id(a.transcript.io)]);
  });

  it("reads CSV, XML (text only, references decoded) and JSON files", async () => {
    expect(await search("pilbeam")).toEqual([id(a.register.io)]);
    expect(await search("cafe tearooms")).toEqual([id(a.record.io)]);
    // Markup (element names, attribute values) is not text.
    expect(await search("zebra")).toEqual([]);
    expect(await search("amp")).toEqual([]);
    expect(await search("flint")).toEqual([id(a.json.io)]);
  });

  it("finds an asset by a word inside its PDF, on any page, stemmed", async () => {
    expect(await search("cormorant")).toEqual([id(a.report.io)]);
    expect(await search('"outer basin"')).toEqual([id(a.report.io)]);
    expect(await search("dredging breakwater")).toEqual([id(a.report.io)]);
  });

  it("an unreadable PDF gives no words (its bytes are not read as text)", async () => {
    expect(await search("walrus")).toEqual([]);
  });

  it("reads only the first MiB of a file", async () => {
    expect(await search("beginning")).toEqual([id(a.big.io)]);
    expect(await search("farbeyondthecap")).toEqual([]);
  });

  it("keeps the file text when the asset's metadata is reindexed", async () => {
    reindexEntity(repo.svc.db, a.transcript.io.ref);
    expect(await search("keepers")).toEqual([id(a.transcript.io)]);
  });

  it("follows a replaced file: the new words are found, the old ones no longer", async () => {
    const { db, content } = repo.svc;
    const format: IdentifiedFormat = {
      mimeType: "text/plain",
      puid: "x-fmt/111",
      formatName: "Plain Text File",
      formatVersion: null,
      formatGroup: "Text",
      method: "Extension",
    };
    db.transaction(() => {
      addReplacementGeneration(
        db,
        a.transcript.co.ref,
        {
          filename: "transcript-v2.txt",
          format,
          blob: content.put(Buffer.from("Corrected: the ferrymen spoke.")),
        },
        "2026-01-01T00:00:00.000Z",
      );
    })();
    expect(await search("ferrymen")).toEqual([id(a.transcript.io)]);
    expect(await search("keepers")).toEqual([]);
  });

  it("follows a text file replaced by a PDF: the PDF's words replace the text's", async () => {
    const { db, content } = repo.svc;
    const format: IdentifiedFormat = {
      mimeType: "application/pdf",
      puid: "fmt/18",
      formatName: "Acrobat PDF 1.4",
      formatVersion: "1.4",
      formatGroup: "Text",
      method: "Extension",
    };
    db.transaction(() => {
      addReplacementGeneration(
        db,
        a.register.co.ref,
        {
          filename: "register.pdf",
          format,
          blob: content.put(pdfWithPages([["Register of the almshouse trustees"]])),
        },
        "2026-01-02T00:00:00.000Z",
      );
    })();
    expect(await search("almshouse")).toEqual([id(a.register.io)]);
    expect(await search("pilbeam")).toEqual([]);
  });

  it("searches without text leave the index alone; a later text search catches up", async () => {
    const { db, content } = repo.svc;
    const late = assetWithFile(db, content, "Late arrival", {
      name: "late.txt",
      mimeType: "text/plain",
      bytes: Buffer.from("The pelicans returned."),
    });
    expect(await search("%")).toContain(id(late.io));
    expect(await search("pelican")).toEqual([id(late.io)]);
  });
});

describe("file text at seed time and on upgrade", () => {
  it("the synthetic seed writes the words of its text files; the first text search adds its PDFs'", async () => {
    const repo = await startTestRepository({ seed: 400 });
    try {
      const db = repo.svc.db;
      const mark = db.prepare("SELECT value FROM meta WHERE key = 'file_text_bitstream_mark'").get() as {
        value: string;
      };
      const latest = db.prepare("SELECT max(id) AS n FROM bitstreams").get() as { n: number };
      expect(Number(mark.value)).toBe(latest.n);
      const withText = db
        .prepare("SELECT count(*) AS n FROM entity_fts WHERE entity_fts MATCH 'file_text : benchmarking'")
        .get() as { n: number };
      const textAssets = db
        .prepare(
          `SELECT count(DISTINCT c.parent_ref) AS n FROM bitstreams b JOIN generations g ON g.id = b.generation_id
           JOIN entities c ON c.ref = g.co_ref WHERE b.mime_type IN ('text/plain', 'text/csv', 'application/xml', 'text/xml')
           AND (b.filename LIKE '%.txt' OR b.filename LIKE '%.xml')`,
        )
        .get() as { n: number };
      expect(withText.n).toBeGreaterThan(0);
      expect(withText.n).toBe(textAssets.n);
      const pdfAssets = db
        .prepare(
          `SELECT count(DISTINCT c.parent_ref) AS n FROM bitstreams b JOIN generations g ON g.id = b.generation_id
           JOIN entities c ON c.ref = g.co_ref WHERE b.mime_type = 'application/pdf'`,
        )
        .get() as { n: number };
      expect(pdfAssets.n).toBeGreaterThan(0);
      const token = (await login(repo.url, "manager")).token;
      // The first text search adds the words of the seed's PDFs (the same sentence).
      expect((await searchIds(repo, token, "benchmarking")).length).toBeGreaterThanOrEqual(
        withText.n + pdfAssets.n,
      );
    } finally {
      await repo.close();
    }
  });

  it("the demo seed indexes its text files as the catch-up would; the first search adds its PDFs' words", async () => {
    const repo = await startTestRepository({ seed: "demo" });
    try {
      const { db, content } = repo.svc;
      const rows = () => JSON.stringify(db.prepare("SELECT rowid, * FROM entity_fts ORDER BY rowid").all());
      const seeded = rows();
      expect(
        (
          db.prepare("SELECT count(*) AS n FROM entity_fts WHERE coalesce(file_text, '') <> ''").get() as {
            n: number;
          }
        ).n,
      ).toBeGreaterThan(0);
      const pdfAssetsWithoutText = () =>
        (
          db
            .prepare(
              `SELECT count(DISTINCT c.parent_ref) AS n FROM bitstreams b JOIN generations g ON g.id = b.generation_id
               JOIN entities c ON c.ref = g.co_ref JOIN entities io ON io.ref = c.parent_ref
               JOIN entity_fts f ON f.rowid = io.id
               WHERE b.mime_type = 'application/pdf' AND coalesce(f.file_text, '') = ''`,
            )
            .get() as { n: number }
        ).n;
      // The seed (one synchronous transaction) cannot extract PDFs: the first text search does.
      expect(pdfAssetsWithoutText()).toBeGreaterThan(0);
      const token = (await login(repo.url, "manager")).token;
      await searchIds(repo, token, "harbour");
      expect(pdfAssetsWithoutText()).toBe(0);
      const indexed = rows();
      expect(indexed).not.toBe(seeded);
      // The seed's text-file words were what the catch-up writes: redoing every asset from the
      // files themselves gives the same rows, and a second search writes nothing.
      db.prepare("DELETE FROM meta WHERE key LIKE 'file_text_%'").run();
      await ensureFileText(db, content);
      expect(rows()).toBe(indexed);
      await searchIds(repo, token, "harbour");
      expect(rows()).toBe(indexed);
    } finally {
      await repo.close();
    }
  });

  it("a store upgraded from schema 3 has its files' words (text and PDF) indexed by the first text search", async () => {
    const dir = tempDir("file-text-");
    const old = openDatabaseFile(join(dir, "repository.sqlite"));
    migrate(old, MIGRATIONS.slice(0, 3));
    // The content store lives beside the database, as startRepository lays it out.
    const { ContentStore } = await import("../../../repository/store/content-store.js");
    const store = new ContentStore(join(dir, "content"));
    const { io } = assetWithFile(old, store, "Parish notes", {
      name: "notes.txt",
      mimeType: "text/plain",
      bytes: Buffer.from("The vestry met to discuss the bellringers."),
    });
    const scan = assetWithFile(old, store, "Parish scan", {
      name: "scan.pdf",
      mimeType: "application/pdf",
      bytes: pdfWithPages([["Churchwardens' accounts for the glebe"]]),
    });
    old.close();
    const repo = await startRepository({ port: 0, host: "127.0.0.1", seed: "none", dataDir: dir });
    try {
      const token = (await login(repo.url, "manager")).token;
      expect(await searchIds(repo, token, "bellringer")).toEqual([id(io)]);
      expect(await searchIds(repo, token, "churchwardens glebe")).toEqual([id(scan.io)]);
    } finally {
      await repo.close();
    }
  });
});
