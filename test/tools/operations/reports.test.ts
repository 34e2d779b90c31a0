import { describe, expect, it } from "vitest";
import { OperationsApi } from "../../../src/api/operations.js";
import { reportUri } from "../../../src/resources/uris.js";
import { formatBytes } from "../../../src/tools/support/text.js";
import { ERAS, type McpHarness, textOf } from "../../helpers/mcp.js";
import { authed, login } from "../../helpers/repository.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

const FLAGS = ["--toolsets", "all"];

interface Listing {
  reports: { id: string; parameters: string[] }[];
  runs: { job: string; report: string; status: string; user?: string; rowCount?: number }[];
}
interface Result {
  result: {
    rowCount: number;
    rowsShown: number;
    csv: string;
    uri: string;
    csvBytes?: number;
    securityTags: string[];
    columns: { name: string; sum?: number; distinct: number; top?: { value: string; count: number }[] }[];
  };
}

async function finish(mcp: McpHarness, job: string): Promise<string> {
  let s = "ACTIVE";
  for (let i = 0; i < 100 && s === "ACTIVE"; i++) {
    s = (await mcp.call<{ state: string }>("job_status", { job, waitSeconds: 1 })).state;
  }
  return s;
}

describe.each(ERAS)("reports (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const reader = useMcp({ user: "reader", flags: FLAGS, repo, era });

  it("lists the reports and the seeded runs", async () => {
    const res = await mcp.raw("reports", {});
    const l = res.structuredContent as unknown as Listing;
    expect(l.reports.map((r) => r.id)).toEqual(
      expect.arrayContaining(["assets-by-format", "storage-by-folder", "ingest-history"]),
    );
    expect(l.reports.find((r) => r.id === "ingest-history")?.parameters).toEqual(["from?", "to?"]);
    expect(l.runs.map((r) => r.report)).toEqual(
      expect.arrayContaining(["storage-by-folder", "ingest-history"]),
    );
    expect(textOf(res)).toMatch(
      /- ingest-history \(from=2025-01-01T00:00:00.000Z, to=2025-12-31T23:59:59.999Z\) by curator/,
    );
  });

  it("runs storage-by-folder, answers done within the wait, and summarises the result with computed totals", async () => {
    const run = await mcp.raw("reports", { action: "run", report: "storage-by-folder" });
    expect(run.isError, textOf(run)).toBeFalsy();
    const { job } = run.structuredContent as { job: string };
    expect(textOf(run)).toContain(`: done (job ${job}).`);
    expect(textOf(run)).toContain(`the full CSV is the resource ${reportUri(job)}`);
    expect(run.structuredContent).toMatchObject({ state: "COMPLETED", finished: true });

    const res = await mcp.raw("reports", { action: "result", job, rows: 2 });
    expect(res.isError, textOf(res)).toBeFalsy();
    const r = (res.structuredContent as unknown as Result).result;
    const full = await new OperationsApi(mcp.deps.session.http).reportResult(job);
    const bytes = full.rows.reduce((n, row) => n + Number(row.bytes), 0);
    expect(r.columns.find((c) => c.name === "bytes")?.sum).toBe(bytes);
    expect(r.rowsShown).toBe(Math.min(2, r.rowCount));
    expect(r.csv.split("\n")[0]).toBe("folderRef,folderTitle,securityTag,folders,assets,files,bytes");
    const text = textOf(res);
    expect(text).toMatch(new RegExp(`- bytes: total ${bytes.toLocaleString("en")} `));
    expect(text).toMatch(/- securityTag: \d+ distinct; top /);
    expect(text).toMatch(/more rows: ask with a larger `rows`/);

    // The whole CSV is linked as a resource, with the size the service gives for it.
    const { token } = await login(repo.url, "manager");
    const served = await authed(repo.url, token)(`/api/reports/results/${job}?format=csv`);
    const csvBytes = Buffer.from(await served.arrayBuffer()).length;
    expect(r.uri).toBe(reportUri(job));
    expect(r.csvBytes).toBe(csvBytes);
    const link = res.content.find((c) => c.type === "resource_link");
    expect(link).toEqual({
      type: "resource_link",
      uri: reportUri(job),
      name: "Storage by folder",
      title: "Storage by folder",
      mimeType: "text/csv",
      description: `Full result: ${r.rowCount} rows`,
      size: csvBytes,
    });
    expect(text.split("\n").at(-1)).toBe(`The full CSV (${formatBytes(csvBytes)}) is at ${reportUri(job)}.`);
  });

  it("runs ingest-history with dates, and refuses bad input", async () => {
    const run = await mcp.call<{ job: string }>("reports", {
      action: "run",
      report: "ingest-history",
      from: "2023",
      to: "2023",
    });
    expect(await finish(mcp, run.job)).toBe("COMPLETED");
    const r = await mcp.call<Result>("reports", { action: "result", job: run.job });
    // One row per day with ingests in 2023; the ingest counts are summed here, not by the model.
    expect(r.result.rowCount).toBeGreaterThanOrEqual(2);
    expect(r.result.columns.find((c) => c.name === "ingests")?.sum).toBeGreaterThanOrEqual(r.result.rowCount);
    const unknown = await mcp.raw("reports", { action: "run", report: "colours" });
    expect(unknown.isError).toBe(true);
    const noJob = await mcp.raw("reports", { action: "result" });
    expect(textOf(noJob)).toMatch(/^Give `job`/);
    const notRun = await mcp.raw("reports", {
      action: "result",
      job: "11111111-2222-4333-8444-555555555555",
    });
    expect(textOf(notRun)).toMatch(/^No report run has job handle/);
  });

  it("a reader runs a report over what they may read, and cannot read the manager's runs", async () => {
    expect((await reader.client.listTools()).tools.map((t) => t.name)).toContain("reports");
    const run = await reader.call<{ job: string }>("reports", {
      action: "run",
      report: "storage-by-folder",
    });
    expect(await finish(reader, run.job)).toBe("COMPLETED");
    const r = await reader.call<Result>("reports", { action: "result", job: run.job });
    expect(r.result.securityTags).toEqual(["open"]);
    const mine = await reader.call<Listing>("reports", {});
    expect(mine.runs.every((x) => x.user === "reader")).toBe(true);
    const managers = (await mcp.call<Listing>("reports", {})).runs.find((x) => x.user === "manager");
    const refused = await reader.raw("reports", { action: "result", job: managers?.job ?? "" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/403|not allowed|permission/i);
  });
});
