import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import type { Db } from "../../../repository/store/db.js";
import { startTestRepository } from "../../helpers/repository.js";
import { expectRefused, signIn, type Users } from "../writes/write-helpers.js";
import {
  activeFiles,
  ancestry,
  countsFile,
  entityMap,
  R,
  READER_TAGS,
  type RunJson,
  runToResult,
  settle,
  startRun,
  value,
} from "./report-helpers.js";

/**
 * Who sees what. A report counts only what the user who runs it may read, so a reader's figures leave
 * closed and staff material out entirely (and equal the independent figures for the open tag alone);
 * a folder the caller may not read cannot be reported on. Runs belong to whoever asked for them:
 * listings, progress and results show a user their own runs, managers and administrators everyone's.
 */

let repo: RunningRepository;
let db: Db;
let u: Users;
const CLOSED_ROOT = DEMO.refs.closedCorrespondence;
const STAFF_ROOT = DEMO.refs.staffRecords;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  db = repo.svc.db;
  u = await signIn(repo);
});
afterAll(async () => {
  await repo?.close();
});

describe("a reader's reports", () => {
  it("leave closed and staff folders out of the storage report, and count only open material", async () => {
    const mine = await runToResult(u.reader, "storage-by-folder");
    const all = await runToResult(u.manager, "storage-by-folder");
    expect(mine.securityTags).toEqual(READER_TAGS);
    const refs = mine.rows.map((r) => r.folderRef);
    expect(refs).not.toContain(CLOSED_ROOT);
    expect(refs).not.toContain(STAFF_ROOT);
    expect(all.rows.map((r) => r.folderRef)).toEqual(expect.arrayContaining([CLOSED_ROOT, STAFF_ROOT]));
    expect(mine.rows.some((r) => r.securityTag !== "open")).toBe(false);

    const ents = entityMap(db);
    for (const row of mine.rows) {
      const files = activeFiles(db).filter(
        (f) =>
          countsFile(ents, f.coRef, READER_TAGS) && ancestry(ents, f.coRef).includes(row.folderRef as string),
      );
      const assets = [...ents.values()].filter(
        (e) =>
          e.type === "IO" &&
          !e.deleted &&
          e.security_tag === "open" &&
          ancestry(ents, e.ref).includes(row.folderRef as string),
      );
      expect(row.files, String(row.folderTitle)).toBe(files.length);
      expect(row.bytes).toBe(files.reduce((n, f) => n + f.size, 0));
      expect(row.assets).toBe(assets.length);
    }
    // The council's fonds holds a closed minute book: the reader's figures are smaller there.
    const council = (rows: typeof mine.rows) => rows.find((r) => r.folderRef === DEMO.rootFolders[0]?.ref);
    expect(council(mine.rows)?.assets).toBeLessThan(council(all.rows)?.assets as number);
  });

  it("leave closed and staff files out of the inventory and the format counts", async () => {
    const inventory = await runToResult(u.reader, "fixity-inventory");
    const assets = new Set(inventory.rows.map((r) => r.assetRef));
    for (const hidden of [
      DEMO.refs.closedAsset,
      DEMO.refs.staffAsset,
      DEMO.refs.councilMinutes1866Confidential,
    ]) {
      expect(assets.has(hidden)).toBe(false);
    }
    expect(assets.has(DEMO.refs.pdfAsset)).toBe(true);
    const ents = entityMap(db);
    const open = activeFiles(db).filter((f) => countsFile(ents, f.coRef, READER_TAGS));
    expect(inventory.rows.length).toBe(open.length);
    expect(JSON.stringify(inventory.rows)).not.toMatch(/Closed Correspondence|Staff Records/);

    const formats = await runToResult(u.reader, "assets-by-format");
    expect(formats.rows.reduce((n, r) => n + (r.files as number), 0)).toBe(open.length);
    const everything = await runToResult(u.manager, "assets-by-format");
    expect(everything.rows.reduce((n, r) => n + (r.files as number), 0)).toBe(DEMO.counts.bitstreams);
  });

  it("leave changes to closed material out of the history", async () => {
    const mine = await runToResult(u.reader, "changes-by-user");
    const all = await runToResult(u.manager, "changes-by-user");
    const actions = (rows: typeof mine.rows) => rows.reduce((n, r) => n + (r.actions as number), 0);
    const openActions = db
      .prepare(
        "SELECT count(*) AS n FROM event_actions ea JOIN entities e ON e.ref = ea.entity_ref WHERE e.security_tag = 'open'",
      )
      .get() as { n: number };
    expect(actions(mine.rows)).toBe(openActions.n);
    expect(actions(all.rows)).toBeGreaterThan(openActions.n);
    const history = await runToResult(u.reader, "ingest-history");
    const created = history.rows.reduce(
      (n, r) => n + (r.folders as number) + (r.assets as number) + (r.contentObjects as number),
      0,
    );
    expect(created).toBe(DEMO.counts.byTag.open);
  });

  it("cannot be run on a folder the reader may not read (403), and nothing is started", async () => {
    for (const [report, folder] of [
      ["fixity-inventory", CLOSED_ROOT],
      ["storage-by-folder", STAFF_ROOT],
    ] as const) {
      await expectRefused(
        repo,
        () =>
          u.reader(`${R}/${report}/run`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ folder }),
          }),
        403,
        new RegExp(`may not read folder ${folder}`),
      );
    }
  });
});

