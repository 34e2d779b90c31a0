import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { CsvFileError, decodeCsv, MetadataCsvApi, valueProblem } from "../../src/api/metadata-csv.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";
import {
  accessionDocs,
  col,
  createAccessionGroup,
  fieldOf,
  HEADER,
  jobItems,
  newEntity,
  SCHEMA,
  storeState,
  waitForJob,
} from "../tools/bulk/fixtures.js";

describe("Metadata CSV client", () => {
  let repo: RunningRepository;
  let session: Session;
  let api: MetadataCsvApi;
  let groupId: string;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    groupId = await createAccessionGroup(repo);
    session = new Session({ url: repo.url, ...DEMO_USERS.curator, keepAlive: false });
    api = new MetadataCsvApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("reads the groups and one group's fields, numbers and booleans as the service sends them", async () => {
    const groups = await api.groups();
    expect(groups).toEqual([
      { id: groupId, name: "Accession", description: "Accession details", schemaUri: SCHEMA },
    ]);
    const g = await api.group(groupId);
    expect(g.fields.map((f) => [f.id, f.type, f.minOccurs])).toEqual([
      ["number", "STRING", 0],
      ["received", "DATE", 0],
      ["boxes", "NUMBER", 0],
      ["status", "STRING", 1],
    ]);
    expect(g.fields[0]?.maxLength).toBe(20);
    expect(g.fields[3]).toMatchObject({ values: ["open", "closed"], defaultValue: "open" });
  });

  it("dry-runs row by row without changing anything, and the service then does exactly that", async () => {
    const fresh = newEntity(repo, "Fresh asset");
    const existing = newEntity(repo, "Has a record", {
      accession: { number: "A-1", boxes: "2", status: "open" },
    });
    const folder = newEntity(repo, "A folder", { type: "SO" });
    const co = newEntity(repo, "A file", { type: "CO" });
    const csv = [
      HEADER,
      `"x","${fresh.ref}","ACC-1","2024-01-31","3",""`,
      `"x","${existing.ref}","A-1","","5","closed"`,
      `"x","${existing.ref}","","","5",""`,
      `"x","${folder.ref}","F-1","2024-02-30","",""`,
      `"x","not-a-ref","N","","",""`,
      `"x","${crypto.randomUUID()}","N","","",""`,
      `"x","${co.ref}","N","","",""`,
      `"x","${folder.ref}","F-2","","","open"`,
    ].join("\n");
    const before = storeState(repo);
    const plan = await api.dryRun(csv);
    expect(storeState(repo)).toBe(before);
    expect(plan.counts).toEqual({ rows: 8, add: 2, update: 1, unchanged: 1, refused: 4 });
    const [r1, r2, r3, r4, r5, r6, r7, r8] = plan.rows;
    expect(r1).toMatchObject({ line: 2, outcome: "add", title: "Fresh asset", entityType: "IO" });
    expect(r1?.changes).toEqual([
      { group: "Accession", schemaUri: SCHEMA, field: "number", after: "ACC-1" },
      { group: "Accession", schemaUri: SCHEMA, field: "received", after: "2024-01-31" },
      { group: "Accession", schemaUri: SCHEMA, field: "boxes", after: "3" },
      { group: "Accession", schemaUri: SCHEMA, field: "status", after: "open" },
    ]);
    expect(r2).toMatchObject({ outcome: "update" });
    expect(r2?.changes.map((c) => [c.field, c.before, c.after])).toEqual([
      ["boxes", "2", "5"],
      ["status", "open", "closed"],
    ]);
    // The third row sees the second's values: nothing left to change.
    expect(r3).toMatchObject({ outcome: "unchanged", changes: [] });
    expect(r4).toMatchObject({ outcome: "refused", title: "A folder", entityType: "SO" });
    expect(r4?.reason).toMatch(/"2024-02-30" is not a date/);
    expect(r5?.reason).toMatch(/is not a UUID/);
    expect(r6?.reason).toMatch(/no entity .* exists/);
    expect(r7?.reason).toMatch(/content object/);
    expect(r8).toMatchObject({ outcome: "add", title: "A folder" });
    expect(plan.targets.map((t) => t.ref).sort()).toEqual([fresh.ref, existing.ref, folder.ref].sort());

    const token = await api.submit(csv);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(await waitForJob(repo, token)).toBe("FINISHED_MIXED_OUTCOME");
    const items = await jobItems(repo, token);
    const expected = { add: "done", update: "done", unchanged: "skipped", refused: "failed" } as const;
    expect(items.map((i) => i.outcome)).toEqual(plan.rows.map((r) => expected[r.outcome]));
    expect(fieldOf(repo, fresh.ref, "number")).toBe("ACC-1");
    expect(fieldOf(repo, fresh.ref, "status")).toBe("open");
    expect(fieldOf(repo, existing.ref, "boxes")).toBe("5");
    expect(fieldOf(repo, existing.ref, "status")).toBe("closed");
    expect(fieldOf(repo, folder.ref, "number")).toBe("F-2");
    expect(accessionDocs(repo, existing.ref)).toHaveLength(1);

    // A second dry run of the same file now finds nothing to change on the rows that were applied.
    const again = await api.dryRun(csv);
    expect(again.counts).toMatchObject({ add: 0, update: 0, refused: 4 });
    expect(again.digest).not.toBe(plan.digest);
  });

  it("refuses a file the service would refuse, saying what to fix", async () => {
    const ref = newEntity(repo, "Any").ref;
    await expect(
      api.dryRun(`"PRESERVICA_ENTITY_REF","${SCHEMA};/ns:accession/ns:colour"\n"${ref}","red"`),
    ).rejects.toThrow(
      /not a field of any metadata group: ".*ns:colour"\. Known columns of the groups named: .*ns:number/,
    );
    await expect(api.dryRun(`"${col("number")}"\n"A"`)).rejects.toThrow(/no PRESERVICA_ENTITY_REF column/);
    await expect(api.dryRun(`"PRESERVICA_ENTITY_REF"\n"${ref}"`)).rejects.toThrow(
      /no metadata group field columns/,
    );
    await expect(api.dryRun(`"PRESERVICA_ENTITY_REF","${col("number")}"`)).rejects.toThrow(/no rows/);
    await expect(api.dryRun(`"PRESERVICA_ENTITY_REF","${col("number")}"\n"a\u0000"`)).rejects.toThrow(/NUL/);
    await expect(
      api.dryRun(`"PRESERVICA_ENTITY_REF","${col("number")}"\n"${ref}","unterminated`),
    ).rejects.toBeInstanceOf(CsvFileError);
    // The service agrees: the same unknown column is its 400.
    await expect(
      api.submit(`"PRESERVICA_ENTITY_REF","${SCHEMA};/ns:accession/ns:colour"\n"${ref}","red"`),
    ).rejects.toMatchObject({
      status: 400,
    });
  });

  it("checks values as the service does and decodes Latin-1 files", () => {
    const f = { id: "n", name: "n", minOccurs: 0, maxOccurs: 1, defaultValue: "" };
    expect(valueProblem({ ...f, type: "NUMBER" }, "4.5e3")).toBeUndefined();
    expect(valueProblem({ ...f, type: "NUMBER" }, "four")).toMatch(/not a number/);
    expect(valueProblem({ ...f, type: "DATE" }, "2024-02-29")).toBeUndefined();
    expect(valueProblem({ ...f, type: "DATE" }, "2023-02-29")).toMatch(/not a date/);
    expect(valueProblem({ ...f, type: "STRING", maxLength: 3 }, "abcd")).toMatch(/at most 3/);
    expect(decodeCsv(Buffer.from("caf\xe9", "latin1"))).toBe("café");
    expect(decodeCsv(Buffer.from("café", "utf8"))).toBe("café");
  });
});
