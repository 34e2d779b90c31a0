import { createHmac } from "node:crypto";
import { createServer } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import type { EntityRow } from "../../repository/store/entities/types.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { assetUri, folderUri } from "../../src/resources/uris.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { childEnv, killStragglers, remoteEnv, type SpawnedCli, startHttp } from "./helpers.js";

afterAll(killStragglers);

/**
 * Live resources end to end: the shipped CLI over HTTP with PRESERVATION_WEBHOOK_URL subscribes to the
 * repository service's webhooks; a change made through the service (not through MCP) reaches MCP clients
 * subscribed to the entities it touched, in both protocol eras (2025 `resources/subscribe` on a session,
 * 2026-07-28 `subscriptions/listen`); the receiver refuses what the service did not sign; shutdown removes the
 * subscriptions.
 */

/** The bound: a subscribed client hears of a move within a second of the service's answer. */
const WITHIN_MS = 1000;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Updates as a client received them, with when. */
class Updates {
  readonly seen: { uri: string; at: number }[] = [];
  add = (uri: string) => {
    this.seen.push({ uri, at: Date.now() });
    for (const w of [...this.waiters]) if (w.uri === uri) w.done();
  };
  private waiters = new Set<{ uri: string; done: () => void }>();
  /** Resolves with the time of the first update of `uri` at or after `since`; rejects after `ms`. */
  async next(uri: string, since: number, ms = 5000): Promise<number> {
    const hit = () => this.seen.find((s) => s.uri === uri && s.at >= since);
    if (hit()) return (hit() as { at: number }).at;
    await new Promise<void>((resolve, reject) => {
      const w = {
        uri,
        done: () => {
          this.waiters.delete(w);
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(
          new Error(`no update of ${uri} within ${ms} ms (seen: ${this.seen.map((s) => s.uri).join(", ")})`),
        );
      }, ms);
      this.waiters.add(w);
    });
    return (hit() as { at: number }).at;
  }
}

