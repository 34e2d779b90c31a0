import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { accepted, E, settled } from "../writes/structure-helpers.js";
import { expectRefused, sendXml, signIn, type Users } from "../writes/write-helpers.js";
import {
  ALL_TAGS,
  activeFiles,
  countsFile,
  entityMap,
  R,
  type RunJson,
  resultJson,
  runToResult,
  settle,
  startRun,
  value,
} from "./report-helpers.js";

/**
 * The Report API's requests and their refusals: the definitions, parameters sent as JSON, as a form or
 * in the query string, every kind of bad parameter (one 400 naming each and the accepted ones, nothing
 * started), unknown reports, folders and tokens, and a result's states: 404 while the run is going,
 * 409 once it failed or was terminated, 410 when its file is gone. A run stopped with the service is
 * run again at the next start and completes.
 */

let repo: RunningRepository;
let u: Users;
const dataDir = tempDir("reports-requests-");

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo", dataDir, actionConcurrency: 1 });
  u = await signIn(repo);
});
afterAll(async () => {
  delete process.env.PRESERVATION_REPORT_PAUSE_MS;
  await repo?.close();
});

const post = (report: string, init: RequestInit = {}, query = "") =>
  u.manager(`${R}/${report}/run${query}`, { method: "POST", ...init });
/** Files of live assets, as the manager's fixity inventory lists them (computed from the tables). */
const liveFiles = () => {
  const ents = entityMap(repo.svc.db);
  return activeFiles(repo.svc.db).filter((f) => countsFile(ents, f.coRef, ALL_TAGS)).length;
};
const json = (body: unknown): RequestInit => ({
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body),
});

interface Definition {
  id: string;
  name: string;
  description: string;
  parameters: { name: string; type: string; required: boolean; description: string; default?: string }[];
  columns: { name: string; title: string; type: string }[];
  outputFormats: string[];
  run: string;
}

