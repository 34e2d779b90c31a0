import { once } from "node:events";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openDatabase, openDatabaseFile } from "../../../repository/store/db.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { spawnRepository, stopAllSpawned } from "../../helpers/process.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { accepted, progress, settled } from "../writes/structure-helpers.js";
import { buildZip, children, hash, uploadPackage } from "./ingest-helpers.js";

/**
 * An ingest killed with SIGKILL while it streams files into the content store, then the service
 * restarted on the same data directory: nothing of the package is visible before its one commit, and
 * after the restart the ingest runs again and completes (or, when its package file is gone, ends
 * FAILED saying so), never ACTIVE forever, never anything twice.
 *
 * Runs the built CLI (`npm run build` first; `npm test` does). PRESERVATION_INGEST_PAUSE_MS (a
 * documented test-only setting) makes the ingest wait after each file, so there is time to kill it.
 */

const FILES = 30;

afterAll(async () => {
  await stopAllSpawned();
});

function buildDataDir(): { dir: string; folder: string } {
  const dir = tempDir("ingest-crash-");
  const db = openDatabase(dir);
  const folder = insertEntity(db, {
    type: "SO",
    title: "Inbox",
    securityTag: "open",
    created: "2020-01-01T00:00:00.000Z",
  }).ref;
  db.close();
  return { dir, folder };
}

const fileData = (i: number) => `Register page ${i}\n`.repeat(200 + i);

async function packageOfFiles(): Promise<Buffer> {
  return buildZip(
    Array.from({ length: FILES }, (_, i) => ({
      name: `Register/page-${String(i).padStart(3, "0")}.txt`,
      data: fileData(i),
    })),
  );
}