describe("live resources: repository changes reach subscribed clients", () => {
  let repo: RunningRepository;
  let server: SpawnedCli & { url: string };
  let webhookUrl: string;
  let put: ReturnType<typeof authed>;
  const folders: Record<string, EntityRow> = {};

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    for (const t of ["Incoming", "Catalogued", "Elsewhere"]) {
      folders[t] = insertEntity(repo.svc.db, { type: "SO", title: t, securityTag: "open", parentRef: null });
    }
    put = authed(repo.url, (await login(repo.url, "manager")).token);
    const port = await freePort();
    webhookUrl = `http://127.0.0.1:${port}/webhook`;
    server = await startHttp(
      ["--port", String(port)],
      childEnv({ ...remoteEnv(repo.url, "manager"), PRESERVATION_WEBHOOK_URL: webhookUrl }),
    );
    // Subscribing happens once the socket listens; the log says when the service accepted it.
    for (let i = 0; i < 200 && !/live resources on/.test(server.stderr()); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(server.stderr()).toMatch(/live resources on/);
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
    await repo?.close();
  });

  function newAsset(title: string, parent: EntityRow): EntityRow {
    return insertEntity(repo.svc.db, { type: "IO", title, securityTag: "open", parentRef: parent.ref });
  }

  /** Moves an asset through the service's Entity API (as an integrator's script would); resolves when answered. */
  async function moveThroughService(asset: EntityRow, to: EntityRow): Promise<number> {
    const res = await put(`/api/entity/information-objects/${asset.ref}/parent-ref`, {
      method: "PUT",
      body: to.ref,
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBeLessThan(300);
    return Date.now();
  }

  it("subscribed itself to the service's webhooks with its own URL", async () => {
    const subs = (await (await put("/api/webhook/subscriptions")).json()) as {
      url: string;
      triggerType: string;
    }[];
    expect(
      subs
        .filter((s) => s.url === webhookUrl)
        .map((s) => s.triggerType)
        .sort(),
    ).toEqual([
      "CHANGED_CONTENT",
      "CHANGED_METADATA",
      "CHANGED_SECURITY_DESCRIPTOR",
      "DELETED",
      "FULL_TEXT_INDEXED",
      "MOVED",
    ]);
  });

  it("2025-11-25: resources/subscribe on a session; a move through the service is heard within a second, on the asset and both folders", async () => {
    const updates = new Updates();
    const client = new V1Client({ name: "live-v1", version: "1.0.0" });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.add(n.params.uri));
    await client.connect(new V1HttpTransport(new URL(server.url)));
    try {
      expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const map = newAsset("Harbour map 1850", folders.Incoming as EntityRow);
      const other = newAsset("Tithe map", folders.Incoming as EntityRow);
      for (const uri of [
        assetUri(map.ref),
        folderUri(folders.Incoming?.ref as string),
        folderUri(folders.Catalogued?.ref as string),
      ]) {
        await client.subscribeResource({ uri });
      }
      await client.subscribeResource({ uri: assetUri(other.ref) });
      await new Promise((r) => setTimeout(r, 300)); // the watched folders' children are listed
      const answered = await moveThroughService(map, folders.Catalogued as EntityRow);
      const heard = await updates.next(assetUri(map.ref), answered);
      expect(heard - answered).toBeLessThanOrEqual(WITHIN_MS);
      await updates.next(folderUri(folders.Incoming?.ref as string), answered); // the folder it left
      await updates.next(folderUri(folders.Catalogued?.ref as string), answered); // the folder it joined
      expect(updates.seen.some((s) => s.uri === assetUri(other.ref))).toBe(false);

      // After unsubscribing, that asset's changes are not sent.
      await client.unsubscribeResource({ uri: assetUri(map.ref) });
      const again = await moveThroughService(map, folders.Elsewhere as EntityRow);
      await updates.next(folderUri(folders.Catalogued?.ref as string), again);
      await new Promise((r) => setTimeout(r, 300));
      expect(updates.seen.filter((s) => s.uri === assetUri(map.ref) && s.at >= again)).toEqual([]);
    } finally {
      await client.close();
    }
  }, 30_000);

  it("2026-07-28: subscriptions/listen; a move through the service is heard within a second", async () => {
    const updates = new Updates();
    const client = new Client(
      { name: "live-v2", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    client.setNotificationHandler("notifications/resources/updated", (n) => updates.add(n.params.uri));
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const plan = newAsset("Estate plan", folders.Incoming as EntityRow);
    const watched = [assetUri(plan.ref), folderUri(folders.Catalogued?.ref as string)];
    const sub = await client.listen({ resourceSubscriptions: watched });
    try {
      expect(sub.honoredFilter.resourceSubscriptions).toEqual(watched);
      await new Promise((r) => setTimeout(r, 300));
      const answered = await moveThroughService(plan, folders.Catalogued as EntityRow);
      const heard = await updates.next(assetUri(plan.ref), answered);
      expect(heard - answered).toBeLessThanOrEqual(WITHIN_MS);
      await updates.next(folderUri(folders.Catalogued?.ref as string), answered);
      // Only what this stream asked for.
      expect(updates.seen.every((s) => watched.includes(s.uri))).toBe(true);
    } finally {
      await sub.close();
      await client.close();
    }
  }, 30_000);

  it("refuses an unsigned or forged delivery, and a challenge it did not ask for", async () => {
    const body = JSON.stringify({ events: [{ entityRef: folders.Incoming?.ref, entityType: "SO" }] });
    const forged = createHmac("sha256", "not-the-secret")
      .update(`preservica-webhook-auth${body}`)
      .digest("hex");
    const attempts: Record<string, string>[] = [{}, { "Preservica-Signature": forged }];
    for (const headers of attempts) {
      const res = await fetch(webhookUrl, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...headers },
      });
      expect(res.status).toBe(401);
    }
    // A challenge outside this server's own subscribing would make the receiver an HMAC oracle.
    const challenge = await fetch(
      `${webhookUrl}?challengeCode=preservica-webhook-auth${encodeURIComponent(body)}`,
      { method: "POST" },
    );
    expect(challenge.status).toBe(403);
    expect(JSON.stringify(await challenge.json())).not.toMatch(/challengeResponse/);
  });

  it("on shutdown, removes its webhook subscriptions from the service", async () => {
    expect(await server.stop()).toBe(0);
    const subs = (await (await put("/api/webhook/subscriptions")).json()) as { url: string }[];
    expect(subs.filter((s) => s.url === webhookUrl)).toEqual([]);
  });
});
