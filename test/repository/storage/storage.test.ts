import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_STORAGE } from "../../../repository/seed/storage.js";
import type { RunningRepository } from "../../../repository/server.js";
import { BUILT_IN_ADAPTER_ID } from "../../../repository/store/migrations/010-storage.js";
import { authed, DEMO_USERS, login, startTestRepository } from "../../helpers/repository.js";
import { arr, getXml } from "../entity-xml.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * The Storage API, the storage policy of the Settings API, the Entitlement API and the storage locations of
 * a bitstream, over HTTP against the demo collection: each with the right role and the wrong one, and the
 * state behind each answer checked against the store itself.
 */

type Get = ReturnType<typeof authed>;

let repo: RunningRepository;
let manager: Get;
let curator: Get;
let reader: Get;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
}, 60_000);
afterAll(async () => {
  await repo?.close();
});

interface Envelope<T> {
  success: boolean;
  version: number;
  value: T;
}

interface AdapterJson {
  id: string;
  name: string;
  type: string;
  enabled: boolean;
  builtIn: boolean;
  inPolicy: boolean;
  settings: Record<string, string>;
  modifiedBy: string;
}

interface LimitJson {
  feature: string;
  limit: number | null;
  used: number;
  remaining: number | null;
  reached: boolean;
}

async function value<T>(res: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(status);
  const body = JSON.parse(text) as Envelope<T>;
  expect(body.success).toBe(true);
  expect(body.version).toBe(1);
  return body.value;
}

function json(method: string, body: unknown): RequestInit {
  return { method, body: JSON.stringify(body), headers: { "Content-Type": "application/json" } };
}

/** The bytes of each distinct blob that a bitstream or preview names, as the content store holds them. */
function bytesOnDisk(): number {
  const shas = repo.svc.db
    .prepare("SELECT content_sha256 AS sha FROM bitstreams UNION SELECT content_sha256 FROM previews")
    .all() as { sha: string }[];
  return shas.reduce((sum, s) => sum + repo.svc.content.size(s.sha), 0);
}

function configEvents(category: string) {
  return repo.svc.db
    .prepare(
      "SELECT command_type, subject, summary, username, details FROM config_events WHERE category = ? ORDER BY id",
    )
    .all(category) as {
    command_type: string;
    subject: string;
    summary: string;
    username: string;
    details: string;
  }[];
}

async function refused(get: Get, path: string, init: RequestInit, status: number, message: RegExp) {
  const before = storeHash(repo.svc.db);
  const r = await get(path, init);
  const body = (await r.json()) as { success: boolean; message: string };
  expect(r.status, body.message).toBe(status);
  expect(body.success).toBe(false);
  expect(body.message).toMatch(message);
  expect(storeHash(repo.svc.db), `${init.method ?? "GET"} ${path} changed the store`).toBe(before);
}

