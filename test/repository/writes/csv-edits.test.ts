import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCsvEdit } from "../../../repository/metadata-groups/csv.js";
import type { RunningRepository } from "../../../repository/server.js";
import { createAction, recordItems } from "../../../repository/store/actions/write.js";
import { addSecurityTag, grant, Permission, Role } from "../../../repository/store/auth.js";
import type { Db } from "../../../repository/store/db.js";
import { addFragment, insertEntity } from "../../../repository/store/entities/write.js";
import { allGroups } from "../../../repository/store/metadata-groups/read.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { arr, getXml, parseXml, text } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";

/**
 * Metadata CSV edits over real HTTP: the file is checked as a whole before anything changes; rows are
 * applied or refused one by one by the action, whose detail says which and why.
 */

const E = "/api/entity";
const CREATED = "2020-01-01T00:00:00.000Z";
let repo: RunningRepository;
let dataDir: string;
let manager: ReturnType<typeof authed>;
let curator: ReturnType<typeof authed>;
let reader: ReturnType<typeof authed>;
let group: { id: string; schemaUri: string };
const NS = "http://www.preservica.com/metadata/group/accession";
const col = (field: string) => `${NS};/ns:accession/ns:${field}`;

const f = {} as Record<"open1" | "open2" | "closed" | "sealed" | "existing" | "folder" | "spare", string>;

function asset(db: Db, title: string, tag: string): string {
  return insertEntity(db, { type: "IO", title, securityTag: tag, created: CREATED }).ref;
}

async function start(): Promise<void> {
  repo = await startTestRepository({ dataDir });
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
}

beforeAll(async () => {
  dataDir = tempDir("csv-edits-");
  await start();
  const db = repo.svc.db;
  // A tag the curator may read but not edit: rows for its entities are refused.
  addSecurityTag(db, "sealed");
  grant(db, Role.DATA_MANAGEMENT, "sealed", [Permission.READ_METADATA]);
  grant(db, Role.MANAGER, "sealed", [Permission.READ_METADATA, Permission.UPDATE_METADATA]);
  f.folder = insertEntity(db, { type: "SO", title: "Accessions", securityTag: "open", created: CREATED }).ref;
  f.open1 = asset(db, "Ledger", "open");
  f.open2 = asset(db, "Daybook", "open");
  f.closed = asset(db, "Minutes", "closed");
  f.sealed = asset(db, "Sealed deed", "sealed");
  f.existing = asset(db, "Charter", "open");
  f.spare = asset(db, "Spare", "open");
  const res = await manager("/api/metadata/groups/", {
    method: "POST",
    headers: { "Content-Type": "application/json;charset=UTF-8" },
    body: JSON.stringify({
      name: "Accession",
      description: "Accession details",
      fields: [
        { id: "number", name: "Accession number", type: "STRING", minOccurs: "0", maxOccurs: "1" },
        { id: "received", name: "Date received", type: "DATE" },
        { id: "boxes", name: "Boxes", type: "NUMBER" },
        { id: "notes", name: "Notes", type: "LONGSTRING" },
      ],
    }),
  });
  expect(res.status).toBe(201);
  group = (await res.json()) as { id: string; schemaUri: string };
  expect(group.schemaUri).toBe(NS);
  // An existing document with an element the group does not define: an update must keep it.
  addFragment(
    db,
    f.existing,
    NS,
    `<a:accession xmlns:a="${NS}"><a:number>OLD-5</a:number><a:boxes>1</a:boxes><a:notes>keep me</a:notes><a:legacy code="x">kept</a:legacy></a:accession>`,
    { date: CREATED },
  );
});

afterAll(async () => {
  await repo?.close();
});

function csv(rows: string[][]): string {
  return `${rows.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(",")).join("\r\n")}\r\n`;
}

function submit(as: ReturnType<typeof authed>, body: string, path = `${E}/actions/metadata-csv-edits`) {
  return as(path, { method: "POST", headers: { "Content-Type": "text/csv;charset=UTF-8" }, body });
}

async function refused(as: ReturnType<typeof authed>, body: string, status: number, message: RegExp) {
  const before = storeHash(repo.svc.db);
  const res = await submit(as, body);
  const reply = (await res.json()) as { success: boolean; message: string };
  expect(res.status, reply.message).toBe(status);
  expect(reply.message).toMatch(message);
  expect(storeHash(repo.svc.db)).toBe(before);
  return reply.message;
}

