import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { rawPost } from "../helpers/raw-post.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { startTestRepository } from "../helpers/repository.js";
import { asset, assetWithDc, fragmentsOf } from "../tools/metadata/support.js";
import {
  type AnyClient,
  childEnv,
  connectHttp,
  killStragglers,
  remoteEnv,
  type SpawnedCli,
  startHttp,
} from "./helpers.js";

afterAll(killStragglers);

/**
 * A team server (issue 18 §2): two separate HTTP server processes sharing PRESERVATION_CONFIRM_KEY and one
 * real redis-server (PRESERVATION_STATE_URL), as a load balancer would spread callers over them. Spent
 * tokens, target leases, rate budgets and the audit trail hold across both; with the store gone, writes are
 * refused (nothing half-done) and reads are answered.
 */

const KEY = "shared-state-test-confirm-key-0123456789";

type Preview = { confirmationRequired?: { token?: string } };
const tokenOf = (r: { structured: unknown }) =>
  (r.structured as Preview).confirmationRequired?.token as string;

async function probe(mcpUrl: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(new URL(path, mcpUrl));
  return { status: res.status, body: await res.json() };
}

describe("two instances sharing one Valkey/Redis store", () => {
  let redis: TestRedis;
  let repo: RunningRepository;
  let a: SpawnedCli & { url: string };
  let b: SpawnedCli & { url: string };
  let onA: AnyClient;
  let onB: AnyClient;

  beforeAll(async () => {
    [redis, repo] = await Promise.all([startRedis(), startTestRepository({ seed: "none" })]);
    const env = childEnv({
      ...remoteEnv(repo.url, "manager"),
      PRESERVATION_CONFIRM_KEY: KEY,
      PRESERVATION_STATE_URL: redis.url,
      PRESERVATION_TOOLSETS: "default,operations",
    });
    [a, b] = await Promise.all([startHttp([], env), startHttp([], env)]);
    [onA, onB] = await Promise.all([connectHttp("v2", a.url), connectHttp("v1", b.url)]);
  }, 60_000);
  afterAll(async () => {
    for (const c of [onA, onB]) await c?.close().catch(() => {});
    for (const s of [a, b]) await s?.stop();
    await repo?.close();
    await redis?.stop();
  });

  it("says it shares state at start-up, and never prints the store's URL", () => {
    for (const s of [a, b]) {
      expect(s.stderr()).toContain("shared state: Valkey/Redis (PRESERVATION_STATE_URL)");
      expect(s.stderr()).not.toContain(String(redis.port));
    }
  });

  it("a token spent on one instance is refused on the other, even once the target is back as previewed", async () => {
    const { asset: item } = assetWithDc(repo, { title: "Ledger", description: "Original" });
    const args = { ref: item.ref, fields: { description: "First change" } };
    const token = tokenOf(await onA.call("update_metadata", args));
    const done = await onB.call("update_metadata", { ...args, confirmation: token });
    expect(done.isError, done.text).toBe(false);

    // Put the description back, so the target's fingerprint matches the first preview again.
    const back = { ref: item.ref, fields: { description: "Original" } };
    const restored = await onA.call("update_metadata", {
      ...back,
      confirmation: tokenOf(await onA.call("update_metadata", back)),
    });
    expect(restored.isError, restored.text).toBe(false);
    const before = fragmentsOf(repo, item.ref);

    for (const replay of [onA, onB]) {
      const again = await replay.call("update_metadata", { ...args, confirmation: token });
      expect(again.isError).toBe(true);
      expect(again.text).toMatch(/already used; nothing was changed/);
    }
    expect(fragmentsOf(repo, item.ref)).toEqual(before);
  }, 30_000);

  it("6 concurrent confirmations of one target over both instances: exactly one done, 5 refused, its value stored", async () => {
    const { asset: item } = assetWithDc(repo, { title: "Harbour plans", description: "Before" });
    const callers = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => connectHttp(i < 3 ? "v2" : "v1", i % 2 ? b.url : a.url)),
    );
    try {
      const argsOf = (i: number) => ({ ref: item.ref, fields: { description: `Written by caller ${i}` } });
      const tokens = await Promise.all(
        callers.map(async (c, i) => tokenOf(await c.call("update_metadata", argsOf(i)))),
      );
      const results = await Promise.all(
        callers.map((c, i) => c.call("update_metadata", { ...argsOf(i), confirmation: tokens[i] })),
      );
      const done = results.flatMap((r, i) => (r.isError ? [] : [i]));
      expect(done, results.map((r) => r.text).join("\n---\n")).toHaveLength(1);
      const winner = done[0] as number;
      expect(results[winner]?.text).toMatch(/^Updated oai_dc metadata/);
      for (const [i, r] of results.entries()) {
        if (i === winner) continue;
        expect(r.text).toMatch(
          /(changed since the preview|is being changed by another confirmation right now); nothing was changed/,
        );
      }
      const stored = fragmentsOf(repo, item.ref);
      expect(stored).toHaveLength(1);
      expect(stored[0]?.content).toContain(`Written by caller ${winner}`);
      for (let i = 0; i < 6; i++) if (i !== winner) expect(stored[0]?.content).not.toContain(`caller ${i}<`);
    } finally {
      await Promise.all(callers.map((c) => c.close().catch(() => {})));
    }
  }, 30_000);

  it("undo on one instance of a change made through the other", async () => {
    const item = asset(repo, "Survey of the quay", { description: "Kept" });
    const changed = await onA.call("update_entity", { ref: item.ref, title: "Quay survey (renamed)" });
    expect(changed.isError, changed.text).toBe(false);
    const id = changed.text.match(/Audit entry ([0-9a-f-]{36})/)?.[1] as string;
    expect(id).toBeTruthy();

    // The trail is shared: B lists the entry A wrote, with its id.
    const listed = await onB.call("audit_log", { target: item.ref });
    expect(listed.isError, listed.text).toBe(false);
    expect(listed.text).toContain(`audit entry ${id} (\`undo_metadata_change\``);

    const preview = await onB.call("undo_metadata_change", { id });
    expect(preview.text).toMatch(/Put back the title and description/);
    const undone = await onB.call("undo_metadata_change", { id, confirmation: tokenOf(preview) });
    expect(undone.isError, undone.text).toBe(false);
    const row = repo.svc.db.prepare("SELECT title FROM entities WHERE ref = ?").get(item.ref) as {
      title: string;
    };
    expect(row.title).toBe("Survey of the quay");
  }, 30_000);

  it("the store gone mid-run: writes refused with nothing changed, reads answered, readiness says so; back, writes work", async () => {
    const { asset: item } = assetWithDc(repo, { description: "Unchanged" }, "Tide tables");
    const args = { ref: item.ref, fields: { description: "Never written" } };
    const token = tokenOf(await onA.call("update_metadata", args));
    const before = fragmentsOf(repo, item.ref);

    await redis.kill();
    const confirmed = await onB.call("update_metadata", { ...args, confirmation: token });
    expect(confirmed.isError).toBe(true);
    expect(confirmed.text).toMatch(
      /shared state store \(PRESERVATION_STATE_URL\) cannot be reached, so no change is made/,
    );
    const folder = await onA.call("create_folder", {
      title: "Made while the store was away",
      securityTag: "open",
    });
    expect(folder.isError).toBe(true);
    expect(folder.text).toMatch(/cannot be reached.*Reading still works/s);
    expect(fragmentsOf(repo, item.ref)).toEqual(before);
    expect(
      repo.svc.db
        .prepare("SELECT count(*) AS n FROM entities WHERE title = ?")
        .get("Made while the store was away"),
    ).toEqual({ n: 0 });

    for (const c of [onA, onB]) {
      const read = await c.call("get_entity", { ref: item.ref });
      expect(read.isError, read.text).toBe(false);
      expect(read.text).toContain("Tide tables");
    }
    const ready = await probe(a.url, "/readyz");
    expect(ready).toEqual({
      status: 200,
      body: {
        status: "ready",
        degraded:
          "the shared state store (PRESERVATION_STATE_URL) cannot be reached: changes are refused, reading goes on",
      },
    });

    await redis.start();
    for (let i = 0; i < 60; i++) {
      if (!((await probe(b.url, "/readyz")).body as { degraded?: string }).degraded) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const fresh = await onB.call("update_metadata", {
      ...args,
      confirmation: tokenOf(await onB.call("update_metadata", args)),
    });
    expect(fresh.isError, fresh.text).toBe(false);
    expect(fragmentsOf(repo, item.ref)[0]?.content).toContain("Never written");
  }, 30_000);
});

describe("rate budgets over two instances sharing a store", () => {
  let redis: TestRedis;
  let repo: RunningRepository;
  let servers: (SpawnedCli & { url: string })[] = [];

  beforeAll(async () => {
    [redis, repo] = await Promise.all([startRedis(), startTestRepository({ seed: "none" })]);
    const env = childEnv({
      ...remoteEnv(repo.url, "reader"),
      PRESERVATION_STATE_URL: redis.url,
      PRESERVATION_HTTP_RATE: "6/min",
    });
    servers = await Promise.all([startHttp([], env), startHttp([], env)]);
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await repo?.close();
    await redis?.stop();
  });

  it("one client's 6 a minute hold across both instances (not 6 each)", async () => {
    const statuses: number[] = [];
    const retryAfter: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await rawPost((servers[i % 2] as { url: string }).url, {});
      statuses.push(res.status);
      if (res.status === 429) retryAfter.push(JSON.parse(res.body).error.message);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect(retryAfter[0]).toMatch(/each client may make 6 requests a minute; try again in \d+ s/);
  }, 30_000);
});
