import { afterEach, describe, expect, it } from "vitest";
import type { ActionKind } from "../../../repository/jobs/action-kind.js";
import { ACTION_KINDS } from "../../../repository/jobs/kinds.js";
import { type RunningRepository, startRepository } from "../../../repository/server.js";
import { type ActionItemRow, getAction, handledRefs } from "../../../repository/store/actions/read.js";
import { createAction, recordItems } from "../../../repository/store/actions/write.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";

/**
 * The action runner: bounded concurrency, work off the request path, resumption after a restart
 * without doing anything twice, and a clear end for what cannot be resumed. A test-only kind counts
 * items in batches, as real kinds do.
 */

const repos: RunningRepository[] = [];
afterEach(async () => {
  for (const r of repos.splice(0)) await r.close();
});

async function start(dataDir: string, actionConcurrency?: number): Promise<RunningRepository> {
  const repo = await startRepository({
    port: 0,
    seed: "none",
    dataDir,
    actionConcurrency,
    actionKinds: [...ACTION_KINDS, testCount],
  });
  repos.push(repo);
  return repo;
}

let running = 0;
let peak = 0;
/** Items 1..n, ten per batch; each batch recorded in one transaction; a gate can hold it mid-way. */
let gate: Promise<void> | undefined;
const testCount: ActionKind = {
  kind: "test-count",
  path: "test-counts",
  title: "Count (tests only)",
  async run({ svc, action, params, pause, now }) {
    running++;
    peak = Math.max(peak, running);
    try {
      const n = (params as { n: number }).n;
      const done = handledRefs(svc.db, action.id);
      for (let i = 1; i <= n; i += 10) {
        const batch: ActionItemRow[] = [];
        for (let j = i; j < i + 10 && j <= n; j++) {
          if (!done.has(`item-${j}`))
            batch.push({ seq: j, entity_ref: `item-${j}`, outcome: "done" as const, message: null });
        }
        svc.db.transaction(() => recordItems(svc.db, action.id, batch, now()))();
        if (i === 1 && gate) await gate;
        await pause();
      }
      return undefined;
    } finally {
      running--;
    }
  },
};

function newAction(repo: RunningRepository, n: number, kind = "test-count"): string {
  const now = new Date().toISOString();
  return createAction(repo.svc.db, { kind, username: "manager", params: { n }, total: n }, now).id;
}

describe("the action runner", () => {
  it("runs actions off the request path and stores COMPLETED with the counts", async () => {
    const dir = tempDir("runner-");
    const repo = await start(dir);
    const id = newAction(repo, 95);
    repo.svc.actions.submit(id);
    // Nothing has run yet: submit only queues.
    expect(getAction(repo.svc.db, id)?.done).toBe(0);
    await repo.svc.actions.idle();
    expect(getAction(repo.svc.db, id)).toMatchObject({ status: "COMPLETED", done: 95, failed: 0 });
    const get = authed(repo.url, (await login(repo.url, "manager")).token);
    const progress = await (await get(`/api/entity/progress/${id}`)).text();
    expect(progress).toContain("<Status>COMPLETED</Status>");
    expect(progress).toContain("<Done>95</Done>");
  });

  it("runs at most `actionConcurrency` actions at once", async () => {
    const dir = tempDir("runner-");
    const repo = await start(dir, 2);
    peak = 0;
    const ids = Array.from({ length: 6 }, () => newAction(repo, 200));
    for (const id of ids) repo.svc.actions.submit(id);
    await repo.svc.actions.idle();
    expect(peak).toBe(2);
    for (const id of ids) expect(getAction(repo.svc.db, id)?.status).toBe("COMPLETED");
  });

  it("leaves an action ACTIVE on stop, then resumes it at the next start without repeating items", async () => {
    const dir = tempDir("runner-");
    const first = await start(dir);
    let release = () => {};
    gate = new Promise((r) => {
      release = r;
    });
    const id = newAction(first, 100);
    first.svc.actions.submit(id);
    while ((getAction(first.svc.db, id)?.done ?? 0) === 0) await new Promise((r) => setTimeout(r, 5));
    // Stop while the first batch is held: the handler's next pause() sees the stop.
    const closing = first.close();
    release();
    await closing;
    repos.splice(repos.indexOf(first), 1);
    gate = undefined;

    const second = await start(dir);
    await second.svc.actions.idle();
    const a = getAction(second.svc.db, id);
    expect(a).toMatchObject({ status: "COMPLETED", done: 100 });
    const rows = second.svc.db.prepare("SELECT count(*) AS n FROM action_items WHERE action_id = ?").get(id);
    expect(rows).toEqual({ n: 100 });
  });

  it("marks an interrupted action of a kind it does not know FAILED, saying why", async () => {
    const dir = tempDir("runner-");
    const first = await start(dir);
    const id = newAction(first, 5, "from-a-newer-version");
    await first.close();
    repos.splice(repos.indexOf(first), 1);
    const second = await start(dir);
    const a = getAction(second.svc.db, id);
    expect(a?.status).toBe("FAILED");
    expect(a?.message).toMatch(/cannot resume a "from-a-newer-version" action/);
    expect(a?.completed).not.toBeNull();
  });
});

describe("cancelling an action", () => {
  it("stops a running action at its next batch, keeping what it did, and marks it CANCELLED", async () => {
    const dir = tempDir("runner-");
    const repo = await start(dir);
    let release = () => {};
    gate = new Promise((r) => {
      release = r;
    });
    const id = newAction(repo, 100);
    repo.svc.actions.submit(id);
    while ((getAction(repo.svc.db, id)?.done ?? 0) === 0) await new Promise((r) => setTimeout(r, 5));
    expect(repo.svc.actions.cancel(id, "Terminated by manager")).toBe(true);
    release();
    await repo.svc.actions.idle();
    gate = undefined;
    const a = getAction(repo.svc.db, id);
    expect(a).toMatchObject({ status: "CANCELLED", done: 10, message: "Terminated by manager" });
    expect(repo.svc.actions.cancel(id, "again")).toBe(false);
  });

  it("takes a queued action off the queue before it starts", async () => {
    const dir = tempDir("runner-");
    const repo = await start(dir, 1);
    const first = newAction(repo, 50);
    const second = newAction(repo, 50);
    repo.svc.actions.submit(first);
    repo.svc.actions.submit(second);
    repo.svc.actions.cancel(second, "not wanted");
    await repo.svc.actions.idle();
    expect(getAction(repo.svc.db, first)?.status).toBe("COMPLETED");
    expect(getAction(repo.svc.db, second)).toMatchObject({ status: "CANCELLED", done: 0 });
  });
});