describe("quota", () => {
  it("measures the bytes really stored against the Starter edition's quota, for any signed-in user", async () => {
    const q = await value<{
      edition: string;
      quotaBytes: number;
      usedBytes: number;
      remainingBytes: number;
      percentUsed: number;
      exceeded: boolean;
      bitstreams: { count: number };
    }>(reader("/api/storage/quota"));
    expect(q.edition).toBe("Starter");
    expect(q.usedBytes).toBe(bytesOnDisk());
    expect(q.usedBytes).toBeGreaterThan(500_000);
    expect(q.remainingBytes).toBe(q.quotaBytes - q.usedBytes);
    // The demo's quota is enforced, so it leaves room for what people and tests ingest into it.
    expect(q.quotaBytes).toBe(DEMO_STORAGE.quotaBytes);
    expect(q.percentUsed).toBeLessThan(1);
    expect(q.exceeded).toBe(false);
    expect(q.bitstreams.count).toBe(
      (repo.svc.db.prepare("SELECT COUNT(*) AS n FROM bitstreams").get() as { n: number }).n,
    );
  });

  it("needs a token (401 without one)", async () => {
    expect((await fetch(`${repo.url}/api/storage/quota`)).status).toBe(401);
    expect((await fetch(`${repo.url}/api/entitlement/limits`)).status).toBe(401);
    expect((await fetch(`${repo.url}/api/entitlement/edition`)).status).toBe(401);
  });

  it("grows by exactly the bytes of new content once it is stored", async () => {
    const before = await value<{ usedBytes: number }>(manager("/api/storage/quota"));
    const co = (
      repo.svc.db
        .prepare(
          "SELECT ref FROM entities WHERE type = 'CO' AND deleted = 0 AND security_tag = 'open' LIMIT 1",
        )
        .get() as { ref: string }
    ).ref;
    const bytes = Buffer.from(
      `Fresh content never stored before: ${Date.now()} ${Math.random()}\n`.repeat(40),
    );
    const r = await manager(`/api/entity/content-objects/${co}/generations?replaceType=previous`, {
      method: "POST",
      body: bytes,
      headers: {
        "Content-Type": "application/octet-stream",
        Filename: "fresh.txt",
        "Fixity-SHA-256": createHash("sha256").update(bytes).digest("hex"),
      },
    });
    expect(r.status, await r.clone().text()).toBeLessThan(300);
    await repo.svc.actions.idle();
    const after = await value<{ usedBytes: number }>(manager("/api/storage/quota"));
    expect(after.usedBytes - before.usedBytes).toBe(bytes.length);
    expect(after.usedBytes).toBe(bytesOnDisk());
  });
});

