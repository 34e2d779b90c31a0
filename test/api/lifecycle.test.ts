import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { findPolicy } from "../../repository/store/retention/read.js";
import { assignPolicy, createPolicy } from "../../repository/store/retention/write.js";
import { EntityApi } from "../../src/api/entity.js";
import { ServiceError } from "../../src/api/errors.js";
import { LifecycleApi } from "../../src/api/lifecycle.js";
import { escapeXml } from "../../src/api/xml.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

/** Polls the progress of an action until it is no longer ACTIVE; returns its final status. */
async function settle(session: Session, token: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const res = await session.http.request<string>({
      path: `/api/entity/progress/${token}`,
      responseType: "text",
      operation: "test.progress",
    });
    const status = /<Status>([A-Z_]+)<\/Status>/.exec(res.data)?.[1] ?? "";
    if (status !== "ACTIVE") return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`action ${token} did not settle`);
}

describe("Lifecycle API client", () => {
  let repo: RunningRepository;
  let manager: Session;
  let curator: Session;
  let api: LifecycleApi;
  let entity: EntityApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    manager = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    curator = new Session({ url: repo.url, ...DEMO_USERS.curator, keepAlive: false });
    api = new LifecycleApi(manager.http);
    entity = new EntityApi(manager.http);
  });
  afterAll(async () => {
    await manager.close();
    await curator.close();
    await repo.close();
  });

  function tree(title: string) {
    const db = repo.svc.db;
    const folder = insertEntity(db, { type: "SO", title, securityTag: "open" });
    const sub = insertEntity(db, {
      type: "SO",
      title: `${title} / sub`,
      securityTag: "open",
      parentRef: folder.ref,
    });
    const a1 = insertEntity(db, {
      type: "IO",
      title: `${title} asset 1`,
      securityTag: "open",
      parentRef: folder.ref,
    });
    const a2 = insertEntity(db, {
      type: "IO",
      title: `${title} asset 2`,
      securityTag: "open",
      parentRef: sub.ref,
    });
    return { folder, sub, a1, a2 };
  }

  it("escapes every XML special character", () => {
    expect(escapeXml(`a<b>&"c'`)).toBe("a&lt;b&gt;&amp;&quot;c&apos;");
  });

  it("deletes (pending), approves, lists the bin, recovers, and deletes for good", async () => {
    const t = tree("Lifecycle API tree <&>");
    const id = await api.deleteEntity(t.folder.ref, "SO", "Duplicate <of> the 1871 volume & more");
    const d = await api.deletion(id);
    expect(d).toMatchObject({
      id,
      status: "PENDING",
      user: "manager",
      entityRef: t.folder.ref,
      entityType: "SO",
      total: 4,
    });
    expect(d.comment).toBe("Duplicate <of> the 1871 volume & more");
    const pending = await api.deletions({ status: "PENDING" });
    expect(pending.items.map((x) => x.id)).toContain(id);
    // Nothing changed yet.
    expect((await entity.get(t.folder.ref, "SO")).title).toBe(t.folder.title);

    expect(await api.decideDeletion(id, true, "ok")).toBe(id);
    expect(await settle(manager, id)).toBe("COMPLETED");
    await expect(entity.get(t.folder.ref, "SO")).rejects.toMatchObject({ status: 404 });
    const bin = await api.recycleBin({ max: 1000 });
    const item = bin.items.find((b) => b.ref === t.folder.ref);
    expect(item).toMatchObject({
      type: "SO",
      title: t.folder.title,
      deletion: id,
      entities: 4,
      deletedBy: "manager",
    });
    expect(bin.total).toBeGreaterThanOrEqual(1);

    const rec = await api.recover({ entities: [t.folder.ref] });
    expect(await settle(manager, rec)).toBe("COMPLETED");
    expect((await entity.get(t.a2.ref, "IO")).title).toBe(t.a2.title);
    expect((await api.recycleBin({ max: 1000 })).items.some((b) => b.ref === t.folder.ref)).toBe(false);

    const id2 = await api.deleteEntity(t.folder.ref, "SO", "again");
    await api.decideDeletion(id2, true, "ok");
    expect(await settle(manager, id2)).toBe("COMPLETED");
    const fin = await api.finalDelete({ deletions: [id2] });
    expect(await settle(manager, fin)).toBe("COMPLETED");
    expect((await api.recycleBin({ max: 1000 })).items.some((b) => b.ref === t.folder.ref)).toBe(false);
    await expect(api.recover({ entities: [t.folder.ref] })).rejects.toMatchObject({ status: 404 });
  });

  it("rejects a deletion, changing nothing", async () => {
    const t = tree("Rejected tree");
    const id = await api.deleteEntity(t.a1.ref, "IO", "");
    await api.decideDeletion(id, false, "keep it");
    expect((await api.deletion(id)).status).toBe("CANCELLED");
    expect((await entity.get(t.a1.ref, "IO")).title).toBe(t.a1.title);
  });

  it("reports refusals as ServiceErrors with the service's message", async () => {
    const t = tree("Refused tree");
    const asCurator = new LifecycleApi(curator.http);
    const denied = await asCurator.deleteEntity(t.a1.ref, "IO", "x").catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ServiceError);
    expect(denied).toMatchObject({ status: 403, operation: "lifecycle.delete", method: "DELETE" });

    const id = await api.deleteEntity(t.a1.ref, "IO", "x");
    const notManager = await asCurator.decideDeletion(id, true, "").catch((e: unknown) => e);
    expect(notManager).toMatchObject({ status: 403, operation: "lifecycle.approveDeletion" });
    expect((notManager as ServiceError).serviceMessage).toMatch(/Only managers approve deletions/);

    // Retention keeps an asset from being deleted; the assignment is readable.
    const db = repo.svc.db;
    const actor = { username: "manager", date: new Date().toISOString() };
    const policyRef = createPolicy(
      db,
      {
        name: "Keep 10 years",
        description: "Statutory",
        securityTag: "open",
        startDateField: null,
        period: 10,
        periodUnit: "YEAR",
        expiryAction: null,
        expiryActionParameters: null,
        restriction: null,
        assignable: true,
      },
      actor,
    );
    const policy = findPolicy(db, policyRef);
    if (!policy) throw new Error("no policy");
    assignPolicy(db, t.a2.ref, policy, null, actor);
    const assignments = await api.retentionAssignments(t.a2.ref);
    expect(assignments.items).toEqual([expect.objectContaining({ policy: policyRef, expired: false })]);
    expect(await api.retentionPolicyName(policyRef)).toBe("Keep 10 years");
    const blocked = await api.deleteEntity(t.folder.ref, "SO", "x").catch((e: unknown) => e);
    expect(blocked).toMatchObject({ status: 409 });
    expect((blocked as ServiceError).serviceMessage).toMatch(/Keep 10 years/);
  });

  it("adds an access representation and replaces its content by streaming the bytes", async () => {
    const db = repo.svc.db;
    const asset = insertEntity(db, { type: "IO", title: "Upload target", securityTag: "open" });
    const first = Buffer.from("first version of the file\n");
    const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    const t1 = await new LifecycleApi(curator.http).addAccessRepresentation(asset.ref, {
      body: Readable.from([first]),
      size: first.length,
      filename: "café plan.txt",
      name: "Web copy",
      fixity: { algorithm: "SHA-256", value: sha(first) },
    });
    expect(await settle(manager, t1)).toBe("COMPLETED");
    const reps = await entity.representations(asset.ref);
    const access = reps.items.find((r) => r.type === "Access");
    expect(access?.name).toBe("Web copy");
    const rep = await entity.representation(asset.ref, "Access", access?.index ?? 1);
    const co = rep.contentObjects[0]?.ref as string;
    expect(rep.contentObjects[0]?.title).toBe("café plan.txt");

    const second = Buffer.from("second, longer version of the file\n");
    const t2 = await api.replaceContent(co, {
      body: Readable.from([second]),
      size: second.length,
      filename: "plan-rescan-é.txt",
      fixity: { algorithm: "SHA-256", value: sha(second) },
    });
    expect(await settle(manager, t2)).toBe("COMPLETED");
    const gens = await entity.generations(co);
    expect(gens.items.map((g) => [g.index, g.active])).toEqual([
      [1, false],
      [2, true],
    ]);
    const b = await entity.bitstream(co, 2, 1);
    expect(b).toMatchObject({ filename: "plan-rescan-é.txt", size: second.length });

    // A checksum that disagrees with the bytes is refused and stores nothing.
    const bad = await api
      .replaceContent(co, {
        body: Readable.from([second]),
        size: second.length,
        filename: "x.txt",
        fixity: { algorithm: "SHA-256", value: sha(first) },
      })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, operation: "lifecycle.replaceContent" });
    expect((await entity.generations(co)).items).toHaveLength(2);
  });
});