describe("definitions", () => {
  it("lists the six reports with their parameters, columns and output formats", async () => {
    const v = await value<{ reports: Definition[]; outputFormats: string[] }>(await u.reader(R));
    expect(v.outputFormats).toEqual(["json", "csv"]);
    expect(v.reports.map((r) => r.id)).toEqual([
      "assets-by-format",
      "storage-by-folder",
      "fixity-inventory",
      "ingest-history",
      "retention-summary",
      "changes-by-user",
    ]);
    const byId = new Map(v.reports.map((r) => [r.id, r]));
    expect(byId.get("changes-by-user")?.parameters.map((p) => [p.name, p.type, p.required])).toEqual([
      ["from", "date", false],
      ["to", "date", false],
      ["user", "username", false],
    ]);
    expect(byId.get("fixity-inventory")?.parameters.map((p) => p.name)).toEqual(["folder"]);
    expect(byId.get("fixity-inventory")?.columns.map((c) => c.name)).toEqual([
      "path",
      "assetRef",
      "assetTitle",
      "contentObjectRef",
      "generation",
      "filename",
      "size",
      "md5",
      "sha256",
    ]);
    for (const r of v.reports) {
      expect(r.run).toBe(`${repo.url}${R}/${r.id}/run`);
      expect(r.description.length).toBeGreaterThan(40);
      const one = await value<Definition>(await u.reader(`${R}/${r.id}`));
      expect(one).toEqual(r);
    }
  });

  it("answers 404 for an unknown report, naming the ones there are", async () => {
    await expectRefused(
      repo,
      () => u.reader(`${R}/no-such-report`),
      404,
      /assets-by-format, storage-by-folder/,
    );
    await expectRefused(repo, () => post("no-such-report"), 404, /the reports are/);
    const get = await u.manager(`${R}/assets-by-format/run`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toMatch(/POST/);
  });
});

describe("parameters", () => {
  it("are taken from a JSON body, a form body or the query string, and normalised", async () => {
    const fromJson = await settle(
      u.manager,
      await startRun(u.manager, "ingest-history", { from: "2023-01-01" }),
    );
    expect(fromJson.parameters).toEqual({ from: "2023-01-01T00:00:00.000Z" });
    const form = await post("changes-by-user", {
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "user=curator&to=2024-06-30T12:00:00%2B02:00",
    });
    const fromForm = await value<RunJson>(form, 202);
    expect(fromForm.parameters).toEqual({ user: "curator", to: "2024-06-30T10:00:00.000Z" });
    const fromQuery = await value<RunJson>(
      await post("storage-by-folder", {}, `?folder=${DEMO.refs.photographs.toUpperCase()}`),
      202,
    );
    expect(fromQuery.parameters).toEqual({ folder: DEMO.refs.photographs });
    await repo.svc.actions.idle();
    expect((await settle(u.manager, fromQuery.progressToken)).status).toBe("COMPLETED");
  });

  it("refuses bad parameters with one 400 naming each and the accepted ones; nothing is started", async () => {
    const cases: [string, unknown, RegExp[]][] = [
      [
        "ingest-history",
        { from: "soon", colour: "red" },
        [
          /unknown parameter "colour"/,
          /from "soon" is not a date/,
          /It accepts: from \(date or date-time, optional\), to/,
        ],
      ],
      [
        "ingest-history",
        { from: "2025-02-01", to: "2025-01-01" },
        [/from \(2025-02-01T00:00:00.000Z\) is after to/],
      ],
      [
        "fixity-inventory",
        { folder: "not-a-ref" },
        [/folder "not-a-ref" is not a folder reference/, /It accepts: folder/],
      ],
      ["changes-by-user", { user: "two words" }, [/user "two words" is not a user name/]],
      [
        "assets-by-format",
        { folder: DEMO.refs.photographs },
        [/unknown parameter "folder"/, /takes no parameters/],
      ],
      ["changes-by-user", { from: ["2025-01-01", "2025-02-01"] }, [/from was given different values/]],
    ];
    for (const [report, body, messages] of cases) {
      const message = await expectRefused(repo, () => post(report, json(body)), 400, messages[0] as RegExp);
      for (const m of messages) expect(message, report).toMatch(m);
      expect(message).toContain(`Report "${report}"`);
    }
    await expectRefused(
      repo,
      () => post("ingest-history", { headers: { "Content-Type": "application/json" }, body: "{not json" }),
      400,
      /not valid JSON/,
    );
  });

  it("refuses a folder that does not exist or is not a folder (404)", async () => {
    await expectRefused(
      repo,
      () => post("fixity-inventory", json({ folder: "00000000-0000-4000-8000-000000000000" })),
      404,
      /No folder 00000000-0000-4000-8000-000000000000/,
    );
    await expectRefused(
      repo,
      () => post("storage-by-folder", json({ folder: DEMO.refs.pdfAsset })),
      404,
      /not a folder/,
    );
  });
});

describe("progress tokens and listings", () => {
  it("refuses malformed, unknown and non-report tokens", async () => {
    await expectRefused(repo, () => u.manager(`${R}/progress/nope`), 400, /not a progress token/);
    await expectRefused(
      repo,
      () => u.manager(`${R}/results/00000000-0000-4000-8000-000000000000`),
      404,
      /No report run with progress token/,
    );
    const ingest = DEMO.operations.failedIngest.id;
    await expectRefused(
      repo,
      () => u.manager(`${R}/progress/${ingest}`),
      404,
      new RegExp(`ingest action, not a report run; poll it at /api/entity/progress/${ingest}`),
    );
  });

  it("refuses bad listing filters and formats", async () => {
    await expectRefused(
      repo,
      () => u.manager(`${R}/actions/reports?status=DONE`),
      400,
      /status must be one of/,
    );
    await expectRefused(
      repo,
      () => u.manager(`${R}/actions/reports?report=nope`),
      400,
      /report must be one of/,
    );
    await expectRefused(repo, () => u.manager(`${R}/actions/reports?max=0`), 400, /max must be at least 1/);
    const seeded = DEMO.operations.reportRuns[0]?.id as string;
    await expectRefused(
      repo,
      () => u.manager(`${R}/results/${seeded}?format=xml`),
      400,
      /format must be one of json, csv/,
    );
    const completed = await value<{ runs: RunJson[] }>(
      await u.manager(`${R}/actions/reports?status=completed&report=storage-by-folder&max=1`),
    );
    expect(completed.runs).toHaveLength(1);
    expect(completed.runs[0]).toMatchObject({ status: "COMPLETED", report: "storage-by-folder" });
  });
});

describe("a result's states", () => {
  it("is 404 while the run goes on, with progress moving; the service answers meanwhile", async () => {
    process.env.PRESERVATION_REPORT_PAUSE_MS = "15";
    const token = await startRun(u.manager, "fixity-inventory");
    let sawProgress = false;
    for (;;) {
      const run = await value<RunJson>(await u.manager(`${R}/progress/${token}`));
      if (run.status !== "ACTIVE") break;
      if (run.percentage > 0 && run.percentage < 100) sawProgress = true;
      const early = await u.manager(`${R}/results/${token}`);
      if (early.status === 404) {
        expect(((await early.json()) as { message: string }).message).toMatch(
          /has no result yet \(status ACTIVE/,
        );
      } else expect(early.status).toBe(200); // finished between the two requests
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    delete process.env.PRESERVATION_REPORT_PAUSE_MS;
    expect(sawProgress).toBe(true);
    expect((await resultJson(u.manager, token)).rows.length).toBe(DEMO.counts.bitstreams);
  });

  it("is 409 once the run was terminated, and its partial files are gone", async () => {
    process.env.PRESERVATION_REPORT_PAUSE_MS = "50";
    const token = await startRun(u.manager, "fixity-inventory");
    await new Promise((resolve) => setTimeout(resolve, 120));
    const { seq } = repo.svc.db.prepare("SELECT seq FROM actions WHERE id = ?").get(token) as { seq: number };
    const res = await u.manager(`/sdb/rest/workflow/instances/terminate?workflowInstanceIds=${seq}`, {
      method: "POST",
    });
    expect(res.status, await res.text()).toBe(202);
    await repo.svc.actions.idle();
    delete process.env.PRESERVATION_REPORT_PAUSE_MS;
    expect((await settle(u.manager, token)).status).toBe("ABORTED");
    await expectRefused(repo, () => u.manager(`${R}/results/${token}`), 409, /ended ABORTED/);
    expect(readdirSync(join(dataDir, "reports")).filter((f) => f.startsWith(token))).toEqual([]);
  });

  it("is 409 with the run's message when the folder went away before the run began", async () => {
    // The single runner slot is busy; the folder's deletion is queued before the report on it.
    process.env.PRESERVATION_REPORT_PAUSE_MS = "20";
    const busy = await startRun(u.manager, "fixity-inventory");
    const folder = DEMO.refs.staffRecords;
    const deletion = await accepted(
      await sendXml(
        u.manager,
        "DELETE",
        `${E}/structural-objects/${folder}`,
        `<DeletionAction xmlns="http://preservica.com/EntityAPI/v7.7"><Submission><Comment>gone</Comment></Submission></DeletionAction>`,
      ),
    );
    await accepted(
      await sendXml(
        u.manager,
        "PUT",
        `${E}/actions/deletions/${deletion}`,
        `<DeletionAction xmlns="http://preservica.com/EntityAPI/v7.7"><Approval><Approved>true</Approved><Comment>ok</Comment></Approval></DeletionAction>`,
      ),
    );
    const late = await startRun(u.manager, "storage-by-folder", { folder });
    await repo.svc.actions.idle();
    delete process.env.PRESERVATION_REPORT_PAUSE_MS;
    expect((await settled(u.manager, deletion)).status).toBe("COMPLETED");
    expect((await settle(u.manager, busy)).status).toBe("COMPLETED");
    const run = await settle(u.manager, late);
    expect(run.status).toBe("FAILED");
    expect(run.message).toMatch(new RegExp(`Folder ${folder} no longer exists`));
    const message = await expectRefused(
      repo,
      () => u.manager(`${R}/results/${late}?format=csv`),
      409,
      /ended FAILED/,
    );
    expect(message).toContain(run.message as string);
  });

  it("is 410 when the result file is no longer kept", async () => {
    const result = await runToResult(u.manager, "retention-summary");
    rmSync(join(dataDir, "reports", `${result.progressToken}.json`));
    await expectRefused(repo, () => u.manager(`${R}/results/${result.progressToken}`), 410, /no longer kept/);
    // The CSV is still there.
    expect((await u.manager(`${R}/results/${result.progressToken}?format=csv`)).status).toBe(200);
  });
});

describe("a run interrupted by a stop", () => {
  it("is run again from the start at the next start, and completes", async () => {
    process.env.PRESERVATION_REPORT_PAUSE_MS = "40";
    const token = await startRun(u.manager, "fixity-inventory");
    await new Promise((resolve) => setTimeout(resolve, 150));
    await repo.close();
    delete process.env.PRESERVATION_REPORT_PAUSE_MS;
    const stopped = repo.svc;
    expect(existsSync(join(dataDir, "reports", `${token}.json`))).toBe(false);
    repo = await startTestRepository({ seed: "demo", dataDir, actionConcurrency: 1 });
    expect(repo.seeded).toBe(false);
    expect(repo.svc).not.toBe(stopped);
    u = await signIn(repo);
    const run = await settle(u.manager, token);
    expect(run.status).toBe("COMPLETED");
    expect((await resultJson(u.manager, token)).rows.length).toBe(liveFiles());
    expect(readdirSync(join(dataDir, "reports")).filter((f) => f.endsWith(".part"))).toEqual([]);
  });
});
