import { ProtocolErrorCode } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../repository/store/entities/write.js";
import { CSV_MIME, LISTED_RUNS, MAX_REPORT_BYTES } from "../../src/resources/reports.js";
import { reportUri } from "../../src/resources/uris.js";
import { formatBytes } from "../../src/tools/support/text.js";
import { ERAS, textOf } from "../helpers/mcp.js";
import { authed, login } from "../helpers/repository.js";
import { useMcp, useRepository } from "../helpers/use-mcp.js";

/**
 * preservation://report/{job}: a real MCP client, our real server, the real repository service. Each report
 * is run through the `reports` tool and followed with `job_status`; what the resource returns is compared
 * with what the service itself serves at /api/reports/results/{token}?format=csv, fetched over HTTP here.
 */

const FLAGS = ["--toolsets", "all"];
/** A top-level folder whose title needs CSV quoting and is not ASCII, so byte-for-byte means something. */
const ODD_TITLE = 'Café "Zürich", 1898–1902 — ñ';
/** Files in the oversized fixture: with long names, their fixity inventory is well over the cap. */
const BIG_FILES = 3_000;

type Contents = { uri: string; mimeType?: string; text?: string; blob?: string }[];
type Failure = { code: number; message: string; data?: Record<string, unknown> };

const repo = useRepository({ seed: "demo" });
let service: (path: string, init?: RequestInit) => Promise<Response>;
let bigFolder = "";

beforeAll(async () => {
  const { db, content } = repo.svc;
  insertEntity(db, { type: "SO", title: ODD_TITLE, securityTag: "open" });
  bigFolder = insertEntity(db, { type: "SO", title: "Report cap fixtures", securityTag: "open" }).ref;
  const asset = insertEntity(db, {
    type: "IO",
    title: "Many small files",
    securityTag: "open",
    parentRef: bigFolder,
  }).ref;
  const co = insertEntity(db, { type: "CO", title: "files", securityTag: "open", parentRef: asset }).ref;
  const gen = addGeneration(db, co, { label: "files" });
  const blob = content.put(Buffer.from("one small file"));
  db.transaction(() => {
    for (let i = 0; i < BIG_FILES; i++) {
      const filename = `${String(i).padStart(5, "0")}-${"long-descriptive-file-name-".repeat(7)}.txt`;
      addBitstream(db, gen, { filename, mimeType: "text/plain", blob });
    }
  })();
  addRepresentation(db, asset, "Preservation", null, [co]);
  const { token } = await login(repo.url, "manager");
  service = authed(repo.url, token);
});
afterAll(async () => {
  delete process.env.PRESERVATION_REPORT_PAUSE_MS;
});