async function accepted(as: ReturnType<typeof authed>, body: string, path?: string): Promise<string> {
  const res = await submit(as, body, path);
  const id = await res.text();
  expect(res.status, id).toBe(202);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await repo.svc.actions.idle();
  return id;
}

interface Item {
  seq: number;
  outcome: string;
  entityRef?: string;
  message: string;
}

async function detail(id: string): Promise<{ status: string; items: Item[] }> {
  const reply = await getXml(manager, `${E}/actions/metadata-csv-edits/${id}`);
  const items = arr(reply.root.Items.Item).map((i) => ({
    seq: Number(i["@seq"]),
    outcome: i["@outcome"] as string,
    entityRef: i["@entityRef"] as string | undefined,
    message: text(i),
  }));
  return { status: String(reply.root.Action.Status), items };
}

async function progressStatus(id: string): Promise<string> {
  const res = await curator(`${E}/progress/${id}`);
  expect(res.status).toBe(200);
  return String(parseXml(await res.text()).root.Status);
}

/** The entity's documents of the group, read back through the Entity API. */
async function groupDocuments(ref: string): Promise<string[]> {
  const list = await getXml(manager, `${E}/information-objects/${ref}/metadata`);
  const urls = arr(list.root.Metadata?.Fragment)
    .filter((fr) => fr["@schema"] === NS)
    .map((fr) => new URL(text(fr)).pathname);
  const docs: string[] = [];
  for (const url of urls) {
    const res = await manager(url);
    expect(res.status).toBe(200);
    const body = await res.text();
    // The reply declares xmlns="" on a prefixed root, so its document keeps its meaning inside the
    // EntityAPI default namespace; the stored document is the rest.
    const content = body.slice(body.indexOf("<xip:Content>") + 13, body.indexOf("</xip:Content>"));
    docs.push(content.replace(/^(<[^>\s]+) xmlns=""/, "$1"));
  }
  return docs;
}

async function commandTypes(ref: string): Promise<string[]> {
  const reply = await getXml(manager, `${E}/information-objects/${ref}/event-actions`);
  return arr(reply.root.EventActions?.EventAction).map((a) => a["@commandType"] as string);
}

