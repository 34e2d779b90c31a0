import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/guards/audit.js";
import type { SharedState } from "../../src/state/types.js";

/**
 * What every SharedState must do, run against each implementation (memory.test.ts, redis.test.ts): the
 * guards and tools rely on exactly this, whichever store a deployment has. `make` gives a fresh, empty state.
 */
export function sharedStateContract(name: string, make: () => Promise<SharedState>): void {
  describe(`SharedState contract: ${name}`, () => {
    const opened: SharedState[] = [];
    const fresh = async () => {
      const s = await make();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    it("is reachable and answers a ping", async () => {
      const s = await fresh();
      expect(s.reachable).toBe(true);
      await expect(s.ping()).resolves.toBeUndefined();
    });

    it("spendOnce: exactly one of many concurrent spends wins; the id stays spent until it expires", async () => {
      const s = await fresh();
      const results = await Promise.all(Array.from({ length: 20 }, () => s.spendOnce("token-1", 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await s.spendOnce("token-1", 60_000)).toBe(false);
      expect(await s.spendOnce("token-2", 60_000)).toBe(true);
      expect(await s.spendOnce("short", 30)).toBe(true);
      await pause(80);
      expect(await s.spendOnce("short", 30)).toBe(true);
    });

    it("lease: one holder at a time; release frees it; a lapsed holder cannot free its successor's lease", async () => {
      const s = await fresh();
      const leases = await Promise.all(Array.from({ length: 10 }, () => s.lease("target:A", 60_000)));
      expect(leases.filter(Boolean)).toHaveLength(1);
      expect(await s.lease("target:B", 60_000)).toBeDefined();
      await leases.find(Boolean)?.release();
      const again = await s.lease("target:A", 60_000);
      expect(again).toBeDefined();
      await again?.release();

      const lapsing = await s.lease("target:C", 30);
      expect(lapsing).toBeDefined();
      await pause(80);
      const successor = await s.lease("target:C", 60_000);
      expect(successor).toBeDefined();
      await lapsing?.release();
      expect(await s.lease("target:C", 60_000)).toBeUndefined();
      await successor?.release();
      expect(await s.lease("target:C", 60_000)).toBeDefined();
    });

    it("hit: counts within a fixed window and starts a new one when it ends", async () => {
      const s = await fresh();
      const counts = await Promise.all(Array.from({ length: 5 }, () => s.hit("caller", 60_000)));
      expect(counts.map((c) => c.count).sort()).toEqual([1, 2, 3, 4, 5]);
      for (const c of counts) expect(c.resetInMs).toBeGreaterThan(50_000);
      expect((await s.hit("someone-else", 60_000)).count).toBe(1);
      expect((await s.hit("brief", 30)).count).toBe(1);
      expect((await s.hit("brief", 30)).count).toBe(2);
      await pause(80);
      expect((await s.hit("brief", 30)).count).toBe(1);
    });

    it("values: kept for their time, replaced, deleted", async () => {
      const s = await fresh();
      expect(await s.getValue("k")).toBeUndefined();
      await s.setValue("k", "sealed-1", 60_000);
      expect(await s.getValue("k")).toBe("sealed-1");
      await s.setValue("k", "sealed-2", 60_000);
      expect(await s.getValue("k")).toBe("sealed-2");
      await s.deleteValue("k");
      expect(await s.getValue("k")).toBeUndefined();
      await s.setValue("brief", "x", 30);
      await pause(80);
      expect(await s.getValue("brief")).toBeUndefined();
    });

    it("audit: found by id; listed newest first, filtered by user, target, tool and dates, paged with a total", async () => {
      const s = await fresh();
      const base = Date.parse("2026-03-01T10:00:00.000Z");
      const entry = (i: number, user: string, tool: string, refs: string[]): AuditEntry => ({
        id: randomUUID(),
        time: new Date(base + i * 60_000).toISOString(),
        user,
        tool,
        targets: refs.map((ref) => ({ ref, title: `Title of ${ref}` })),
        argsDigest: `sha256:${i}`,
        outcome: i % 4 === 3 ? "refused" : "done",
        ...(tool === "update_metadata"
          ? {
              previous: {
                ref: refs[0] as string,
                entityType: "IO" as const,
                title: "Before",
                description: "",
              },
            }
          : {}),
      });
      const all = [
        entry(0, "ann", "update_metadata", ["io-1"]),
        entry(1, "bob", "move_entity", ["so-1", "so-2"]),
        entry(2, "ann", "move_entity", ["io-1", "so-2"]),
        entry(3, "bob", "update_metadata", ["io-2"]),
        entry(4, "ann", "delete_entity", ["io-2"]),
        entry(5, "cy", "update_metadata", ["io-1"]),
      ];
      for (const e of all) await s.appendAudit(e);
      const ids = (r: { entries: AuditEntry[] }) => r.entries.map((e) => e.id);
      const newestFirst = [...all].reverse();

      expect(await s.findAudit(all[3]?.id as string)).toEqual(all[3]);
      expect(await s.findAudit(randomUUID())).toBeUndefined();

      const everything = await s.listAudit({ limit: 10 });
      expect(ids(everything)).toEqual(newestFirst.map((e) => e.id));
      expect(everything.total).toBe(6);

      const page2 = await s.listAudit({ limit: 2, offset: 2 });
      expect(ids(page2)).toEqual(newestFirst.slice(2, 4).map((e) => e.id));
      expect(page2.total).toBe(6);

      const ann = await s.listAudit({ user: "ann", limit: 10 });
      expect(ids(ann)).toEqual(newestFirst.filter((e) => e.user === "ann").map((e) => e.id));
      expect(ann.total).toBe(3);

      const io1 = await s.listAudit({ target: "io-1", limit: 10 });
      expect(ids(io1)).toEqual([all[5], all[2], all[0]].map((e) => e?.id));

      const annIo1Page = await s.listAudit({ user: "ann", target: "io-1", limit: 1, offset: 1 });
      expect(ids(annIo1Page)).toEqual([all[0]?.id]);
      expect(annIo1Page.total).toBe(2);

      const moves = await s.listAudit({ tool: "move_entity", limit: 10 });
      expect(ids(moves)).toEqual([all[2], all[1]].map((e) => e?.id));

      const window = await s.listAudit({ since: all[1]?.time, until: all[3]?.time, limit: 10 });
      expect(ids(window)).toEqual([all[3], all[2], all[1]].map((e) => e?.id));
      expect(window.total).toBe(3);

      const bobSince = await s.listAudit({ user: "bob", since: all[2]?.time, limit: 10 });
      expect(ids(bobSince)).toEqual([all[3]?.id]);

      expect(await s.listAudit({ user: "nobody", limit: 10 })).toEqual({ entries: [], total: 0 });
      expect((await s.listAudit({ limit: 0 })).total).toBe(6);
    });
  });
}
