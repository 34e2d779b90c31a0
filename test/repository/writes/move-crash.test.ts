import { once } from "node:events";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, openDatabaseFile } from "../../../repository/store/db.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { spawnRepository, stopAllSpawned } from "../../helpers/process.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { accepted, E, progress, putText, settled } from "./structure-helpers.js";

/**
 * A move of a folder holding 2,000 entities, killed with SIGKILL half-way through its batches, then
 * the service restarted on the same data directory: the action must finish (never stay ACTIVE), every
 * entity must still exist, all under the new place, and nothing may be recorded twice.
 *
 * Runs the built CLI (`npm run build` first; `npm test` does). PRESERVATION_ACTION_BATCH=1 (a
 * documented test-only setting) makes the move take 2,000 small transactions, so there is time to
 * kill it in the middle.
 */

const CHILDREN = 2000;

afterAll(async () => {
  await stopAllSpawned();
});

function buildDataDir(): { dir: string; source: string; dest: string; children: string[] } {
  const dir = tempDir("move-crash-");
  const db = openDatabase(dir);
  const out = db.transaction(() => {
    const created = "2020-01-01T00:00:00.000Z";
    const source = insertEntity(db, { type: "SO", title: "Source", securityTag: "open", created }).ref;
    const dest = insertEntity(db, { type: "SO", title: "Destination", securityTag: "open", created }).ref;
    const children: string[] = [];
    for (let i = 0; i < CHILDREN; i++) {
      const type = i % 10 === 0 ? "SO" : "IO";
      children.push(
        insertEntity(db, { type, title: `Item ${i}`, securityTag: "open", parentRef: source, created }).ref,
      );
    }
    return { source, dest, children };
  })();
  db.close();
  return { dir, ...out };
}

describe("a move killed half-way", () => {
  it("resumes after a restart: ends COMPLETED, every entity moved once, nothing recorded twice", async () => {
    const { dir, source, dest, children } = buildDataDir();
    const env = { PRESERVATION_ACTION_BATCH: "1" };
    const first = await spawnRepository(["--data", dir, "--seed", "none"], env);
    const manager = authed(first.url, (await login(first.url, "manager")).token);
    const id = await accepted(await putText(manager, `${E}/structural-objects/${source}/parent-ref`, dest));

    // Poll until the move is under way among the descendants (the parent changed in the first
    // transaction, more than 10 descendants recorded), then kill the process without warning.
    let seen = { status: "ACTIVE", done: 0, total: 0 };
    for (;;) {
      seen = await progress(manager, id);
      if (seen.status !== "ACTIVE" || (seen.done > 10 && seen.total > 0)) break;
    }
    first.child.kill("SIGKILL");
    await once(first.child, "exit");
    expect(seen.status, "the move finished before it could be interrupted").toBe("ACTIVE");
    expect(seen.total).toBe(CHILDREN + 1);
    expect(seen.done).toBeGreaterThan(0);
    expect(seen.done).toBeLessThan(seen.total);

    // What the killed process left: still ACTIVE, part done, and the subtree already moved whole.
    const left = openDatabaseFile(join(dir, "repository.sqlite"), { readonly: true });
    const interrupted = left.prepare("SELECT status, done, total FROM actions WHERE id = ?").get(id) as {
      status: string;
      done: number;
      total: number;
    };
    left.close();
    expect(interrupted.status).toBe("ACTIVE");
    expect(interrupted.done).toBeGreaterThanOrEqual(seen.done);
    expect(interrupted.done).toBeLessThan(interrupted.total);

    const second = await spawnRepository(["--data", dir, "--seed", "none"], env);
    const again = authed(second.url, (await login(second.url, "manager")).token);
    const end = await settled(again, id, 60_000);
    expect(end.status).toBe("COMPLETED");
    expect(end).toMatchObject({ total: CHILDREN + 1, done: CHILDREN + 1, failed: 0 });
    await second.stop();

    const db = openDatabaseFile(join(dir, "repository.sqlite"), { readonly: true });
    try {
      const q = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
      // Every entity still there, live, under the place it moved to.
      expect(q<{ parent_ref: string }>("SELECT parent_ref FROM entities WHERE ref = ?", source)).toEqual([
        { parent_ref: dest },
      ]);
      const rows = q<{ ref: string; parent_ref: string; deleted: number }>(
        "SELECT ref, parent_ref, deleted FROM entities WHERE parent_ref = ? ORDER BY id",
        source,
      );
      expect(rows.map((r) => r.ref)).toEqual(children);
      expect(rows.every((r) => r.deleted === 0)).toBe(true);
      // No item twice, no event action twice, one Moved event.
      const items = q<{ n: number; d: number }>(
        "SELECT count(*) AS n, count(DISTINCT entity_ref) AS d FROM action_items WHERE action_id = ?",
        id,
      )[0];
      expect(items).toEqual({ n: CHILDREN + 1, d: CHILDREN + 1 });
      const events = q<{ id: number }>("SELECT id FROM events WHERE type = 'Moved'");
      expect(events).toHaveLength(1);
      const actions = q<{ n: number; d: number }>(
        "SELECT count(*) AS n, count(DISTINCT entity_ref) AS d FROM event_actions WHERE event_id = ?",
        events[0]?.id,
      )[0];
      expect(actions).toEqual({ n: CHILDREN + 1, d: CHILDREN + 1 });
      // Every moved entity carries a modified date from the move.
      const stale = q<{ n: number }>(
        "SELECT count(*) AS n FROM entities WHERE (ref = ? OR parent_ref = ?) AND modified < '2021-01-01'",
        source,
        source,
      )[0];
      expect(stale).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, 120_000);
});
