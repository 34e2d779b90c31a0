import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { ServiceError } from "../../src/api/errors.js";
import { OperationsApi, wireDate } from "../../src/api/operations.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

describe("Operations API client", () => {
  let repo: RunningRepository;
  let manager: Session;
  let reader: Session;
  let ops: OperationsApi;
  let readerOps: OperationsApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    manager = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    reader = new Session({ url: repo.url, ...DEMO_USERS.reader, keepAlive: false });
    ops = new OperationsApi(manager.http);
    readerOps = new OperationsApi(reader.http);
  });
  afterAll(async () => {
    await manager.close();
    await reader.close();
    await repo.close();
  });

  it("reads monitors, the failed ingest's messages and the history", async () => {
    const failed = await ops.monitors({ status: "Failed" });
    const ingest = failed.monitors.find((m) => m.category === "Ingest");
    expect(ingest).toMatchObject({ status: "Failed", user: "curator" });
    const errors = await ops.messages(ingest?.id ?? "", { status: "Error" });
    expect(errors.total).toBeGreaterThanOrEqual(2);
    expect(errors.messages.map((m) => m.message).join("\n")).toMatch(/harbour-regatta-1911\.png/);
    expect(errors.messages.map((m) => m.message).join("\n")).toMatch(/lifeboat-launch-1912\.png/);
    const one = await ops.monitor(ingest?.id ?? "");
    expect(one.id).toBe(ingest?.id);
    const h = await ops.history({ from: "2026-01-15", to: "2026-01-21" });
    expect(h.days).toHaveLength(7);
    expect(h.days.find((d) => d.date === "2026-01-19")?.failed).toBe(1);
    expect(h.totals.started).toBeGreaterThanOrEqual(3);
  });

  it("lists and reads workflow instances and contexts", async () => {
    const all = await ops.instances({ max: 1000 });
    expect(all.total).toBe(all.instances.length);
    const failed = await ops.instances({ state: "Failed" });
    expect(failed.instances[0]).toMatchObject({ state: "Failed", type: "Ingest", creator: "curator" });
    const one = await ops.instance(failed.instances[0]?.id ?? "", { errors: true, parameters: true });
    expect(one.errors?.length).toBeGreaterThanOrEqual(2);
    const contexts = await ops.contexts();
    expect(contexts.find((c) => c.startable)?.name).toBe("Integrity Check");
    // Dates as clients send them.
    expect(wireDate("2026-11-22T21:08:37.000Z")).toBe("2026-11-22T21:08:37.000000+0000");
    const none = await ops.instances({ from: "2099-01-01T00:00:00.000Z" });
    expect(none.total).toBe(0);
  });

  it("starts, stops, resumes and terminates an Integrity Check; a reader is refused", async () => {
    const started = await ops.start({ contextName: "Integrity Check", parameters: { folder: "@root@" } });
    expect(started.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.instance.state).toBe("Active");
    const id = started.instance.id;
    const stop = await ops.change("stop", [id]);
    expect(stop[0]?.id).toBe(id);
    const term = await ops.change("terminate", [id]);
    expect(term[0]).toMatchObject({ id, state: "Aborted" });
    await expect(readerOps.change("terminate", [id])).rejects.toBeInstanceOf(ServiceError);
    await expect(
      readerOps.start({ contextName: "Integrity Check", parameters: { folder: "@root@" } }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("lists reports, runs one and fetches its result", async () => {
    const reports = await readerOps.reports();
    expect(reports.map((r) => r.id)).toContain("storage-by-folder");
    const run = await readerOps.runReport("storage-by-folder", {});
    expect(run.status).toBe("ACTIVE");
    let p = await readerOps.reportRun(run.token);
    for (let i = 0; i < 100 && p.status === "ACTIVE"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      p = await readerOps.reportRun(run.token);
    }
    expect(p.status).toBe("COMPLETED");
    const result = await readerOps.reportResult(run.token);
    expect(result.rows.length).toBe(result.rowCount);
    expect(result.securityTags).toContain("open");
    const runs = await ops.reportRuns();
    expect(runs.runs.map((r) => r.token)).toContain(run.token);
    await expect(readerOps.runReport("nope", {})).rejects.toMatchObject({ status: 404 });
  });
});