async function search(word: string): Promise<string[]> {
  const res = await manager(`/api/content/search?q=${encodeURIComponent(word)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: { objectIds: string[] } }).value.objectIds;
}

describe("metadata CSV edits: the file is checked before anything changes", () => {
  const good = () =>
    csv([
      ["PRESERVICA_CSV_TEMPLATE", "PRESERVICA_ENTITY_REF", col("number")],
      ["x", f.spare, "A"],
    ]);

  it("refuses a user who may update metadata nowhere (403)", async () => {
    await refused(reader, good(), 403, /Update Metadata permission on no security tag/);
  });

  it("refuses unknown columns, naming them and the known ones (400)", async () => {
    const message = await refused(
      curator,
      csv([
        ["PRESERVICA_CSV_TEMPLATE", "PRESERVICA_ENTITY_REF", col("number"), col("colour"), "Title"],
        ["x", f.spare, "A", "red", "t"],
      ]),
      400,
      /not a field of any metadata group/,
    );
    expect(message).toContain(`"${col("colour")}", "Title"`);
    expect(message).toContain(`"${col("boxes")}"`);
    expect(message).toContain(`csv-templates/download?ids=`);
  });

  it("refuses a CSV without a PRESERVICA_ENTITY_REF column, without rows, or that cannot be read (400)", async () => {
    await refused(
      curator,
      csv([
        ["PRESERVICA_CSV_TEMPLATE", col("number")],
        ["x", "A"],
      ]),
      400,
      /no PRESERVICA_ENTITY_REF column/,
    );
    await refused(curator, csv([["PRESERVICA_ENTITY_REF", col("number")]]), 400, /no rows/);
    await refused(curator, "", 400, /The CSV is empty/);
    await refused(
      curator,
      `PRESERVICA_ENTITY_REF,"${col("number")}"\n"${f.spare}"x,A\n`,
      400,
      /could not be read/,
    );
    await refused(
      curator,
      csv([
        ["PRESERVICA_ENTITY_REF", col("number"), col("number")],
        [f.spare, "A", "B"],
      ]),
      400,
      /Columns 2 and 3 .* are the same/,
    );
  });

  it("caps the body at 1 MiB (413)", async () => {
    const before = storeHash(repo.svc.db);
    const big = good() + `"x","${f.spare}","${"y".repeat(1024)}"\n`.repeat(1100);
    const res = await submit(curator, big);
    expect(res.status).toBe(413);
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});

describe("metadata CSV edits: rows applied and refused", () => {
  let id: string;
  let unknownRef: string;

  beforeAll(async () => {
    unknownRef = "0b0b0b0b-1c2b-4d5e-8f90-0a1b2c3d4e5f";
    id = await accepted(
      curator,
      csv([
        [
          "PRESERVICA_CSV_TEMPLATE",
          "PRESERVICA_ENTITY_REF",
          col("number"),
          col("received"),
          col("boxes"),
          col("notes"),
        ],
        ["ledger.pdf", f.open1, "ACC-1", "2024-01-31", "3", ""],
        ["charter.pdf", f.existing, "", "2023-12-01", "7", ""],
        ["ghost", unknownRef, "ACC-X", "", "", ""],
        ["typo", "not-a-ref", "ACC-Y", "", "", ""],
        ["deed", f.sealed, "ACC-S", "", "", ""],
        ["daybook", f.open2, "ACC-2", "2024-02-30", "", ""],
        ["daybook", f.open2, "ACC-2", "", "many", ""],
        ["ledger again", f.open1, "", "", "", "Quinquereme cargo manifest"],
      ]),
    );
  });

  it("ends FINISHED_MIXED_OUTCOME and lists each row applied or refused with its reason", async () => {
    expect(await progressStatus(id)).toBe("FINISHED_MIXED_OUTCOME");
    const d = await detail(id);
    expect(d.status).toBe("FINISHED_MIXED_OUTCOME");
    expect(d.items.map((i) => [i.seq, i.outcome])).toEqual([
      [1, "done"],
      [2, "done"],
      [3, "failed"],
      [4, "failed"],
      [5, "failed"],
      [6, "failed"],
      [7, "failed"],
      [8, "done"],
    ]);
    const [added, updated, ghost, typo, sealed, badDate, badNumber, again] = d.items as Item[] & {
      length: 8;
    };
    expect(added?.entityRef).toBe(f.open1);
    expect(added?.message).toMatch(/^Line 2: added .*fields number, received, boxes/);
    expect(updated?.message).toMatch(/^Line 3: updated .*fields received, boxes\)$/);
    expect(ghost?.message).toContain(`no entity ${unknownRef}`);
    expect(typo?.message).toContain('"not-a-ref" is not a UUID');
    expect(sealed?.message).toContain(
      `curator lacks the Update Metadata permission on security tag "sealed"`,
    );
    expect(badDate?.message).toContain('"2024-02-30" is not a date');
    expect(badNumber?.message).toContain('"many" is not a number');
    expect(again?.message).toMatch(/^Line 9: updated .*fields notes/);
  });

  it("applied the good rows: a new document in the group's field order; an update that keeps the rest and inserts a missing field in its place", async () => {
    const [ledger, ...more] = await groupDocuments(f.open1);
    expect(more).toHaveLength(0); // the second row for the ledger updated the document the first one added
    expect(ledger).toBe(
      `<accession xmlns="${NS}"><number>ACC-1</number><received>2024-01-31</received><boxes>3</boxes><notes>Quinquereme cargo manifest</notes></accession>`,
    );
    const [charter] = await groupDocuments(f.existing);
    expect(charter).toBe(
      `<a:accession xmlns:a="${NS}"><a:number>OLD-5</a:number><a:received>2023-12-01</a:received><a:boxes>7</a:boxes><a:notes>keep me</a:notes><a:legacy code="x">kept</a:legacy></a:accession>`,
    );
  });

  it("makes the new values searchable through the Content API", async () => {
    expect(await search("quinquereme")).toEqual([`sdb:IO|${f.open1}`]);
  });

  it("left the entities of refused rows unchanged", async () => {
    for (const ref of [f.open2, f.sealed]) {
      expect(await groupDocuments(ref)).toEqual([]);
      expect(await commandTypes(ref)).toEqual([]);
    }
  });

  it("recorded a Modified event per applied row and moved the entities' modified date", async () => {
    expect(await commandTypes(f.open1)).toEqual(["AddMetadataFromCsv", "UpdateMetadataFromCsv"]);
    expect(await commandTypes(f.existing)).toEqual(["UpdateMetadataFromCsv"]);
    const events = await getXml(manager, `${E}/events`);
    const types = arr(events.root.Events?.Event).map((e) => e["@type"] ?? e.Type);
    expect(types.filter((t) => t === "Modified").length).toBeGreaterThanOrEqual(3);
    const since = await getXml(manager, `${E}/entities/updated-since?date=2021-01-01T00:00:00%2B00:00`);
    const refs = arr(since.root.Entities?.Entity).map((e) => e["@ref"]);
    expect(refs).toContain(f.open1);
    expect(refs).toContain(f.existing);
    expect(refs).not.toContain(f.open2);
    expect(refs).not.toContain(f.sealed);
  });
});

describe("metadata CSV edits: the group's rules", () => {
  it("refuses a value outside a field's list, and a new document without a required field", async () => {
    const res = await manager("/api/metadata/groups/", {
      method: "POST",
      headers: { "Content-Type": "application/json;charset=UTF-8" },
      body: JSON.stringify({
        name: "Condition",
        fields: [
          { id: "grade", name: "Grade", type: "STRING", values: ["good", "fair", "poor"] },
          { id: "assessor", name: "Assessor", type: "STRING", minOccurs: "1" },
          { id: "checked", name: "Checked", type: "STRING", minOccurs: "1", defaultValue: "no" },
        ],
      }),
    });
    expect(res.status).toBe(201);
    const ns = "http://www.preservica.com/metadata/group/condition";
    const c = (field: string) => `${ns};/ns:condition/ns:${field}`;
    const id = await accepted(
      curator,
      csv([
        ["PRESERVICA_ENTITY_REF", c("grade"), c("assessor")],
        [f.spare, "excellent", "Ann"],
        [f.spare, "good", ""],
        [f.spare, "good", "Ann"],
      ]),
    );
    const d = await detail(id);
    expect(d.items.map((i) => i.outcome)).toEqual(["failed", "failed", "done"]);
    expect(d.items[0]?.message).toContain(
      '"excellent" is not one of the values field "grade" (STRING) allows',
    );
    expect(d.items[1]?.message).toContain('Field "assessor" of group "Condition" is required');
    // The required field with a default takes it.
    const stored = repo.svc.db
      .prepare("SELECT content FROM metadata_fragments WHERE entity_ref = ? AND schema_uri = ?")
      .all(f.spare, ns) as { content: string }[];
    expect(stored.map((s) => s.content)).toEqual([
      `<condition xmlns="${ns}"><grade>good</grade><assessor>Ann</assessor><checked>no</checked></condition>`,
    ]);
  });
});

describe("metadata CSV edits: the template round trip", () => {
  it("applies a downloaded template filled in (its row of labels is skipped) and ends COMPLETED", async () => {
    const res = await curator(`/api/metadata/csv-templates/download?ids=${group.id}`);
    const template = await res.text();
    const body = `${template}"daybook","${f.open2}","ACC-2","2024-02-29","12",""\n`;
    const id = await accepted(curator, body, `${E}/v7.7/actions/metadata-csv-edits`);
    expect(await progressStatus(id)).toBe("COMPLETED");
    const d = await detail(id);
    expect(d.items).toHaveLength(1);
    expect(d.items[0]?.seq).toBe(1);
    expect(await groupDocuments(f.open2)).toEqual([
      `<accession xmlns="${NS}"><number>ACC-2</number><received>2024-02-29</received><boxes>12</boxes></accession>`,
    ]);
  });
});

describe("metadata CSV edits: resumed after a restart", () => {
  it("skips the rows already recorded, by row number, even when a reference appears twice", async () => {
    const db = repo.svc.db;
    const plan = readCsvEdit(
      csv([
        ["PRESERVICA_ENTITY_REF", col("number"), col("notes")],
        [f.closed, "ROW-1", ""],
        [f.closed, "", "second row"],
      ]),
      allGroups(db),
    );
    // As if the service stopped after row 1 was recorded: row 1's item exists (its change is left out
    // here, so a second application would show).
    const action = createAction(
      db,
      { kind: "metadata-csv-edit", username: "curator", params: plan, total: plan.rows.length },
      new Date().toISOString(),
    );
    recordItems(
      db,
      action.id,
      [{ seq: 1, entity_ref: f.closed, outcome: "done", message: "row 1" }],
      CREATED,
    );
    await repo.close();
    await start();
    await repo.svc.actions.idle();

    expect(await progressStatus(action.id)).toBe("COMPLETED");
    expect((await detail(action.id)).items.map((i) => i.seq)).toEqual([1, 2]);
    expect(await groupDocuments(f.closed)).toEqual([
      `<accession xmlns="${NS}"><notes>second row</notes></accession>`,
    ]);
  });
});
