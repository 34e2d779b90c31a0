import { once } from "node:events";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, openDatabaseFile } from "../../../repository/store/db.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { runCli, spawnRepository, stopAllSpawned } from "../../helpers/process.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { accepted, E, putText, settled } from "../writes/structure-helpers.js";
import { type Receiver, startReceiver } from "./receiver.js";

/**
 * A delivery queued while its receiver fails, the service killed with SIGKILL, the receiver healed, the
 * service restarted on the same data directory: the delivery still arrives, signed. Runs the built CLI
 * (`npm run build` first; `npm test` does), with the test-only PRESERVATION_WEBHOOK_RETRY_MS for
 * short back-off.
 */

const SECRET = "crash-test-secret";
const receivers: Receiver[] = [];

afterAll(async () => {
  await stopAllSpawned();
  await Promise.all(receivers.map((r) => r.close()));
});

function buildDataDir(): { dir: string; item: string; dest: string } {
  const dir = tempDir("webhook-crash-");
  const db = openDatabase(dir);
  const out = db.transaction(() => {
    const created = "2020-01-01T00:00:00.000Z";
    const source = insertEntity(db, { type: "SO", title: "Source", securityTag: "open", created }).ref;
    const dest = insertEntity(db, { type: "SO", title: "Destination", securityTag: "open", created }).ref;
    const item = insertEntity(db, {
      type: "IO",
      title: "Item",
      securityTag: "open",
      parentRef: source,
      created,
    }).ref;
    return { item, dest };
  })();
  db.close();
  return { dir, ...out };
}

function pendingDeliveries(dir: string): number {
  const db = openDatabaseFile(join(dir, "repository.sqlite"), { readonly: true });
  try {
    return (
      db.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get() as {
        n: number;
      }
    ).n;
  } finally {
    db.close();
  }
}

describe("a webhook delivery queued when the service is killed", () => {
  it("arrives after a restart", async () => {
    const { dir, item, dest } = buildDataDir();
    const env = { PRESERVATION_WEBHOOK_RETRY_MS: "100" };
    const receiver = await startReceiver(SECRET);
    receivers.push(receiver);

    const first = await spawnRepository(["--data", dir, "--seed", "none"], env);
    const manager = authed(first.url, (await login(first.url, "manager")).token);
    const sub = await manager("/api/webhook/subscriptions", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        url: receiver.url,
        triggerType: "MOVED",
        secret: SECRET,
        includeIdentifiers: "true",
      }),
    });
    expect(sub.status, await sub.clone().text()).toBe(200);

    receiver.failNext = 1_000_000; // down for now: the delivery stays queued, retried
    const id = await accepted(await putText(manager, `${E}/information-objects/${item}/parent-ref`, dest));
    expect((await settled(manager, id)).status).toBe("COMPLETED");
    while (!receiver.log.includes("refused")) await new Promise((r) => setTimeout(r, 10));

    first.child.kill("SIGKILL");
    await once(first.child, "exit");
    expect(pendingDeliveries(dir)).toBe(1);
    expect(receiver.delivered).toEqual([]);

    receiver.failNext = 0; // the receiver is back
    const second = await spawnRepository(["--data", dir, "--seed", "none"], env);
    const [d] = await receiver.waitFor(1, 20_000);
    expect(d?.verified).toBe(true);
    expect(d?.json.events[0]).toMatchObject({ event: "MOVED", entityRef: item, eventType: "Moved" });
    await second.stop();
    expect(pendingDeliveries(dir)).toBe(0);
  });
});

describe("--webhook-hosts", () => {
  it("lets receivers on the named hosts be challenged, and refuses others", async () => {
    const repo = await spawnRepository(["--seed", "none", "--webhook-hosts", "hooks.invalid, Other.invalid"]);
    const manager = authed(repo.url, (await login(repo.url, "manager")).token);
    const subscribe = async (url: string) => {
      const res = await manager("/api/webhook/subscriptions", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ url, triggerType: "MOVED", secret: SECRET }),
      });
      expect(res.status).toBe(400);
      return ((await res.json()) as { message: string }).message;
    };
    // Allowed: the service tries it (the name does not resolve here).
    expect(await subscribe("http://other.invalid:8081/hook")).toMatch(/could not be reached/);
    expect(await subscribe("http://third.invalid/hook")).toMatch(
      /one of hooks\.invalid, other\.invalid; third\.invalid is not allowed/,
    );
    await repo.stop();
  });

  it("refuses a value that is not a list of hosts", async () => {
    const r = await runCli(["repository", "--webhook-hosts", "http://hooks.example.org/"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--webhook-hosts takes host names/);
  });
});
