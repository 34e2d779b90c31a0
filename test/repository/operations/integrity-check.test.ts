import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed/demo.js";
import { type RunningRepository, startRepository } from "../../../repository/server.js";
import { type Db, openDatabaseFile } from "../../../repository/store/db.js";
import { startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { parseXml } from "../entity-xml.js";
import { type Fetcher, signIn, type Users } from "../writes/write-helpers.js";
import { arr, finished, instance, monitorValue, PM, startCheck, text, WF, wfXml } from "./ops-helpers.js";

/**
 * The Integrity Check workflow, started through the Workflow API: it re-reads every bitstream under a
 * folder from the content store and recomputes its SHA-256. Over the demo collection it completes; a
 * blob corrupted or removed on disk gives a mixed outcome whose messages name the bitstream. Over a
 * large synthetic store, read one bitstream per batch, it can be terminated, stopped and resumed while
 * it runs, and it resumes after a restart, checking each bitstream exactly once.
 */

const COUNCIL = DEMO.rootFolders[0]?.ref as string;

/** Content objects under a folder, from the demo plan (not from the store the check reads). */
function demoContentObjectsUnder(folder: string): string[] {
  const parent = new Map(DEMO.entities.map((e) => [e.ref, e.parentRef]));
  const under = (ref: string): boolean => {
    for (let p = parent.get(ref); p; p = parent.get(p)) if (p === folder) return true;
    return false;
  };
  return DEMO.entities.filter((e) => e.type === "CO" && under(e.ref)).map((e) => e.ref);
}

/** A bitstream under `folder` whose blob no other bitstream shares, with the blob's path on disk. */
function soleBlobUnder(repo: RunningRepository, folder: string, skip: string[] = []) {
  const cos = new Set(demoContentObjectsUnder(folder));
  const rows = repo.svc.db
    .prepare(
      `SELECT g.co_ref, b.filename, b.content_sha256 AS sha FROM bitstreams b JOIN generations g ON g.id = b.generation_id
       WHERE (SELECT count(*) FROM bitstreams o WHERE o.content_sha256 = b.content_sha256) = 1 ORDER BY b.id`,
    )
    .all() as { co_ref: string; filename: string; sha: string }[];
  const row = rows.find((r) => cos.has(r.co_ref) && !skip.includes(r.co_ref));
  if (!row) throw new Error("the demo collection has no unshared blob under the folder");
  return { ...row, path: join(repo.svc.dataDir, "content", row.sha.slice(0, 2), row.sha) };
}

function items(db: Db, actionId: string): { n: number; distinct: number } {
  const r = db
    .prepare("SELECT count(*) AS n, count(DISTINCT message) AS uniq FROM action_items WHERE action_id = ?")
    .get(actionId) as { n: number; uniq: number };
  return { n: r.n, distinct: r.uniq };
}

describe("over the demo collection", () => {
  let repo: RunningRepository;
  let u: Users;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    u = await signIn(repo);
  });
  afterAll(async () => {
    await repo?.close();
  });

  it("checks every bitstream under the folder and completes", async () => {
    const started = await startCheck(u.manager, COUNCIL);
    const done = await finished(u.manager, text(started.Id));
    const expected = demoContentObjectsUnder(COUNCIL).length;
    expect(expected).toBeGreaterThan(10);
    expect(text(done.State)).toBe("Completed");
    expect(Number(text(done.Progress.Total))).toBe(expected);
    expect(Number(text(done.Progress.Done))).toBe(expected);
    expect(text(done.Message)).toMatch(
      new RegExp(`^Checked ${expected} bitstreams under folder "Harbour Town Council"`),
    );
    expect(arr(done.Errors?.Error)).toEqual([]);
  });

  it("finishes with a mixed outcome naming a corrupted and a missing blob, and completes once they are repaired", async () => {
    const corrupted = soleBlobUnder(repo, COUNCIL);
    const missing = soleBlobUnder(repo, COUNCIL, [corrupted.co_ref]);
    const originals = [readFileSync(corrupted.path), readFileSync(missing.path)];
    writeFileSync(corrupted.path, Buffer.concat([originals[0] as Buffer, Buffer.from("bit rot")]));
    rmSync(missing.path);
    try {
      const started = await startCheck(u.manager, COUNCIL);
      const done = await finished(u.manager, text(started.Id));
      expect(text(done.State)).toBe("Finished_Mixed_Outcome");
      expect(text(done.Message)).toMatch(/2 failed \(1 fixity mismatch, 1 file missing\)/);
      const errors = arr(done.Errors.Error);
      expect(errors.map((e) => e["@entityRef"]).sort()).toEqual([corrupted.co_ref, missing.co_ref].sort());
      const mismatch = text(errors.find((e) => e["@entityRef"] === corrupted.co_ref));
      expect(mismatch).toContain(`"${corrupted.filename}"`);
      expect(mismatch).toContain(`fixity mismatch: SHA-256 recorded at ingest is ${corrupted.sha}`);
      expect(text(errors.find((e) => e["@entityRef"] === missing.co_ref))).toContain(
        `file missing: the content store has no file for SHA-256 ${missing.sha}`,
      );
      // The process monitor shows it as Failed, with the two errors among its messages.
      const monitor = (await monitorValue(u.manager, `${PM}/monitors/${text(done.ArchivalProcessId)}`))
        .monitor;
      expect(monitor.status).toBe("Failed");
      expect(monitor.errors).toBe(2);
      const errorMessages = await monitorValue(
        u.manager,
        `${PM}/messages?monitor=${monitor.mappedId}&status=Error&max=100`,
      );
      expect(errorMessages.messages.map((m: { entityRef: string }) => m.entityRef).sort()).toEqual(
        [corrupted.co_ref, missing.co_ref].sort(),
      );
    } finally {
      writeFileSync(corrupted.path, originals[0] as Buffer);
      writeFileSync(missing.path, originals[1] as Buffer);
    }
    const again = await finished(u.manager, text((await startCheck(u.manager, COUNCIL)).Id));
    expect(text(again.State)).toBe("Completed");
  });

  it("serves each bitstream's checks as its integrity-check history, linked from the bitstream", async () => {
    // The bitstream the test above corrupted: checked three times, the second a fixity mismatch.
    const { co_ref: co } = soleBlobUnder(repo, COUNCIL);
    const bitstream = parseXml(
      await (await u.manager(`/api/entity/content-objects/${co}/generations/1/bitstreams/1`)).text(),
    );
    // As in real BitstreamResponses: Self, then IntegrityCheckHistory, then Content.
    expect(bitstream.text).toMatch(
      /<AdditionalInformation><Self>[^<]+<\/Self><IntegrityCheckHistory>[^<]+<\/IntegrityCheckHistory><Content>/,
    );
    const historyUrl = new URL(text(bitstream.root.AdditionalInformation.IntegrityCheckHistory));
    expect(historyUrl.pathname).toBe(
      `/api/entity/content-objects/${co}/generations/1/bitstreams/1/integrity-check-history`,
    );
    // pyPreservica's integrity_checks() asks for pages of 10 and reads {entity}IntegrityCheckHistory
    // elements with xip Type, Success, Date, AdapterName, Fixed, Reason, then Paging/Next and TotalResults.
    const page = async (query: string) => {
      const res = await u.manager(`${historyUrl.pathname}?${query}`);
      expect(res.status).toBe(200);
      return parseXml(await res.text());
    };
    const all = await page("start=0&max=10");
    expect(all.rootName).toBe("IntegrityCheckHistoryResponse");
    expect(all.root.Paging.TotalResults).toBe("3");
    const checks = arr(all.root.IntegrityChecks.IntegrityCheckHistory);
    expect(checks.map((c) => text(c.Success))).toEqual(["true", "false", "true"]);
    for (const c of checks) {
      expect(text(c.Type)).toBe("FULL");
      expect(text(c.AdapterName)).toBe("Local content store");
      expect(text(c.Fixed)).toBe("false");
      expect(Number.isNaN(Date.parse(text(c.Date)))).toBe(false);
    }
    expect(text(checks[1].Reason)).toMatch(/^fixity mismatch: SHA-256 recorded at ingest is /);
    expect(checks[0].Reason).toBeUndefined();
    expect(all.text).toMatch(/<IntegrityCheckHistory><xip:Type>/);
    const second = await page("start=1&max=1");
    expect(text(arr(second.root.IntegrityChecks.IntegrityCheckHistory)[0].Success)).toBe("false");
    expect(new URL(text(second.root.Paging.Next)).searchParams.get("start")).toBe("2");
  });
});

