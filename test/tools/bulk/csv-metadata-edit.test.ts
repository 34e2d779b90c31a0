import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
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
} from "./fixtures.js";

interface Row {
  line: number;
  ref: string;
  title?: string;
  outcome: "add" | "update" | "unchanged" | "refused";
  reason?: string;
  changes: { group: string; field: string; before?: string; after: string }[];
}
interface Answer {
  mode: string;
  counts: { rows: number; add: number; update: number; unchanged: number; refused: number };
  rows: Row[];
  omittedRows?: number;
  refusedLines?: number[];
  job?: string;
}
const OUTCOME_ITEM = { add: "done", update: "done", unchanged: "skipped", refused: "failed" } as const;

describe.each(ERAS)("csv_metadata_edit (%s)", (era) => {
  const roots = tempDir("csv-roots-");
  const repo = useRepository({ seed: "none" });
  beforeAll(() => createAccessionGroup(repo));
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all", "--ingest-roots", roots], repo, era });
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], repo, era });

  /** Three entities of the test's own and a CSV over them: an add, an update, a refusal, an unchanged row. */
  function scenario(tag: string) {
    const fresh = newEntity(repo, `Fresh ${tag}`);
    const old = newEntity(repo, `Old ${tag}`, {
      accession: { number: `O-${tag}`, boxes: "2", status: "open" },
    });
    const same = newEntity(repo, `Same ${tag}`, { accession: { number: `S-${tag}`, status: "open" } });
    const csv = [
      HEADER,
      `"Fresh","${fresh.ref}","F-${tag}","2024-01-31","1",""`,
      `"Old","${old.ref}","","","7","closed"`,
      `"Same","${same.ref}","S-${tag}","","",""`,
      `"Bad","${old.ref}","","someday","",""`,
    ].join("\n");
    return { fresh, old, same, csv };
  }

  it("dry run: shows row by row what would change and refusals with reasons, changing nothing", async () => {
    const s = scenario("dry");
    const before = storeState(repo);
    const res = await mcp.raw("csv_metadata_edit", { csv: s.csv });
    expect(res.isError).toBeFalsy();
    expect(storeState(repo)).toBe(before);
    const a = res.structuredContent as unknown as Answer;
    expect(a.mode).toBe("dry_run");
    expect(a.counts).toEqual({ rows: 4, add: 1, update: 1, unchanged: 1, refused: 1 });
    expect(a.refusedLines).toEqual([5]);
    expect(a.rows[1]).toEqual({
      line: 3,
      ref: s.old.ref,
      title: "Old dry",
      outcome: "update",
      changes: [
        { group: "Accession", field: "boxes", before: "2", after: "7" },
        { group: "Accession", field: "status", before: "open", after: "closed" },
      ],
    });
    const text = textOf(res);
    expect(text).toContain(
      "Dry run of a metadata CSV edit (nothing was changed). 4 rows: 2 would change (1 add a document, 1 update one), 1 unchanged, 1 refused",
    );
    expect(text).toContain(
      `Line 2: asset "Fresh dry" ${s.fresh.ref} — add Accession: number "F-dry", received "2024-01-31", boxes "1", status "open"`,
    );
    expect(text).toContain(
      `Line 3: asset "Old dry" ${s.old.ref} — update Accession: boxes "2" → "7", status "open" → "closed"`,
    );
    expect(text).toContain(`Line 4: asset "Same dry" ${s.same.ref} — unchanged`);
    expect(text).toMatch(/Line 5: asset "Old dry" .* — refused: "someday" is not a date/);
  });

  it("apply: the preview is the dry run and changes nothing; confirmed, the job does exactly what it said", async () => {
    const s = scenario("apply");
    const args = { csv: s.csv, mode: "apply" };
    const before = storeState(repo);
    const p = await mcp.call<Preview>("csv_metadata_edit", args);
    expect(storeState(repo)).toBe(before);
    const plan = p.confirmationRequired;
    expect(plan.summary).toBe(
      "Apply a metadata CSV edit to 2 entities: 4 rows: 2 would change (1 add a document, 1 update one), 1 unchanged, 1 refused",
    );
    expect(plan.details.join("\n")).toContain(`update Accession: boxes "2" → "7", status "open" → "closed"`);
    expect(plan.details.join("\n")).toMatch(/Line 5: .* refused: "someday" is not a date/);
    expect(plan.targets).toEqual([
      { ref: s.fresh.ref, title: "Fresh apply" },
      { ref: s.old.ref, title: "Old apply" },
    ]);
    expect(plan.preview).toMatchObject({ rows: 4, add: 1, update: 1, unchanged: 1, refused: 1 });

    const dry = await mcp.call<Answer>("csv_metadata_edit", { csv: s.csv });
    const done = await mcp.raw("csv_metadata_edit", { ...args, confirmation: plan.token });
    expect(done.isError).toBeFalsy();
    const a = done.structuredContent as unknown as Answer;
    expect(a.job).toMatch(/^[0-9a-f-]{36}$/);
    expect(textOf(done)).toMatch(
      new RegExp(`^Metadata CSV edit: finished with 1 failure: .+ \\(job ${a.job}\\)\\.$`, "m"),
    );
    expect(textOf(done)).toContain(`"Fresh apply" ${s.fresh.ref}`);

    expect(await waitForJob(repo, a.job as string)).toBe("FINISHED_MIXED_OUTCOME");
    const items = await jobItems(repo, a.job as string);
    expect(items.map((i) => i.outcome)).toEqual(dry.rows.map((r) => OUTCOME_ITEM[r.outcome]));
    // Every value the dry run announced is now stored.
    for (const r of dry.rows.filter((x) => x.outcome === "add" || x.outcome === "update"))
      for (const c of r.changes) expect(fieldOf(repo, r.ref, c.field), `${r.ref} ${c.field}`).toBe(c.after);
    expect(fieldOf(repo, s.old.ref, "number")).toBe("O-apply");
    expect(accessionDocs(repo, s.same.ref)).toHaveLength(1);

    // The token was used: replaying it changes nothing more.
    const replay = await mcp.raw("csv_metadata_edit", { ...args, confirmation: plan.token });
    expect(replay.isError).toBe(true);
  });

  it("the dry run is the preview: its token applies the plan without a second preview", async () => {
    const s = scenario("token");
    const before = storeState(repo);
    const dry = await mcp.raw("csv_metadata_edit", { csv: s.csv });
    expect(storeState(repo)).toBe(before);
    const d = dry.structuredContent as unknown as Answer & { confirmation: string; expiresAt: string };
    expect(d.confirmation).toMatch(/^pc1\./);
    expect(textOf(dry)).toContain(
      `mode "apply" and confirmation: "${d.confirmation}" (valid until ${d.expiresAt}, once)`,
    );
    const done = await mcp.raw("csv_metadata_edit", {
      csv: s.csv,
      mode: "apply",
      confirmation: d.confirmation,
    });
    expect(done.isError, textOf(done)).toBeFalsy();
    expect((done.structuredContent as unknown as Answer).job).toMatch(/^[0-9a-f-]{36}$/);
    expect(fieldOf(repo, s.fresh.ref, "number")).toBe("F-token");
  });

  it("blames the CSV file, not an entity, when the file changed after the dry run", async () => {
    const s = scenario("edited");
    const file = join(roots, "edited.csv");
    writeFileSync(file, s.csv);
    const dry = await mcp.call<{ confirmation: string }>("csv_metadata_edit", { path: "edited.csv" });
    writeFileSync(file, s.csv.replace('"7","closed"', '"9","closed"'));
    const before = storeState(repo);
    const res = await mcp.raw("csv_metadata_edit", {
      path: "edited.csv",
      mode: "apply",
      confirmation: dry.confirmation,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      /^“the CSV file edited\.csv” \(file:edited\.csv\) changed since the preview; nothing was changed/,
    );
    expect(storeState(repo)).toBe(before);
  });

  it("refuses the confirmed call when a target changed after the preview", async () => {
    const s = scenario("stale");
    const args = { csv: s.csv, mode: "apply" };
    const p = await mcp.call<Preview>("csv_metadata_edit", args);
    // Someone edits the old record meanwhile.
    repo.svc.db
      .prepare(
        "UPDATE metadata_fragments SET content = replace(content, '<boxes>2</boxes>', '<boxes>4</boxes>') WHERE entity_ref = ?",
      )
      .run(s.old.ref);
    const before = storeState(repo);
    const stale = await mcp.raw("csv_metadata_edit", { ...args, confirmation: p.confirmationRequired.token });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/nothing/i);
    expect(storeState(repo)).toBe(before);
    expect(fieldOf(repo, s.fresh.ref, "number")).toBeUndefined();
  });

  it("reads a CSV file from the allowed folders, and refuses a path outside them", async () => {
    const s = scenario("file");
    const file = join(roots, "edit.csv");
    writeFileSync(file, s.csv);
    const res = await mcp.call<Answer>("csv_metadata_edit", { path: "edit.csv" });
    expect(res.counts).toMatchObject({ rows: 4, add: 1, update: 1 });
    const outside = await mcp.raw("csv_metadata_edit", { path: "/etc/passwd" });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/outside the folders the person allowed/);
    const both = await mcp.raw("csv_metadata_edit", { path: "edit.csv", csv: s.csv });
    expect(textOf(both)).toMatch(/either `csv`.*or `path`/);
  });

  it("says clearly what is wrong with a file the service would refuse, and when applying would change nothing", async () => {
    const ref = newEntity(repo, "Lonely").ref;
    const bad = await mcp.raw("csv_metadata_edit", {
      csv: `"PRESERVICA_ENTITY_REF","${SCHEMA};/ns:accession/ns:colour"\n"${ref}","red"`,
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/not a field of any metadata group: ".*ns:colour".*Nothing was changed/);
    const refusedOnly = `"PRESERVICA_ENTITY_REF","${col("number")}"\n"${crypto.randomUUID()}","X"`;
    const dry = await mcp.call<Answer>("csv_metadata_edit", { csv: refusedOnly });
    expect(dry.rows[0]?.reason).toMatch(/no entity .* exists/);
    const apply = await mcp.raw("csv_metadata_edit", { csv: refusedOnly, mode: "apply" });
    expect(apply.isError).toBe(true);
    expect(textOf(apply)).toMatch(/would change nothing.*Nothing was changed/);
  });

  it("bounds the answer, counting the rows left out", async () => {
    const many = Array.from({ length: 45 }, (_, i) => newEntity(repo, `Bulk ${i}`));
    const csv = [
      `"PRESERVICA_ENTITY_REF","${col("number")}"`,
      ...many.map((e, i) => `"${e.ref}","B-${i}"`),
      `"nope","X"`,
    ].join("\n");
    const res = await mcp.raw("csv_metadata_edit", { csv });
    const a = res.structuredContent as unknown as Answer;
    expect(a.counts).toMatchObject({ rows: 46, add: 45, refused: 1 });
    expect(a.rows).toHaveLength(30);
    expect(a.omittedRows).toBe(16);
    expect(a.refusedLines).toEqual([47]);
    expect(textOf(res)).toContain("… and 16 more rows not shown; refused lines: 47");
  });

  it("is not listed for a reader", async () => {
    expect((await reader.client.listTools()).tools.map((t) => t.name)).not.toContain("csv_metadata_edit");
  });
});