/** The service's own CSV of a run, as bytes. */
async function servedCsv(job: string): Promise<Buffer> {
  const res = await service(`/api/reports/results/${job}?format=csv`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe.each(ERAS)("preservation://report/{job} (%s)", (era) => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });

  const read = async (uri: string) => (await mcp.client.readResource({ uri })).contents as Contents;
  const failure = async (uri: string): Promise<Failure> => {
    try {
      await mcp.client.readResource({ uri });
    } catch (err) {
      return err as Failure;
    }
    throw new Error(`reading ${uri} did not fail`);
  };
  const start = async (report: string, args: Record<string, unknown> = {}) =>
    (await mcp.call<{ job: string }>("reports", { action: "run", report, ...args })).job;
  const finished = async (report: string, args: Record<string, unknown> = {}) => {
    const job = await start(report, args);
    let state = "ACTIVE";
    for (let i = 0; i < 100 && state === "ACTIVE"; i++) {
      state = (await mcp.call<{ state: string }>("job_status", { job, waitSeconds: 1 })).state;
    }
    expect(state).toBe("COMPLETED");
    return job;
  };

  it("reads a finished run's whole CSV exactly as the service serves it, linked from the answer", async () => {
    const job = await finished("storage-by-folder");
    const uri = reportUri(job);
    const served = await servedCsv(job);
    const [c, ...rest] = await read(uri);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({ uri, mimeType: CSV_MIME });
    expect(Buffer.from(c?.text ?? "", "utf8").equals(served)).toBe(true);
    // Quoting and non-ASCII text came through: the comparison above is over a row that needs both.
    expect(c?.text).toContain(`"${ODD_TITLE.replaceAll('"', '""')}"`);

    const res = await mcp.raw("reports", { action: "result", job });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(res.content.filter((x) => x.type === "resource_link")).toEqual([
      expect.objectContaining({ uri, name: "Storage by folder", mimeType: CSV_MIME, size: served.length }),
    ]);
    expect(textOf(res)).toContain(`The full CSV (${formatBytes(served.length)}) is at ${uri}.`);
  });

  it("lists the caller's finished runs (bounded) and completes {job}", async () => {
    const job = await finished("ingest-history", { from: "2023-01-01", to: "2023-12-31" });
    const { resources } = await mcp.client.listResources();
    const reports = resources.filter((r) => r.uri.startsWith("preservation://report/"));
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.length).toBeLessThanOrEqual(LISTED_RUNS);
    // Newest first, so the run just finished is listed, named by report and parameters.
    expect(reports.find((r) => r.uri === reportUri(job))).toMatchObject({
      name: "Ingest history (from=2023-01-01T00:00:00.000Z, to=2023-12-31T23:59:59.999Z)",
      mimeType: CSV_MIME,
    });
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("preservation://report/{job}");

    const complete = async (value: string) =>
      (
        await mcp.client.complete({
          ref: { type: "ref/resource", uri: "preservation://report/{job}" },
          argument: { name: "job", value },
        })
      ).completion.values;
    expect(await complete(job.slice(0, 8))).toContain(job);
    expect(await complete("zzz")).toEqual([]);
  });

  it("refuses an unknown or malformed job handle, saying where handles are found", async () => {
    const unknown = await failure(reportUri("11111111-2222-4333-8444-555555555555"));
    expect(unknown.code).toBe(ProtocolErrorCode.InvalidParams); // resources/read misses are -32602 on every era
    expect(unknown.message).toMatch(
      /No report run has job handle 11111111-2222-4333-8444-555555555555; the `reports` tool \(action list\) shows your recent runs/,
    );
    const malformed = await failure(reportUri("last-tuesday"));
    expect(malformed.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(malformed.message).toMatch(/"last-tuesday" is not a report job handle \(expected a UUID\)/);
  });

  it("refuses a run that is not finished (wait with job_status), then one that was terminated", async () => {
    // Each step of the run waits this long, so it is certainly still going when read.
    process.env.PRESERVATION_REPORT_PAUSE_MS = "400";
    try {
      const job = await start("storage-by-folder");
      const early = await failure(reportUri(job));
      expect(early.code).toBe(ProtocolErrorCode.InvalidParams);
      expect(early.message).toMatch(
        new RegExp(
          `Report run ${job} \\(Storage by folder\\) is not finished: ACTIVE, \\d+% done; wait for it with the \`job_status\` tool`,
        ),
      );
      const { seq } = repo.svc.db.prepare("SELECT seq FROM actions WHERE id = ?").get(job) as { seq: number };
      const stop = await service(`/sdb/rest/workflow/instances/terminate?workflowInstanceIds=${seq}`, {
        method: "POST",
      });
      expect(stop.status, await stop.text()).toBe(202);
      await repo.svc.actions.idle();
      const ended = await failure(reportUri(job));
      expect(ended.message).toMatch(
        /ended ABORTED.*; it has no result\. Run the report again with the `reports` tool \(action run\)/,
      );
    } finally {
      delete process.env.PRESERVATION_REPORT_PAUSE_MS;
    }
  });

  it("refuses a result over the cap, naming its size, and the answer says so up front", async () => {
    const job = await finished("fixity-inventory", { folder: bigFolder });
    const served = await servedCsv(job);
    expect(served.length).toBeGreaterThan(MAX_REPORT_BYTES);
    const err = await failure(reportUri(job));
    expect(err.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(err.message).toContain(
      `is ${formatBytes(served.length)} of CSV, over the ${formatBytes(MAX_REPORT_BYTES)} limit for reading a report as a resource; the \`reports\` tool (action result, job ${job})`,
    );
    expect(err.data).toMatchObject({ reason: "too_large", size: served.length, limit: MAX_REPORT_BYTES });

    const res = await mcp.raw("reports", { action: "result", job, rows: 1 });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(textOf(res)).toContain(
      `The full CSV (${formatBytes(served.length)}) is over the ${formatBytes(MAX_REPORT_BYTES)} limit for reading it as the resource ${reportUri(job)}`,
    );
    expect(res.content.find((x) => x.type === "resource_link")).toMatchObject({ size: served.length });
  });
});