describe("runs belong to who asked for them", () => {
  const t = {} as Record<"curator" | "reader", string>;

  beforeAll(async () => {
    t.curator = await startRun(u.curator, "assets-by-format");
    t.reader = await startRun(u.reader, "retention-summary");
    await settle(u.curator, t.curator);
    await settle(u.reader, t.reader);
  });

  async function runs(who: typeof u.manager, query = ""): Promise<RunJson[]> {
    const v = await value<{ runs: RunJson[]; paging: { totalResults: number } }>(
      await who(`${R}/actions/reports${query}`),
    );
    expect(v.paging.totalResults).toBe(v.runs.length);
    return v.runs;
  }

  it("lists a user's own runs only, and everyone's for a manager", async () => {
    const curators = await runs(u.curator);
    expect(new Set(curators.map((r) => r.username))).toEqual(new Set(["curator"]));
    expect(curators.map((r) => r.progressToken)).toContain(t.curator);
    // The demo's own history holds a run by the curator, too.
    expect(curators.map((r) => r.progressToken)).toContain(
      DEMO.operations.reportRuns.find((r) => r.username === "curator")?.id,
    );
    const readers = await runs(u.reader);
    expect(new Set(readers.map((r) => r.username))).toEqual(new Set(["reader"]));

    const everyone = await runs(u.manager);
    const total = db.prepare("SELECT count(*) AS n FROM actions WHERE kind = 'report'").get() as {
      n: number;
    };
    expect(everyone.length).toBe(total.n);
    expect(new Set(everyone.map((r) => r.username))).toEqual(new Set(["manager", "curator", "reader"]));
    expect((await runs(u.manager, "?username=reader")).map((r) => r.progressToken)).toEqual(
      readers.map((r) => r.progressToken),
    );
    // Newest first.
    const created = everyone.map((r) => r.created);
    expect(created).toEqual([...created].sort().reverse());
  });

  it("refuses another user's runs to a non-manager: listing (403), progress and result (403)", async () => {
    await expectRefused(
      repo,
      () => u.curator(`${R}/actions/reports?username=reader`),
      403,
      /managers and administrators/,
    );
    await expectRefused(repo, () => u.reader(`${R}/progress/${t.curator}`), 403, /started by curator/);
    await expectRefused(
      repo,
      () => u.reader(`${R}/results/${t.curator}?format=csv`),
      403,
      /started by curator/,
    );
    // A manager may see both.
    expect((await u.manager(`${R}/results/${t.reader}`)).status).toBe(200);
    expect((await u.manager(`${R}/progress/${t.curator}`)).status).toBe(200);
  });

  it("needs a token for every route (401)", async () => {
    for (const [method, path] of [
      ["GET", R],
      ["GET", `${R}/assets-by-format`],
      ["POST", `${R}/assets-by-format/run`],
      ["GET", `${R}/progress/${t.curator}`],
      ["GET", `${R}/actions/reports`],
      ["GET", `${R}/results/${t.curator}`],
    ]) {
      const res = await fetch(`${repo.url}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
    }
  });
});