/** Starts an ingest in a service that pauses after each file, and kills it once a few files are in. */
async function killMidIngest(dir: string, folder: string): Promise<string> {
  const first = await spawnRepository(["--data", dir, "--seed", "none"], {
    PRESERVATION_INGEST_PAUSE_MS: "100",
  });
  const get = authed(first.url, (await login(first.url, "curator")).token);
  const id = await accepted(await uploadPackage(get, folder, await packageOfFiles()));
  let seen = { status: "ACTIVE", done: 0, total: 0, failed: 0, message: "" };
  for (;;) {
    seen = await progress(get, id);
    if (seen.status !== "ACTIVE" || seen.done >= 5) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(seen.status, "the ingest finished before it could be interrupted").toBe("ACTIVE");
  expect(seen.total).toBe(FILES);
  // Half-way through the streaming, nothing of the package is visible yet.
  expect((await children(get, folder)).size).toBe(0);
  first.child.kill("SIGKILL");
  await once(first.child, "exit");
  return id;
}

function readStore<T>(dir: string, fn: (db: Db) => T): T {
  const db = openDatabaseFile(join(dir, "repository.sqlite"), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

describe("an ingest killed half-way", () => {
  it("leaves nothing visible, and after a restart runs again to COMPLETED, every file once", async () => {
    const { dir, folder } = buildDataDir();
    const id = await killMidIngest(dir, folder);

    const left = readStore(dir, (db) => ({
      action: db.prepare("SELECT status, done, total FROM actions WHERE id = ?").get(id) as {
        status: string;
        done: number;
      },
      entities: (db.prepare("SELECT count(*) AS n FROM entities").get() as { n: number }).n,
      events: (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n,
    }));
    expect(left.action.status).toBe("ACTIVE");
    expect(left.action.done).toBeGreaterThan(0);
    expect(left.entities).toBe(1); // the folder alone
    expect(left.events).toBe(0);
    expect(readdirSync(join(dir, "packages"))).toHaveLength(1);

    const second = await spawnRepository(["--data", dir, "--seed", "none"]);
    const get = authed(second.url, (await login(second.url, "curator")).token);
    const end = await settled(get, id, 60_000);
    expect(end).toMatchObject({ status: "COMPLETED", total: FILES, done: FILES, failed: 0 });
    const register = await children(get, (await children(get, folder)).get("Register")?.ref as string);
    expect(register.size).toBe(FILES);
    await second.stop();

    readStore(dir, (db) => {
      const q = <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[];
      // Each file once: one asset, one content object, one bitstream with its own bytes' fixity.
      expect(
        q<{ type: string; n: number }>(
          "SELECT type, count(*) AS n FROM entities GROUP BY type ORDER BY type",
        ),
      ).toEqual([
        { type: "CO", n: FILES },
        { type: "IO", n: FILES },
        { type: "SO", n: 2 },
      ]);
      const sums = q<{ filename: string; value: string }>(
        "SELECT b.filename, f.value FROM bitstreams b JOIN fixities f ON f.bitstream_id = b.id AND f.algorithm = 'SHA256' ORDER BY b.filename",
      );
      expect(sums).toEqual(
        Array.from({ length: FILES }, (_, i) => ({
          filename: `page-${String(i).padStart(3, "0")}.txt`,
          value: hash("sha256", fileData(i)),
        })),
      );
      // One Ingest event, one command_create per entity; items once each.
      const events = q<{ id: number }>("SELECT id FROM events WHERE type = 'Ingest'");
      expect(events).toHaveLength(1);
      expect(
        q(
          "SELECT count(*) AS n, count(DISTINCT entity_ref) AS d FROM event_actions WHERE event_id = ?",
          events[0]?.id,
        ),
      ).toEqual([{ n: 2 * FILES + 1, d: 2 * FILES + 1 }]);
      expect(q("SELECT count(*) AS n FROM action_items WHERE action_id = ?", id)).toEqual([{ n: FILES }]);
    });
    expect(readdirSync(join(dir, "packages"))).toEqual([]);
  }, 120_000);

  it("ends FAILED, saying why, when its package file is gone by the restart", async () => {
    const { dir, folder } = buildDataDir();
    const id = await killMidIngest(dir, folder);
    for (const f of readdirSync(join(dir, "packages"))) rmSync(join(dir, "packages", f));

    const second = await spawnRepository(["--data", dir, "--seed", "none"]);
    const get = authed(second.url, (await login(second.url, "curator")).token);
    const end = await settled(get, id, 60_000);
    expect(end.status).toBe("FAILED");
    expect(end.message).toMatch(/is no longer on the service's disk .*nothing was ingested: upload it again/);
    expect((await children(get, folder)).size).toBe(0);
    await second.stop();
  }, 120_000);
});

describe("an ingest interrupted by a stop of the service", () => {
  it("keeps its package and resumes at the next start", async () => {
    const { dir, folder } = buildDataDir();
    process.env.PRESERVATION_INGEST_PAUSE_MS = "50";
    let id: string;
    try {
      const repo = await startTestRepository({ dataDir: dir });
      const get = authed(repo.url, (await login(repo.url, "curator")).token);
      id = await accepted(await uploadPackage(get, folder, await packageOfFiles()));
      for (let p = await progress(get, id); p.done < 3; p = await progress(get, id)) {
        expect(p.status).toBe("ACTIVE");
        await new Promise((r) => setTimeout(r, 20));
      }
      await repo.close();
    } finally {
      delete process.env.PRESERVATION_INGEST_PAUSE_MS;
    }
    expect(readStore(dir, (db) => db.prepare("SELECT status FROM actions WHERE id = ?").get(id))).toEqual({
      status: "ACTIVE",
    });
    expect(readdirSync(join(dir, "packages"))).toHaveLength(1);

    const again = await startTestRepository({ dataDir: dir });
    try {
      await again.svc.actions.idle();
      const get = authed(again.url, (await login(again.url, "curator")).token);
      expect(await progress(get, id)).toMatchObject({ status: "COMPLETED", done: FILES });
      expect(readdirSync(join(dir, "packages"))).toEqual([]);
    } finally {
      await again.close();
    }
  }, 60_000);
});
