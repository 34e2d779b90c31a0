import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import type { Db } from "../../../repository/store/db.js";
import { startTestRepository } from "../../helpers/repository.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { E } from "../writes/structure-helpers.js";
import { signIn, type Users } from "../writes/write-helpers.js";
import {
  asCsvRecords,
  R,
  type RunJson,
  resultCsv,
  resultJson,
  runToResult,
  value,
} from "./report-helpers.js";

/**
 * The demo collection's operations history, as an administrator finds it: completed ingests of the
 * first fonds (dated like their Ingest events, one item per file created), the metadata CSV edit that
 * added the accession records, an export of the Town Maps, a FAILED ingest whose items name the damaged
 * and the missing file, and two report runs whose results can be fetched at once and are what the
 * reports give over the store. The same on every fresh store.
 */

let repo: RunningRepository;
let db: Db;
let u: Users;
const ops = DEMO.operations;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  db = repo.svc.db;
  u = await signIn(repo);
});
afterAll(async () => {
  await repo?.close();
});

interface ActionRowLite {
  id: string;
  seq: number;
  kind: string;
  status: string;
  username: string;
  entity_ref: string | null;
  created: string;
  completed: string | null;
  total: number;
  done: number;
  failed: number;
}

describe("the seeded actions", () => {
  it("are the ones DEMO announces, in submission order, all ended", () => {
    const rows = db
      .prepare(
        "SELECT id, seq, kind, status, username, entity_ref, created, completed, total, done, failed FROM actions ORDER BY seq",
      )
      .all() as ActionRowLite[];
    expect(
      rows.map((r) => [r.id, r.kind, r.status, r.username, r.entity_ref, r.created, r.completed]),
    ).toEqual(
      ops.actions.map((a) => [a.id, a.kind, a.status, a.username, a.entityRef, a.created, a.completed]),
    );
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    const created = rows.map((r) => r.created);
    expect(created).toEqual([...created].sort());
    expect(new Set(rows.map((r) => r.kind))).toEqual(
      new Set(["ingest", "metadata-csv-edit", "export", "report"]),
    );
    for (const r of rows) {
      expect(r.completed && r.completed >= r.created, r.id).toBe(true);
      if (r.kind !== "report") expect(r.done + r.failed, r.id).toBe(r.total);
    }
  });

  it("answer 'what failed?': one ingest, whose items name the damaged file and the missing one", async () => {
    const failed = await u.manager(`${E}/actions?status=FAILED`);
    const listed = arr(parseXml(await failed.text()).root.Actions?.Action).map((a) => text(a.Id));
    expect(listed).toEqual([ops.failedIngest.id]);

    const progress = parseXml(await (await u.curator(`${E}/progress/${ops.failedIngest.id}`)).text()).root;
    expect(text(progress.Status)).toBe("FAILED");
    expect(text(progress.Message)).toMatch(
      /Nothing of package "photographs-accession-2026-01.zip" \(opex\) was ingested/,
    );
    const errors = arr(progress.Errors?.Error).map((e) => text(e));
    expect(errors).toEqual(ops.failedIngest.errors);
    expect(errors[0]).toMatch(
      /harbour-regatta-1911\.png: fixity mismatch, .* declares SHA256 [0-9a-f]{64} but the file's 18432 bytes have [0-9a-f]{64}/,
    );
    expect(errors[1]).toMatch(
      /lifeboat-launch-1912\.png is listed in the manifest .* but is not in the package/,
    );
    // Nothing was created by it: no entity is newer than the demo's own, and it left no event.
    const newest = db.prepare("SELECT max(created) AS d FROM entities").get() as { d: string };
    expect(newest.d < ops.failedIngest.created).toBe(true);
    const count = db.prepare("SELECT count(*) AS n FROM events").get() as { n: number };
    expect(count.n).toBe(DEMO.counts.events);
  });

  it("ingested the first two fonds as their Ingest events say: one item per file created", () => {
    for (const ingest of ops.ingests) {
      const event = db
        .prepare("SELECT id, date, username FROM events WHERE ref = ?")
        .get(ingest.eventRef) as {
        id: number;
        date: string;
        username: string;
      };
      const action = ops.actions.find((a) => a.id === ingest.id);
      expect(action?.completed).toBe(event.date);
      expect(action?.username).toBe(event.username);
      const createdCos = db
        .prepare(
          `SELECT e.parent_ref FROM event_actions ea JOIN entities e ON e.ref = ea.entity_ref
            WHERE ea.event_id = ? AND e.type = 'CO' ORDER BY ea.id`,
        )
        .all(event.id) as { parent_ref: string }[];
      const items = db
        .prepare("SELECT entity_ref, outcome, message FROM action_items WHERE action_id = ? ORDER BY seq")
        .all(ingest.id) as { entity_ref: string; outcome: string; message: string }[];
      expect(items.map((i) => i.entity_ref)).toEqual(createdCos.map((c) => c.parent_ref));
      expect(items.every((i) => i.outcome === "done" && / ingested$/.test(i.message))).toBe(true);
      expect(ingest.files).toBe(items.length);
      const root = db.prepare("SELECT created FROM entities WHERE ref = ?").get(ingest.rootRef) as {
        created: string;
      };
      expect(action?.created).toBe(root.created);
    }
  });

  it("holds the CSV edit of the accession records and the export of the Town Maps", async () => {
    const event = db.prepare("SELECT id, date FROM events WHERE ref = ?").get(ops.csvEdit.eventRef) as {
      id: number;
      date: string;
    };
    const edit = ops.actions.find((a) => a.id === ops.csvEdit.id);
    expect(edit?.completed).toBe(event.date);
    const edited = db
      .prepare("SELECT entity_ref FROM event_actions WHERE event_id = ? ORDER BY id")
      .all(event.id);
    const items = db
      .prepare("SELECT entity_ref FROM action_items WHERE action_id = ? ORDER BY seq")
      .all(ops.csvEdit.id);
    expect(items).toEqual(edited);
    expect(items.length).toBe(ops.csvEdit.rows);

    const exported = parseXml(await (await u.manager(`${E}/actions/exports/${ops.export.id}`)).text()).root;
    expect(text(exported.Action?.Status ?? exported.Status)).toBe("COMPLETED");
    const assets = db
      .prepare("SELECT ref FROM entities WHERE parent_ref = ? AND type = 'IO' ORDER BY id")
      .all(ops.export.folderRef) as { ref: string }[];
    const exportItems = db
      .prepare("SELECT entity_ref FROM action_items WHERE action_id = ? ORDER BY seq")
      .all(ops.export.id) as { entity_ref: string }[];
    expect(exportItems.map((i) => i.entity_ref)).toEqual([ops.export.folderRef, ...assets.map((a) => a.ref)]);
  });
});