describe("storage adapters", () => {
  it("lists the built-in content store first, then the demo's adapters, to an administrator", async () => {
    const { adapters } = await value<{ adapters: AdapterJson[] }>(manager("/api/storage/adapters"));
    expect(adapters.map((a) => a.id)).toEqual([
      BUILT_IN_ADAPTER_ID,
      DEMO_STORAGE.replicaId,
      DEMO_STORAGE.coldId,
    ]);
    expect(adapters[0]).toMatchObject({ builtIn: true, enabled: true, inPolicy: true, type: "FILE_SYSTEM" });
    expect(adapters[1]).toMatchObject({ type: "S3", inPolicy: true, settings: { region: "eu-west-2" } });
    expect(adapters[2]).toMatchObject({ type: "GLACIER", enabled: false, inPolicy: false });
    const one = await value<AdapterJson>(manager(`/api/storage/adapters/${DEMO_STORAGE.replicaId}`));
    expect(one.name).toBe(adapters[1]?.name);
  });

  it("refuses every adapter operation to non-administrators with 403 and changes nothing", async () => {
    for (const who of [curator, reader]) {
      await refused(who, "/api/storage/adapters", {}, 403, /Only administrators/);
      await refused(who, `/api/storage/adapters/${DEMO_STORAGE.coldId}`, {}, 403, /ROLE_SDB_ADMIN_USER/);
      await refused(
        who,
        "/api/storage/adapters",
        json("POST", { name: "X", type: "S3" }),
        403,
        /Only administrators/,
      );
      await refused(
        who,
        `/api/storage/adapters/${DEMO_STORAGE.coldId}`,
        json("PUT", { name: "Y" }),
        403,
        /Only/,
      );
      await refused(who, `/api/storage/adapters/${DEMO_STORAGE.coldId}`, { method: "DELETE" }, 403, /Only/);
    }
  });

  it("refuses bad input with what to send, and 404 for an unknown adapter", async () => {
    const A = "/api/storage/adapters";
    await refused(manager, A, json("POST", { name: "X", type: "FLOPPY" }), 400, /type must be one of/);
    await refused(manager, A, json("POST", { type: "S3" }), 400, /name must be a string/);
    await refused(
      manager,
      A,
      json("POST", { name: "X", type: "S3", settings: { secretKey: "s" } }),
      400,
      /credential/,
    );
    await refused(
      manager,
      A,
      json("POST", { name: "X", type: "S3", colour: "red" }),
      400,
      /Unknown field "colour"/,
    );
    await refused(manager, A, { method: "POST", body: "{not json" }, 400, /JSON object/);
    await refused(
      manager,
      A,
      json("POST", { name: "offsite replica (s3, EU-WEST-2)", type: "S3" }),
      409,
      /exists/,
    );
    await refused(manager, `${A}/not-an-id`, {}, 400, /UUIDs/);
    await refused(manager, `${A}/00000000-0000-4000-8000-000000000000`, {}, 404, /No storage adapter/);
  });

  it("keeps the built-in store and the policy's adapters from being removed or disabled", async () => {
    const A = "/api/storage/adapters";
    await refused(manager, `${A}/${BUILT_IN_ADAPTER_ID}`, { method: "DELETE" }, 409, /built-in/);
    await refused(
      manager,
      `${A}/${BUILT_IN_ADAPTER_ID}`,
      json("PUT", { enabled: false }),
      409,
      /enabled cannot/,
    );
    await refused(manager, `${A}/${BUILT_IN_ADAPTER_ID}`, json("PUT", { type: "S3" }), 409, /type cannot/);
    await refused(manager, `${A}/${DEMO_STORAGE.replicaId}`, { method: "DELETE" }, 409, /storage policy/);
    await refused(
      manager,
      `${A}/${DEMO_STORAGE.replicaId}`,
      json("PUT", { enabled: false }),
      409,
      /storage policy/,
    );
  });

  it("adds, updates and removes an adapter, each with its config event, up to the edition's limit", async () => {
    const eventsBefore = configEvents("STORAGE").length;
    const created = await value<AdapterJson>(
      manager(
        "/api/storage/adapters",
        json("POST", { name: "Azure copy", type: "azure", settings: { container: "c1" } }),
      ),
      201,
    );
    expect(created).toMatchObject({ type: "AZURE", enabled: true, builtIn: false, inPolicy: false });
    // The demo's Starter edition allows 4 adapters: this was the fourth.
    await refused(
      manager,
      "/api/storage/adapters",
      json("POST", { name: "Fifth", type: "S3" }),
      409,
      /allows 4/,
    );
    const limits = await value<{ limits: LimitJson[] }>(reader("/api/entitlement/limits"));
    expect(limits.limits.find((l) => l.feature === "STORAGE_ADAPTERS")).toMatchObject({
      used: 4,
      reached: true,
    });

    const renamed = await value<AdapterJson>(
      manager(
        `/api/storage/adapters/${created.id}`,
        json("PUT", { ...created, name: "Azure copy (UK South)" }),
      ),
    );
    expect(renamed.name).toBe("Azure copy (UK South)");
    const enabled = await value<AdapterJson>(
      manager(`/api/storage/adapters/${DEMO_STORAGE.coldId}`, json("PUT", { enabled: true })),
    );
    expect(enabled.enabled).toBe(true);
    const gone = await manager(`/api/storage/adapters/${created.id}`, { method: "DELETE" });
    expect(gone.status).toBe(204);
    expect((await manager(`/api/storage/adapters/${created.id}`)).status).toBe(404);

    const events = configEvents("STORAGE").slice(eventsBefore);
    expect(events.map((e) => [e.command_type, e.subject])).toEqual([
      ["CREATE", created.id],
      ["UPDATE", created.id],
      ["ENABLE", DEMO_STORAGE.coldId],
      ["DELETE", created.id],
    ]);
    expect(events.every((e) => e.username === "manager")).toBe(true);
    expect(events[1]?.summary).toMatch(/Changed name/);
    expect(JSON.parse(events[1]?.details ?? "{}")).toMatchObject({
      before: { name: "Azure copy" },
      after: { name: "Azure copy (UK South)" },
    });
    // Put back as the demo has it, for the tests below.
    await value(manager(`/api/storage/adapters/${DEMO_STORAGE.coldId}`, json("PUT", { enabled: false })));
  });
});

