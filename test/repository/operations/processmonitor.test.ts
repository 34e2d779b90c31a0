import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed/demo.js";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import type { Node } from "../entity-xml.js";
import { ENTITY_NS, XIP_NS } from "../entity-xml.js";
import { accepted, E, putText, settled } from "../writes/structure-helpers.js";
import { type Fetcher, sendXml, signIn, type Users } from "../writes/write-helpers.js";
import { json, monitorValue, PM, startCheck, text, WF, wfXml } from "./ops-helpers.js";

/** The demo collection comes with a past operations history; these tests look at what they did themselves. */
const SEEDED = new Set(DEMO.operations.actions.map((a) => a.id));

/**
 * The Process Monitor API over real HTTP, fed by real actions: monitors (status and category mapped
 * from the actions, abandoned ones left out unless asked), their messages paged the way pyPreservica
 * follows them (absolute next links, duplicated query keys), timeseries, the day-by-day history, and
 * the progress document; managers see every process, other users their own.
 */

const NS = ENTITY_NS("7.7");
const XIP = XIP_NS("7.7");
const deletion = `<DeletionAction xmlns="${NS}" xmlns:xip="${XIP}"><Submission><Comment>gone</Comment></Submission></DeletionAction>`;
const COUNCIL = DEMO.rootFolders[0]?.ref as string;
const BOARD = DEMO.rootFolders[1]?.ref as string;

let repo: RunningRepository;
let u: Users;
const t = {} as Record<"move" | "deletion" | "check" | "rejected", string>;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  u = await signIn(repo);
  t.move = await accepted(
    await putText(u.curator, `${E}/information-objects/${DEMO.refs.csvAsset}/parent-ref`, BOARD),
  );
  await settled(u.curator, t.move);
  t.deletion = await accepted(
    await sendXml(u.manager, "DELETE", `${E}/information-objects/${DEMO.refs.pngAsset}`, deletion),
  );
  t.rejected = await accepted(
    await sendXml(u.manager, "DELETE", `${E}/information-objects/${DEMO.refs.wavAsset}`, deletion),
  );
  const reject = `<DeletionAction xmlns="${NS}"><Approval><Approved>false</Approved><Comment>no</Comment></Approval></DeletionAction>`;
  expect((await sendXml(u.manager, "PUT", `${E}/actions/deletions/${t.rejected}`, reject)).status).toBe(202);
  t.check = text((await startCheck(u.manager, COUNCIL)).ArchivalProcessId);
  await repo.svc.actions.idle();
});
afterAll(async () => {
  await repo?.close();
});

async function monitors(get: Fetcher, query = ""): Promise<Node[]> {
  const value = await monitorValue(get, `${PM}/monitors${query}`);
  expect(value.paging.totalResults).toBe(value.monitors.length);
  return value.monitors;
}