describe("the seeded report runs", () => {
  it("are listed with their results ready: two for the manager, the curator's own for the curator", async () => {
    const all = await value<{ runs: RunJson[] }>(await u.manager(`${R}/actions/reports`));
    expect(all.runs.map((r) => r.progressToken)).toEqual([...ops.reportRuns].reverse().map((r) => r.id));
    for (const seeded of ops.reportRuns) {
      const run = all.runs.find((r) => r.progressToken === seeded.id) as RunJson;
      expect(run).toMatchObject({
        report: seeded.report,
        username: seeded.username,
        parameters: seeded.parameters,
        status: "COMPLETED",
        percentage: 100,
        rowCount: seeded.rowCount,
        created: seeded.created,
        completed: seeded.completed,
      });
    }
    const curators = await value<{ runs: RunJson[] }>(await u.curator(`${R}/actions/reports`));
    expect(curators.runs.map((r) => r.username)).toEqual(["curator"]);
  });

  it("give what the reports give over the store now (which they describe), in JSON and CSV alike", async () => {
    for (const seeded of ops.reportRuns) {
      const who = seeded.username === "manager" ? u.manager : u.curator;
      const stored = await resultJson(who, seeded.id);
      expect(stored).toMatchObject({
        progressToken: seeded.id,
        report: seeded.report,
        runBy: seeded.username,
        started: seeded.created,
        completed: seeded.completed,
        rowCount: seeded.rowCount,
      });
      const fresh = await runToResult(who, seeded.report, seeded.parameters);
      expect(stored.rows).toEqual(fresh.rows);
      expect((await resultCsv(who, seeded.id)).records).toEqual(asCsvRecords(stored));
    }
  });

  it("hold true figures: the storage adds up to every file, the 2025 history to every entity ingested in 2025", async () => {
    const storage = await resultJson(u.manager, ops.reportRuns[0]?.id as string);
    const bytes = db
      .prepare(
        "SELECT sum(b.size) AS n FROM bitstreams b JOIN generations g ON g.id = b.generation_id WHERE g.active = 1",
      )
      .get() as { n: number };
    expect(storage.rows.reduce((n, r) => n + (r.bytes as number), 0)).toBe(bytes.n);
    expect(storage.rows.map((r) => r.folderTitle)).toEqual(DEMO.rootFolders.map((f) => f.title));

    const history = await resultJson(u.curator, ops.reportRuns[1]?.id as string);
    const created = db
      .prepare(
        `SELECT count(*) AS n FROM events ev JOIN event_actions ea ON ea.event_id = ev.id
          WHERE ev.type = 'Ingest' AND ev.date BETWEEN '2025-01-01' AND '2025-12-31T23:59:59.999Z'`,
      )
      .get() as { n: number };
    const sum = history.rows.reduce(
      (n, r) => n + (r.folders as number) + (r.assets as number) + (r.contentObjects as number),
      0,
    );
    expect(sum).toBe(created.n);
    expect(history.rows.every((r) => String(r.day).startsWith("2025-"))).toBe(true);
  });

  it("are the same bytes on every fresh store", async () => {
    const other = await startTestRepository({ seed: "demo" });
    try {
      for (const seeded of ops.reportRuns) {
        for (const ext of ["json", "csv"]) {
          const file = (dir: string) => readFileSync(join(dir, "reports", `${seeded.id}.${ext}`));
          expect(file(other.svc.dataDir).equals(file(repo.svc.dataDir)), `${seeded.report}.${ext}`).toBe(
            true,
          );
        }
      }
      // Only the seeded ones: the tests above ran reports of their own on this store.
      const seeded = ops.actions.length;
      const rows = (d: Db) => d.prepare("SELECT * FROM actions WHERE seq <= ? ORDER BY seq").all(seeded);
      const items = (d: Db) =>
        d
          .prepare(
            "SELECT * FROM action_items WHERE action_id IN (SELECT id FROM actions WHERE seq <= ?) ORDER BY action_id, seq",
          )
          .all(seeded);
      expect(rows(other.svc.db)).toEqual(rows(db));
      expect(items(other.svc.db)).toEqual(items(db));
    } finally {
      await other.close();
    }
  });

  it("answer 410 once their result files are gone", async () => {
    const seeded = ops.reportRuns[0]?.id as string;
    rmSync(join(repo.svc.dataDir, "reports", `${seeded}.csv`));
    const res = await u.manager(`${R}/results/${seeded}?format=csv`);
    expect(res.status).toBe(410);
  });
});
