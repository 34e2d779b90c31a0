import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/guards/audit.js";
import { openSharedState } from "../../src/state/index.js";
import { RedisState } from "../../src/state/redis.js";
import { StateUnavailableError } from "../../src/state/types.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { sharedStateContract } from "./contract.js";

/** Against a real redis-server on loopback (test/helpers/redis.ts): one per file. */
let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

// A prefix per state: each test starts from an empty store without flushing the others'.
sharedStateContract("Valkey/Redis", () => RedisState.open({ url: redis.url, prefix: `t${randomUUID()}:` }));

const entry = (i: number, refs: string[]): AuditEntry => ({
  id: randomUUID(),
  time: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
  user: `user-${i % 2}`,
  tool: "update_metadata",
  targets: refs.map((ref) => ({ ref, title: ref })),
  argsDigest: "sha256:x",
  outcome: "done",
});

describe("RedisState", () => {
  it("openSharedState picks it for a redis:// URL, in-process without one", async () => {
    const shared = await openSharedState(redis.url);
    const local = await openSharedState(undefined);
    expect([shared.kind, local.kind]).toEqual(["redis", "memory"]);
    await shared.close();
    await local.close();
  });

  it("two instances on one store: a token spent through one is spent for the other; leases and budgets are one", async () => {
    const prefix = `t${randomUUID()}:`;
    const [a, b] = await Promise.all([
      RedisState.open({ url: redis.url, prefix }),
      RedisState.open({ url: redis.url, prefix }),
    ]);
    expect(await a.spendOnce("n1", 60_000)).toBe(true);
    expect(await b.spendOnce("n1", 60_000)).toBe(false);
    const lease = await a.lease("target:io-1", 60_000);
    expect(lease).toBeDefined();
    expect(await b.lease("target:io-1", 60_000)).toBeUndefined();
    await lease?.release();
    expect(await b.lease("target:io-1", 60_000)).toBeDefined();
    await a.hit("caller", 60_000);
    expect((await b.hit("caller", 60_000)).count).toBe(2);
    const e = entry(1, ["io-1"]);
    await a.appendAudit(e);
    expect(await b.findAudit(e.id)).toEqual(e);
    await a.close();
    await b.close();
  });

  it("keeps the newest entries up to its cap, and drops the oldest from every index", async () => {
    const s = await RedisState.open({ url: redis.url, prefix: `t${randomUUID()}:`, auditCap: 3 });
    const all = [0, 1, 2, 3, 4].map((i) => entry(i, [`io-${i % 2}`, "so-shared"]));
    for (const e of all) await s.appendAudit(e);
    expect((await s.listAudit({ limit: 10 })).entries.map((e) => e.id)).toEqual(
      all
        .slice(2)
        .reverse()
        .map((e) => e.id),
    );
    expect((await s.listAudit({ target: "so-shared", limit: 10 })).total).toBe(3);
    expect((await s.listAudit({ target: "io-0", limit: 10 })).entries.map((e) => e.id)).toEqual(
      [all[4], all[2]].map((e) => e?.id),
    );
    expect((await s.listAudit({ user: "user-1", limit: 10 })).total).toBe(1);
    expect(await s.findAudit(all[0]?.id as string)).toBeUndefined();
    await s.close();
  });

  it("the store going away: every operation refused at once with StateUnavailableError; back again, all works", async () => {
    const s = await RedisState.open({ url: redis.url, prefix: `t${randomUUID()}:` });
    await s.setValue("kept", "no", 60_000);
    await redis.kill();
    const started = performance.now();
    const attempts: Promise<unknown>[] = [
      s.ping(),
      s.spendOnce("n", 60_000),
      s.lease("target:x", 60_000),
      s.hit("c", 60_000),
      s.getValue("kept"),
      s.setValue("k", "v", 60_000),
      s.deleteValue("k"),
      s.appendAudit(entry(1, ["io-1"])),
      s.findAudit(randomUUID()),
      s.listAudit({ limit: 5 }),
    ];
    for (const a of attempts) await expect(a).rejects.toBeInstanceOf(StateUnavailableError);
    expect(performance.now() - started).toBeLessThan(2500);
    expect(s.reachable).toBe(false);
    const refused = await s.ping().catch((e: Error) => e.message);
    expect(refused).toMatch(/cannot be reached.*no change is made.*Reading still works/s);
    expect(refused).not.toContain(String(redis.port));

    await redis.start();
    for (let i = 0; i < 100 && !s.reachable; i++) await new Promise((r) => setTimeout(r, 50));
    expect(s.reachable).toBe(true);
    expect(await s.spendOnce("n", 60_000)).toBe(true);
    await s.close();
  }, 20_000);

  it("a store unreachable at start-up: opens anyway (writes refused), and connects once it is there", async () => {
    await redis.kill();
    const s = await RedisState.open({ url: redis.url, prefix: `t${randomUUID()}:`, connectWaitMs: 200 });
    expect(s.reachable).toBe(false);
    await expect(s.spendOnce("n", 1000)).rejects.toBeInstanceOf(StateUnavailableError);
    await redis.start();
    for (let i = 0; i < 100 && !s.reachable; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await s.spendOnce("n", 1000)).toBe(true);
    await s.close();
  }, 20_000);
});