describe("monitors", () => {
  it("shows each real action with the status and category it maps to", async () => {
    const all = await monitors(u.manager);
    const by = (id: string) => all.find((m) => m.mappedId === id);
    expect(by(t.move)).toMatchObject({
      status: "Succeeded",
      category: "DataManagement",
      subcategory: "",
      percentComplete: 100,
      filesPending: 0,
      filesProcessed: 2,
      errors: 0,
      canRetry: false,
      user: "curator",
    });
    expect(by(t.move)?.name).toBe(`Move: Rate book 1861 North Ward (${DEMO.refs.csvAsset})`);
    expect(by(t.deletion)).toMatchObject({ status: "Pending", category: "DataManagement", completed: null });
    expect(by(t.check)).toMatchObject({
      status: "Succeeded",
      name: expect.stringMatching(/^Integrity Check: Harbour Town Council/),
    });
    expect(by(t.check)?.size).toBeGreaterThan(10_000); // bytes read
    // The rejected deletion was abandoned: left out of the list unless asked for.
    expect(by(t.rejected)).toBeUndefined();
    const withAbandoned = await monitors(u.manager, "?includeAbandoned=true");
    expect(withAbandoned.find((m) => m.mappedId === t.rejected)?.status).toBe("Failed");
    // Newest first.
    expect(all.map((m) => m.workflowInstanceId)).toEqual(
      [...all.map((m) => m.workflowInstanceId)].sort((a, b) => b - a),
    );
  });

  it("filters by status, category and subcategory", async () => {
    const ids = async (q: string) =>
      (await monitors(u.manager, q))
        .map((m) => m.mappedId)
        .filter((id) => !SEEDED.has(id))
        .sort();
    expect(await ids("?status=Pending")).toEqual([t.deletion]);
    expect(await ids("?status=Succeeded&category=DataManagement")).toEqual([t.move, t.check].sort());
    expect(await ids("?status=running")).toEqual([]);
    expect(await ids("?status=Recoverable")).toEqual([]);
    expect(await ids("?category=Ingest")).toEqual([]);
    expect(await ids("?category=Export")).toEqual([]);
    expect(await ids("?subcategory=OPEX")).toEqual([]);
    const bad = await u.manager(`${PM}/monitors?status=Done`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(
      /Pending, Running, Succeeded, Failed, Suspended, Recoverable/,
    );
  });

  it("shows other users only their own processes; 403 for another's; 401 without a token", async () => {
    const own = (await monitors(u.curator)).map((m) => m.mappedId).filter((id) => !SEEDED.has(id));
    expect(own).toEqual([t.move]);
    expect(await monitors(u.reader)).toEqual([]);
    expect((await u.curator(`${PM}/monitors/${t.check}`)).status).toBe(403);
    expect((await u.curator(`${PM}/messages?monitor=${t.check}`)).status).toBe(403);
    expect((await fetch(`${repo.url}${PM}/monitors`)).status).toBe(401);
    expect((await u.manager(`${PM}/monitors/not-a-monitor`)).status).toBe(404);
  });

  it("gives one monitor by mappedId or workflow instance id", async () => {
    const one = (await monitorValue(u.manager, `${PM}/monitors/${t.check}`)).monitor;
    const byInstance = (await monitorValue(u.manager, `${PM}/monitors/${one.workflowInstanceId}`)).monitor;
    expect(byInstance).toEqual(one);
  });
});

describe("messages", () => {
  it("pages like pyPreservica follows them: absolute next links repeating monitor and status, keys sent twice", async () => {
    // The check's items, then its closing message.
    const items = repo.svc.db
      .prepare("SELECT count(*) AS n FROM action_items WHERE action_id = ?")
      .get(t.check) as {
      n: number;
    };
    const first = await monitorValue(
      u.manager,
      `${PM}/messages?monitor=${t.check}&start=0&max=4&status=Info`,
    );
    expect(first.paging.totalResults).toBe(items.n + 1);
    const collected: Node[] = [...first.messages];
    let next: string | undefined = first.paging.next;
    let rounds = 0;
    while (next) {
      const url = new URL(next);
      expect(url.origin).toBe(repo.url);
      expect(url.searchParams.get("monitor")).toBe(t.check);
      expect(url.searchParams.get("status")).toBe("Info");
      // requests appends its own params to the next URL: monitor and status come twice.
      const res = await u.manager(`${url.pathname}${url.search}&monitor=${t.check}&status=Info`);
      const value = ((await res.json()) as { value: Node }).value;
      expect(value.paging.totalResults).toBe(items.n + 1);
      collected.push(...value.messages);
      next = value.paging.next;
      if (++rounds > 100) throw new Error("next links never end");
    }
    expect(collected).toHaveLength(items.n + 1);
    expect(new Set(collected.map((m) => m.mappedId)).size).toBe(collected.length);
    const last = collected[collected.length - 1];
    expect(last).toMatchObject({ mappedId: `${t.check}:end`, status: "Info" });
    expect(last.message).toMatch(/^Checked \d+ bitstreams/);
    const m = collected[0];
    expect(m).toMatchObject({ mappedMonitorId: t.check, status: "Info", workflowName: "Integrity Check" });
    expect(m.path).toMatch(/^Harbour Town Council\//);
    expect(m.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("filters by status (Error = failed items, Warning = skipped), and refuses what it cannot read", async () => {
    expect(
      (await monitorValue(u.manager, `${PM}/messages?monitor=${t.check}&status=Error`)).paging.totalResults,
    ).toBe(0);
    // Moving an asset where it already is records a skipped item: a Warning.
    const again = await accepted(
      await putText(u.curator, `${E}/information-objects/${DEMO.refs.csvAsset}/parent-ref`, BOARD),
    );
    await settled(u.curator, again);
    const warnings = await monitorValue(u.curator, `${PM}/messages?monitor=${again}&status=Warning`);
    expect(warnings.messages.map((x: Node) => x.message)).toEqual([
      expect.stringMatching(/Already in folder/),
    ]);
    expect((await monitorValue(u.curator, `${PM}/monitors/${again}`)).monitor.warnings).toBe(1);
    for (const [query, status, message] of [
      ["", 400, /Parameter monitor is required/],
      [`?monitor=${t.check}&status=Debug`, 400, /must be one of Info, Warning, Error/],
      [`?monitor=${t.check}&monitor=${t.move}`, 400, /different values/],
      [`?monitor=${t.check}&max=0`, 400, /max must be at least 1/],
      ["?monitor=00000000-0000-4000-8000-000000000000", 404, /No process monitor/],
    ] as const) {
      const res = await u.manager(`${PM}/messages${query}`);
      expect(res.status, query).toBe(status);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
  });

  it("shows entity titles only where the caller may read them", async () => {
    // A manager's check over the closed folder shows its titles to the manager.
    const closed = DEMO.rootFolders.find((f) => f.securityTag === "closed")?.ref as string;
    const check = text((await startCheck(u.manager, closed)).ArchivalProcessId);
    await repo.svc.actions.idle();
    const mine = await monitorValue(u.manager, `${PM}/messages?monitor=${check}&max=1`);
    expect(mine.messages[0].entityTitle).toBeTruthy();
    expect(mine.messages[0].securityDescriptor).toBe("closed");
    // A process whose starter cannot read what it touched (roles change after a start): simulated by
    // handing the check to the reader, who lacks the closed tag. Refs instead of titles.
    repo.svc.db.prepare("UPDATE actions SET username = 'reader' WHERE id = ?").run(check);
    const theirs = await monitorValue(u.reader, `${PM}/messages?monitor=${check}&max=1`);
    expect(theirs.messages[0].entityTitle).toBeUndefined();
    expect(theirs.messages[0].path).not.toContain("Closed Correspondence");
    expect(theirs.messages[0].path).toContain(closed);
    const monitor = (await monitorValue(u.reader, `${PM}/monitors/${check}`)).monitor;
    expect(monitor.name).toBe(`Integrity Check: ${closed}`);
  });
});

describe("timeseries, history and progress", () => {
  it("gives a monitor's progress from start (0) to end (100), never going backwards", async () => {
    const series = (await monitorValue(u.manager, `${PM}/monitors/${t.check}/timeseries`))
      .timeseries as Node[];
    expect(series.length).toBeGreaterThanOrEqual(3);
    expect(series[0]).toMatchObject({ filesProcessed: 0, percentComplete: 0 });
    expect(series[series.length - 1]).toMatchObject({ filesPending: 0, percentComplete: 100 });
    for (let i = 1; i < series.length; i++) {
      expect(series[i].filesProcessed).toBeGreaterThanOrEqual(series[i - 1].filesProcessed);
      expect(series[i].timestamp >= series[i - 1].timestamp).toBe(true);
    }
    expect((await u.curator(`${PM}/monitors/${t.check}/timeseries`)).status).toBe(403);
    const own = (await monitorValue(u.curator, `${PM}/monitors/${t.move}/timeseries`)).timeseries as Node[];
    expect(own[own.length - 1]).toMatchObject({ filesProcessed: 2, percentComplete: 100 });
  });

  it("counts processes day by day: started, succeeded, failed, aborted, with files and bytes", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const value = await monitorValue(u.manager, `${PM}/history?from=${today}&to=${today}`);
    expect(value.days).toHaveLength(1);
    // Today's processes: the seeded history is dated years ago.
    const started = repo.svc.db
      .prepare("SELECT count(*) AS n FROM actions WHERE created >= ?")
      .get(today) as {
      n: number;
    };
    const day = value.days[0];
    expect(day.date).toBe(today);
    expect(day.started).toBe(started.n);
    const statuses = repo.svc.db
      .prepare("SELECT status, count(*) AS n FROM actions WHERE created >= ? GROUP BY status")
      .all(today) as {
      status: string;
      n: number;
    }[];
    const count = (s: string) => statuses.find((x) => x.status === s)?.n ?? 0;
    expect(day.succeeded).toBe(count("COMPLETED"));
    expect(day.aborted).toBe(count("CANCELLED") + count("ABORTED"));
    expect(day.failed).toBe(count("FAILED") + count("FINISHED_MIXED_OUTCOME"));
    expect(day.bytes).toBeGreaterThan(10_000);
    expect(value.totals.started).toBe(started.n);

    const month = await monitorValue(u.manager, `${PM}/history`);
    expect(month.days).toHaveLength(30);
    expect(month.days[29].date).toBe(today);
    expect(month.days[0].started).toBe(0);
    const ingests = await monitorValue(u.manager, `${PM}/history?category=Ingest`);
    expect(ingests.totals.started).toBe(0);
    // The curator's own: one move and the repeat move.
    expect((await monitorValue(u.curator, `${PM}/history`)).totals.started).toBe(2);
    for (const query of [
      "?from=2026-01-10&to=2026-01-01",
      "?from=2020-01-01&to=2026-01-01",
      "?from=soon",
      "?category=Backup",
    ]) {
      expect((await u.manager(`${PM}/history${query}`)).status, query).toBe(400);
    }
  });

  it("answers /api/processmonitor/progress/{pid} with the same document as the Entity API", async () => {
    for (const id of [t.move, t.deletion, t.check]) {
      const monitorDoc = await (await u.reader(`${PM}/progress/${id}?includeErrors=true`)).text();
      const entityDoc = await (await u.reader(`${E}/progress/${id}`)).text();
      expect(monitorDoc).toBe(entityDoc);
      expect(monitorDoc).toContain('xmlns="http://status.preservica.com"');
    }
    expect((await u.reader(`${PM}/progress/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });
});

describe("the workflow instance of the same action", () => {
  it("matches the monitor: same instance id, same progress token", async () => {
    const monitor = (await monitorValue(u.manager, `${PM}/monitors/${t.check}`)).monitor;
    const inst = await wfXml(u.manager, `${WF}/instances/${monitor.workflowInstanceId}`);
    expect(text(inst.ArchivalProcessId)).toBe(t.check);
    expect(text(inst.State)).toBe(monitor.workflowState);
    const body = await json<{ success: boolean }>(u.manager, `${PM}/monitors`);
    expect(body.success).toBe(true);
  });
});
