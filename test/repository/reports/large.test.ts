import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import { signIn, type Users } from "../writes/write-helpers.js";
import {
  ALL_TAGS,
  activeFiles,
  asCsvRecords,
  countsFile,
  entityMap,
  R,
  READER_TAGS,
  type RunJson,
  resultCsv,
  resultJson,
  runToResult,
  startRun,
  value,
} from "./report-helpers.js";

/**
 * A fixity inventory of a synthetic store of 5,000 entities (thousands of files, in folders of 50-200
 * assets): it completes, lists every file, agrees with its CSV, and while it runs the service keeps
 * answering other requests promptly (the report yields between its pages). A short pause per step
 * (PRESERVATION_REPORT_PAUSE_MS) keeps the run going long enough to watch; the yielding is the report's own.
 */

let repo: RunningRepository;
let u: Users;

beforeAll(async () => {
  repo = await startTestRepository({ seed: 5000 });
  u = await signIn(repo);
});
afterAll(async () => {
  delete process.env.PRESERVATION_REPORT_PAUSE_MS;
  await repo?.close();
});

describe("a large fixity inventory", () => {
  it("completes with every file while the service keeps answering", async () => {
    const ents = entityMap(repo.svc.db);
    const expected = activeFiles(repo.svc.db).filter((f) => countsFile(ents, f.coRef, ALL_TAGS));
    expect(expected.length).toBeGreaterThan(2000);

    process.env.PRESERVATION_REPORT_PAUSE_MS = "5";
    const token = await startRun(u.manager, "fixity-inventory");
    const answeredMeanwhile: number[] = [];
    const percentages: number[] = [];
    for (;;) {
      const run = await value<RunJson>(await u.manager(`${R}/progress/${token}`));
      if (run.status !== "ACTIVE") {
        expect(run.status).toBe("COMPLETED");
        break;
      }
      percentages.push(run.percentage);
      // Other work meanwhile: a search and a listing, each timed.
      const started = Date.now();
      const [search, reports] = await Promise.all([
        u.reader("/api/content/search?q=harbour&max=5"),
        u.reader(R),
      ]);
      expect(search.status).toBe(200);
      expect(reports.status).toBe(200);
      const stillActive = await value<RunJson>(await u.manager(`${R}/progress/${token}`));
      if (stillActive.status === "ACTIVE") answeredMeanwhile.push(Date.now() - started);
    }
    delete process.env.PRESERVATION_REPORT_PAUSE_MS;
    expect(answeredMeanwhile.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...answeredMeanwhile)).toBeLessThan(1000);
    // Progress moved through the run, never backwards.
    expect(percentages).toEqual([...percentages].sort((a, b) => a - b));
    expect(percentages.some((p) => p > 0 && p < 100)).toBe(true);

    const result = await resultJson(u.manager, token);
    expect(result.rows.length).toBe(expected.length);
    expect(new Set(result.rows.map((r) => r.contentObjectRef))).toEqual(
      new Set(expected.map((f) => f.coRef)),
    );
    const bySha = new Map(expected.map((f) => [f.coRef, f.sha256]));
    expect(result.rows.every((r) => bySha.get(r.contentObjectRef as string) === r.sha256)).toBe(true);
    const csv = await resultCsv(u.manager, token);
    expect(csv.records).toEqual(asCsvRecords(result));
  });

  it("leaves out the closed and staff folders for a reader", async () => {
    const ents = entityMap(repo.svc.db);
    const open = activeFiles(repo.svc.db).filter((f) => countsFile(ents, f.coRef, READER_TAGS));
    const result = await runToResult(u.reader, "fixity-inventory");
    expect(result.rows.length).toBe(open.length);
    expect(open.length).toBeLessThan(activeFiles(repo.svc.db).length);
  });
});