describe("while it runs (a large store, one bitstream per batch)", () => {
  const N = 3000;
  let dataDir: string;
  let repo: RunningRepository;
  let u: Users;
  const batchBefore = process.env.PRESERVATION_ACTION_BATCH;

  beforeAll(async () => {
    process.env.PRESERVATION_ACTION_BATCH = "1";
    dataDir = tempDir("integrity-check-test-");
    repo = await startRepository({ port: 0, host: "127.0.0.1", dataDir, seed: N });
    u = await signIn(repo);
  });
  afterAll(async () => {
    await repo?.close();
    if (batchBefore === undefined) delete process.env.PRESERVATION_ACTION_BATCH;
    else process.env.PRESERVATION_ACTION_BATCH = batchBefore;
  });

  /** Starts a whole-repository check and waits until some bitstreams are checked. */
  async function running(get: Fetcher): Promise<{ id: string; token: string; total: number }> {
    const started = await startCheck(get, "@root@");
    const id = text(started.Id);
    for (;;) {
      const r = await instance(get, id);
      expect(text(r.State)).toBe("Active");
      if (Number(text(r.Progress.Done)) > 0) {
        return { id, token: text(r.ArchivalProcessId), total: Number(text(r.Progress.Total)) };
      }
      await new Promise((res) => setTimeout(res, 5));
    }
  }

  it("terminates a running check: Aborted, what it checked stays recorded, nothing more is done", async () => {
    const { id, token, total } = await running(u.manager);
    expect(total).toBeGreaterThan(500);
    const reply = await wfXml(u.manager, `${WF}/instances/terminate?workflowInstanceIds=${id}`, 202, {
      method: "POST",
    });
    expect(text(arr(reply.WorkflowInstanceChange)[0].Changed)).toBe("true");
    await repo.svc.actions.idle();
    const after = await instance(u.manager, id);
    expect(text(after.State)).toBe("Aborted");
    expect(text(after.Message)).toMatch(/Terminated by manager/);
    const recorded = items(repo.svc.db, token);
    expect(recorded.n).toBeGreaterThan(0);
    expect(recorded.n).toBeLessThan(total);
    await new Promise((res) => setTimeout(res, 50));
    expect(items(repo.svc.db, token).n).toBe(recorded.n);
  });

  it("stops a running check (Suspended, idle) and resumes it, checking each bitstream once", async () => {
    const { id, token, total } = await running(u.manager);
    const stopped = await wfXml(u.manager, `${WF}/instances/stop?workflowInstanceIds=${id}`, 202, {
      method: "POST",
    });
    expect(text(arr(stopped.WorkflowInstanceChange)[0].WorkflowState)).toBe("Suspended");
    await repo.svc.actions.idle();
    const frozen = items(repo.svc.db, token).n;
    expect(frozen).toBeLessThan(total);
    await new Promise((res) => setTimeout(res, 50));
    expect(items(repo.svc.db, token).n).toBe(frozen);
    expect(text((await instance(u.manager, id)).State)).toBe("Suspended");
    expect((await monitorValue(u.manager, `${PM}/monitors/${token}`)).monitor.status).toBe("Suspended");

    await wfXml(u.manager, `${WF}/instances/resume?workflowInstanceIds=${id}`, 202, { method: "POST" });
    const done = await finished(u.manager, id, 120_000);
    expect(text(done.State)).toBe("Completed");
    expect(items(repo.svc.db, token)).toEqual({ n: total, distinct: total });
  });

  it("resumes after a restart where it stopped, checking each bitstream once", async () => {
    const { id, token, total } = await running(u.manager);
    // Stopping the service leaves the check ACTIVE, between two batches; the next start carries it on.
    await repo.close();
    const stored = openDatabaseFile(join(dataDir, "repository.sqlite"), { readonly: true });
    const atStop = items(stored, token).n;
    const status = (
      stored.prepare("SELECT status FROM actions WHERE id = ?").get(token) as { status: string }
    ).status;
    stored.close();
    expect(status).toBe("ACTIVE");
    expect(atStop).toBeLessThan(total);
    repo = await startRepository({ port: 0, host: "127.0.0.1", dataDir, seed: N });
    u = await signIn(repo);
    const done = await finished(u.manager, id, 120_000);
    expect(text(done.State)).toBe("Completed");
    expect(items(repo.svc.db, token)).toEqual({ n: total, distinct: total });
    // Every item is dated (the monitor's timeseries and messages rely on it).
    const undated = repo.svc.db
      .prepare("SELECT count(*) AS n FROM action_items WHERE action_id = ? AND recorded IS NULL")
      .get(token) as { n: number };
    expect(undated.n).toBe(0);
  });
});