describe("storage policy and storage locations", () => {
  const P = "/api/settings/storage/config/policy";

  async function firstBitstream(): Promise<string> {
    const row = repo.svc.db
      .prepare(
        `SELECT g.co_ref AS co, g.idx AS g, b.idx AS b FROM bitstreams b JOIN generations g ON g.id = b.generation_id
         JOIN entities e ON e.ref = g.co_ref WHERE e.security_tag = 'open' AND e.deleted = 0 ORDER BY b.id LIMIT 1`,
      )
      .get() as { co: string; g: number; b: number };
    return `/api/entity/content-objects/${row.co}/generations/${row.g}/bitstreams/${row.b}/storage-locations`;
  }

  async function locations(get: Get, path: string): Promise<string[]> {
    const doc = await getXml(get, path);
    return arr(doc.root.StorageLocation.Adapter).map((a) => a["@name"] as string);
  }

  it("shows the demo's two-copy policy to any signed-in user", async () => {
    const p = await value<{
      name: string;
      minimumCopies: number;
      adapters: { id: string; primary: boolean }[];
    }>(reader(P));
    expect(p.name).toBe("Two copies, one offsite");
    expect(p.minimumCopies).toBe(2);
    expect(p.adapters.map((a) => [a.id, a.primary])).toEqual([
      [BUILT_IN_ADAPTER_ID, true],
      [DEMO_STORAGE.replicaId, false],
    ]);
  });

  it("names a bitstream's storage locations from the policy, to a reader of the content object", async () => {
    expect(await locations(reader, await firstBitstream())).toEqual([
      "Local content store",
      "Offsite replica (S3, eu-west-2)",
    ]);
  });

  it("refuses a policy to non-administrators and bad policies, changing nothing", async () => {
    const good = { name: "Local only", adapters: [BUILT_IN_ADAPTER_ID] };
    await refused(curator, P, json("PUT", good), 403, /Only administrators may apply a storage policy/);
    await refused(reader, P, json("PUT", good), 403, /Only administrators/);
    await refused(
      manager,
      P,
      json("PUT", { name: "No local", adapters: [DEMO_STORAGE.replicaId] }),
      400,
      /built-in/,
    );
    await refused(
      manager,
      P,
      json("PUT", { name: "Cold", adapters: [BUILT_IN_ADAPTER_ID, DEMO_STORAGE.coldId] }),
      400,
      /disabled/,
    );
    await refused(
      manager,
      P,
      json("PUT", { name: "Twice", adapters: [BUILT_IN_ADAPTER_ID, BUILT_IN_ADAPTER_ID] }),
      400,
      /twice/,
    );
    await refused(manager, P, json("PUT", { ...good, minimumCopies: 2 }), 400, /minimumCopies/);
    await refused(manager, P, json("PUT", { name: "Empty", adapters: [] }), 400, /list of 1 to/);
  });

  it("applies a policy: locations follow it, a config event records it, its old adapter may then go", async () => {
    const path = await firstBitstream();
    const before = configEvents("SETTINGS").length;
    const applied = await value<{ name: string; appliedBy: string; adapters: { id: string }[] }>(
      manager(
        P,
        json("PUT", {
          name: "Local only",
          description: "One copy while the replica moves",
          adapters: [BUILT_IN_ADAPTER_ID],
        }),
      ),
    );
    expect(applied).toMatchObject({ name: "Local only", appliedBy: "manager" });
    expect(await locations(manager, path)).toEqual(["Local content store"]);
    const events = configEvents("SETTINGS").slice(before);
    expect(events.map((e) => [e.command_type, e.subject])).toEqual([["APPLY", "storage policy"]]);
    expect(JSON.parse(events[0]?.details ?? "{}")).toMatchObject({
      before: { adapters: [BUILT_IN_ADAPTER_ID, DEMO_STORAGE.replicaId] },
      after: { adapters: [BUILT_IN_ADAPTER_ID] },
    });
    const replica = await value<AdapterJson>(manager(`/api/storage/adapters/${DEMO_STORAGE.replicaId}`));
    expect(replica.inPolicy).toBe(false);
    // Restore the demo's policy.
    await value(
      manager(
        P,
        json("PUT", {
          name: "Two copies, one offsite",
          adapters: [BUILT_IN_ADAPTER_ID, DEMO_STORAGE.replicaId],
        }),
      ),
    );
    expect(await locations(manager, path)).toHaveLength(2);
  });

  it("answers 404 for a bitstream that does not exist", async () => {
    const path = (await firstBitstream()).replace(/bitstreams\/\d+/, "bitstreams/99");
    expect((await manager(path)).status).toBe(404);
  });
});

