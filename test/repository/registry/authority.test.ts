import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * Authority records (`/api/reference-metadata`) over HTTP: tables (managers and administrators create and
 * delete them), records (Update Metadata on the record's tag), CSV import all-or-nothing, visibility by
 * security tag, and a config event for each change.
 */

const R = "/api/reference-metadata";
const JSON_TYPE = { "Content-Type": "application/json" };
type Get = ReturnType<typeof authed>;

let repo: RunningRepository;
let manager: Get;
let curator: Get;
let reader: Get;

beforeAll(async () => {
  repo = await startTestRepository();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});
afterAll(async () => {
  await repo?.close();
});

const post = (as: Get, path: string, body: unknown) =>
  as(path, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
const csv = (as: Get, path: string, text: string) =>
  as(path, { method: "POST", headers: { "Content-Type": "text/csv" }, body: text });

async function newTable(body: Record<string, unknown>): Promise<string> {
  const res = await post(manager, `${R}/tables`, body);
  expect(res.status).toBe(201);
  return ((await res.json()) as { ref: string }).ref;
}

function events(category: string) {
  return repo.svc.db
    .prepare("SELECT username, command_type, summary FROM config_events WHERE category = ? ORDER BY id")
    .all(category) as { username: string; command_type: string; summary: string }[];
}

describe("tables", () => {
  it("needs a token (401) and the manager or admin role to create (403 otherwise)", async () => {
    expect((await fetch(`${repo.url}${R}/tables`)).status).toBe(401);
    const before = storeHash(repo.svc.db);
    expect((await post(curator, `${R}/tables`, { name: "Places", securityDescriptor: "open" })).status).toBe(
      403,
    );
    expect((await post(reader, `${R}/tables`, { name: "Places", securityDescriptor: "open" })).status).toBe(
      403,
    );
    expect((await post(manager, `${R}/tables`, { securityDescriptor: "open" })).status).toBe(400);
    expect((await post(manager, `${R}/tables`, { name: "X", securityDescriptor: "nosuchtag" })).status).toBe(
      400,
    );
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("creates a table, lists and reads it; a closed table is hidden from a reader", async () => {
    const places = await newTable({ name: "Places", securityDescriptor: "open", displayField: "placename" });
    const secret = await newTable({
      name: "Informants",
      securityDescriptor: "closed",
      description: "People interviewed",
    });
    const mine = (await (await manager(`${R}/tables`)).json()) as { tables: { ref: string; name: string }[] };
    expect(mine.tables.map((t) => t.ref)).toEqual(expect.arrayContaining([places, secret]));
    const theirs = (await (await reader(`${R}/tables`)).json()) as { tables: { ref: string }[] };
    expect(theirs.tables.map((t) => t.ref)).toContain(places);
    expect(theirs.tables.map((t) => t.ref)).not.toContain(secret);
    expect((await reader(`${R}/tables/${secret}`)).status).toBe(404);
    const one = (await (await manager(`${R}/tables/${secret}`)).json()) as Record<string, unknown>;
    expect(one).toMatchObject({
      ref: secret,
      name: "Informants",
      securityDescriptor: "closed",
      description: "People interviewed",
    });
    expect(events("METADATA").some((e) => e.summary === "Created authority table Places (open)")).toBe(true);
  });

  it("deletes a table with its records (managers only)", async () => {
    const ref = await newTable({ name: "Temporary", securityDescriptor: "open" });
    await post(manager, `${R}/tables/${ref}/records`, {
      securityDescriptor: "open",
      fieldValues: [{ name: "a", value: "1" }],
    });
    expect((await curator(`${R}/tables/${ref}`, { method: "DELETE" })).status).toBe(403);
    expect((await manager(`${R}/tables/${ref}`, { method: "DELETE" })).status).toBe(204);
    expect((await manager(`${R}/tables/${ref}`)).status).toBe(404);
    const left = repo.svc.db
      .prepare("SELECT count(*) AS n FROM authority_records WHERE table_ref = ?")
      .get(ref) as {
      n: number;
    };
    expect(left.n).toBe(0);
  });
});

describe("records", () => {
  it("adds, reads, lists and deletes a record; a reader may not add or delete (403)", async () => {
    const table = await newTable({ name: "Subjects", securityDescriptor: "open", displayField: "term" });
    const body = {
      securityDescriptor: "open",
      fieldValues: [
        { name: "term", value: "Shipbuilding" },
        { name: "id", value: 7 },
      ],
    };
    const before = storeHash(repo.svc.db);
    expect((await post(reader, `${R}/tables/${table}/records`, body)).status).toBe(403);
    expect(storeHash(repo.svc.db)).toBe(before);

    const added = await post(curator, `${R}/tables/${table}/records`, body);
    expect(added.status).toBe(201);
    const { ref } = (await added.json()) as { ref: string };
    const record = (await (await reader(`${R}/records/${ref}`)).json()) as Record<string, unknown>;
    expect(record).toEqual({
      ref,
      tableRef: table,
      securityDescriptor: "open",
      fieldValues: [
        { name: "term", value: "Shipbuilding" },
        { name: "id", value: "7" },
      ],
    });
    const expanded = (await (await reader(`${R}/tables/${table}/records?expand=true`)).json()) as {
      records: { ref: string }[];
    };
    expect(expanded.records).toEqual([record]);
    const brief = (await (await reader(`${R}/tables/${table}/records`)).json()) as { records: unknown[] };
    expect(brief.records).toEqual([{ ref, securityDescriptor: "open", displayValue: "Shipbuilding" }]);

    expect((await reader(`${R}/records/${ref}`, { method: "DELETE" })).status).toBe(403);
    expect((await curator(`${R}/records/${ref}`, { method: "DELETE" })).status).toBe(204);
    expect((await reader(`${R}/records/${ref}`)).status).toBe(404);
    const kinds = events("METADATA")
      .filter((e) => e.summary.includes("Subjects"))
      .map((e) => [e.username, e.command_type]);
    expect(kinds).toEqual([
      ["manager", "CREATE"],
      ["curator", "CREATE"],
      ["curator", "DELETE"],
    ]);
  });

  it("hides closed records from a reader and refuses fields the table does not define", async () => {
    const table = await newTable({
      name: "Vessels",
      securityDescriptor: "open",
      fields: [{ name: "name" }, { name: "built" }],
    });
    const closed = await post(manager, `${R}/tables/${table}/records`, {
      securityDescriptor: "closed",
      fieldValues: [{ name: "name", value: "Unnamed hulk" }],
    });
    const { ref } = (await closed.json()) as { ref: string };
    expect((await reader(`${R}/records/${ref}`)).status).toBe(404);
    const seen = (await (await reader(`${R}/tables/${table}/records?expand=true`)).json()) as {
      records: unknown[];
    };
    expect(seen.records).toEqual([]);
    const before = storeHash(repo.svc.db);
    const bad = await post(manager, `${R}/tables/${table}/records`, {
      fieldValues: [{ name: "colour", value: "red" }],
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/name, built/);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("imports records from CSV, all or none", async () => {
    const table = await newTable({ name: "Parishes", securityDescriptor: "open" });
    const res = await csv(
      manager,
      `${R}/tables/${table}/records`,
      'name,county\r\nSt Mary,Devon\r\n"St John, Baptist",Somerset\r\nHoly Trinity,\r\n',
    );
    expect(res.status).toBe(201);
    const body = (await res.json()) as { imported: number; records: { ref: string }[] };
    expect(body.imported).toBe(3);
    const list = (await (await manager(`${R}/tables/${table}/records?expand=true`)).json()) as {
      records: { fieldValues: { name: string; value: string }[] }[];
    };
    expect(list.records.map((r) => r.fieldValues)).toEqual([
      [
        { name: "name", value: "St Mary" },
        { name: "county", value: "Devon" },
      ],
      [
        { name: "name", value: "St John, Baptist" },
        { name: "county", value: "Somerset" },
      ],
      [{ name: "name", value: "Holy Trinity" }],
    ]);
    expect(
      events("METADATA").some(
        (e) => e.summary === "Imported 3 records into authority table Parishes from CSV",
      ),
    ).toBe(true);

    const before = storeHash(repo.svc.db);
    expect((await csv(manager, `${R}/tables/${table}/records`, "name,county\nA,B\nC\n")).status).toBe(400);
    expect((await csv(manager, `${R}/tables/${table}/records`, 'name\n"unclosed\n')).status).toBe(400);
    expect((await csv(manager, `${R}/tables/${table}/records`, "name,name\nA,B\n")).status).toBe(400);
    expect((await csv(reader, `${R}/tables/${table}/records`, "name\nA\n")).status).toBe(403);
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});