describe("entitlements", () => {
  it("names the edition at the top level, as pyPreservica reads it", async () => {
    const r = await reader("/api/entitlement/edition");
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ edition: "Starter" });
  });

  it("counts each limit's use from the store", async () => {
    const db = repo.svc.db;
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const { edition, limits } = await value<{ edition: string; limits: LimitJson[] }>(
      curator("/api/entitlement/limits"),
    );
    expect(edition).toBe("Starter");
    const by = Object.fromEntries(limits.map((l) => [l.feature, l]));
    expect(by.USERS).toMatchObject({
      limit: 10,
      used: count("SELECT COUNT(*) AS n FROM users WHERE enabled = 1 AND temporary = 0"),
    });
    expect(by.USERS?.used).toBe(4);
    expect(by.ENTITIES).toMatchObject({
      limit: 500,
      used: count("SELECT COUNT(*) AS n FROM entities WHERE deleted = 0"),
    });
    const quota = await value<{ quotaBytes: number; usedBytes: number }>(curator("/api/storage/quota"));
    expect(by.STORAGE).toMatchObject({ limit: quota.quotaBytes, used: quota.usedBytes, reached: false });
    expect(by.STORAGE?.remaining).toBe(quota.quotaBytes - quota.usedBytes);
  });

  it("is an unlimited Enterprise edition on a store without the demo", async () => {
    const bare = await startTestRepository();
    try {
      const get = authed(bare.url, (await login(bare.url, "reader")).token);
      expect(await (await get("/api/entitlement/edition")).json()).toEqual({ edition: "Enterprise" });
      const { limits } = await value<{ limits: LimitJson[] }>(get("/api/entitlement/limits"));
      expect(limits.map((l) => [l.feature, l.limit, l.reached])).toEqual([
        ["USERS", null, false],
        ["STORAGE", null, false],
        ["ENTITIES", null, false],
        ["STORAGE_ADAPTERS", null, false],
      ]);
      const q = await value<{ quotaBytes: null; usedBytes: number; exceeded: boolean }>(
        get("/api/storage/quota"),
      );
      expect(q).toMatchObject({ quotaBytes: null, usedBytes: 0, exceeded: false });
    } finally {
      await bare.close();
    }
  });
});

const PYP = "/tmp/pyp";
describe.skipIf(!existsSync(`${PYP}/pyPreservica`) || !existsSync("/usr/bin/python3"))("pyPreservica", () => {
  // Asynchronously: the service runs in this process, so a blocking call would keep it from answering.
  it("reads the edition and a bitstream's storage locations with the real client", async () => {
    const asset = (
      repo.svc.db
        .prepare(
          `SELECT e.ref FROM entities e WHERE e.type = 'IO' AND e.deleted = 0 AND e.security_tag = 'open'
           AND EXISTS (SELECT 1 FROM representations r WHERE r.io_ref = e.ref) ORDER BY e.id LIMIT 1`,
        )
        .get() as { ref: string }
    ).ref;
    const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(PYP)})
from pyPreservica import EntityAPI
client = EntityAPI(username=sys.argv[1], password=sys.argv[2], server=sys.argv[3], protocol="http")
asset = client.asset(sys.argv[4])
locations = [client.bitstream_location(b) for b in client.bitstreams_for_asset(asset)]
print(json.dumps({"edition": client.edition(), "locations": locations}))
`;
    const { stdout: out } = await promisify(execFile)(
      "/usr/bin/python3",
      ["-c", script, "manager", DEMO_USERS.manager.password, repo.url.replace(/^http:\/\//, ""), asset],
      { encoding: "utf8", timeout: 60_000 },
    );
    const got = JSON.parse(out.trim().split("\n").pop() as string) as {
      edition: string;
      locations: string[][];
    };
    expect(got.edition).toBe("Starter");
    expect(got.locations.length).toBeGreaterThan(0);
    for (const l of got.locations)
      expect(l).toEqual(["Local content store", "Offsite replica (S3, eu-west-2)"]);
  }, 90_000);
});
