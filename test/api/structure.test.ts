import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { EntityApi } from "../../src/api/entity.js";
import { ServiceError } from "../../src/api/errors.js";
import { folderXml, StructureApi, TOP_LEVEL } from "../../src/api/structure.js";
import { escapeXml } from "../../src/api/xml.js";
import { Session } from "../../src/session/session.js";
import { authed, DEMO_USERS, login, startTestRepository } from "../helpers/repository.js";

/** Polls the service's progress of an action until it is no longer ACTIVE; returns Status and Message. */
async function waitForAction(repo: RunningRepository, token: string) {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  for (let i = 0; i < 200; i++) {
    const res = await get(`/api/entity/progress/${token}`);
    const xml = await res.text();
    const status = /<(?:\w+:)?Status>([^<]*)</.exec(xml)?.[1];
    if (status && status !== "ACTIVE")
      return { status, message: /<(?:\w+:)?Message>([^<]*)</.exec(xml)?.[1] };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`action ${token} still ACTIVE`);
}

describe("StructureApi", () => {
  let repo: RunningRepository;
  let session: Session;
  let curatorSession: Session;
  let api: StructureApi;
  let entity: EntityApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    curatorSession = new Session({ url: repo.url, ...DEMO_USERS.curator, keepAlive: false });
    api = new StructureApi(session.http);
    entity = new EntityApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await curatorSession.close();
    await repo.close();
  });

  const folder = (title: string, parentRef: string | null = null, securityTag = "open") =>
    insertEntity(repo.svc.db, { type: "SO", title, securityTag, parentRef });

  it("builds well-formed, escaped folder XML in the service's namespace", () => {
    expect(escapeXml(`a<b>&"c'`)).toBe("a&lt;b&gt;&amp;&quot;c&apos;");
    const xml = folderXml(
      { ref: "7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f", title: "Minutes & <notes>", securityTag: "open" },
      "http://preservica.com/XIP/v7.7",
    );
    expect(xml).toContain('<StructuralObject xmlns="http://preservica.com/XIP/v7.7">');
    expect(xml).toContain("<Title>Minutes &amp; &lt;notes&gt;</Title>");
    expect(xml).toContain("<Description></Description>");
    expect(xml).not.toContain("<Parent>");
  });

  it("creates a folder at the top level and under a parent, with a title that needs escaping", async () => {
    const top = await api.createFolder({ title: `Top & "quoted" <folder>`, securityTag: "closed" });
    expect(top).toMatchObject({ type: "SO", title: `Top & "quoted" <folder>`, securityTag: "closed" });
    expect(top.parentRef).toBeUndefined();
    const child = await api.createFolder({
      title: "Child",
      description: "Council minutes",
      securityTag: "open",
      parentRef: top.ref,
    });
    const read = await entity.get(child.ref, "SO");
    expect(read).toMatchObject({ title: "Child", description: "Council minutes", parentRef: top.ref });
    const kids = await entity.children(top.ref);
    expect(kids.items.map((k) => k.ref)).toEqual([child.ref]);
  });

  it("keeps a client-made ref, and a ref in use is a 409 ServiceError", async () => {
    const ref = "0d1e2f30-4152-4637-8849-5a6b7c8d9e0f";
    const made = await api.createFolder({ ref, title: "Mine", securityTag: "open" });
    expect(made.ref).toBe(ref);
    const again = await api.createFolder({ ref, title: "Mine", securityTag: "open" }).catch((e) => e);
    expect(again).toBeInstanceOf(ServiceError);
    expect(again).toMatchObject({ status: 409, operation: "structure.createFolder", method: "POST" });
  });

  it("moves a folder with its contents; the progress token completes and the parent changed", async () => {
    const a = folder("A");
    const b = folder("B");
    const moving = folder("Moving", a.ref);
    const inner = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Asset",
      securityTag: "open",
      parentRef: moving.ref,
    });
    const token = await api.move(moving.ref, "SO", b.ref);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(await waitForAction(repo, token)).toMatchObject({ status: "COMPLETED" });
    expect((await entity.get(moving.ref, "SO")).parentRef).toBe(b.ref);
    expect((await entity.get(inner.ref, "IO")).parentRef).toBe(moving.ref);
    const top = await api.move(moving.ref, "SO", TOP_LEVEL);
    expect(await waitForAction(repo, top)).toMatchObject({ status: "COMPLETED" });
    expect((await entity.get(moving.ref, "SO")).parentRef).toBeUndefined();
  });

  it("moves an asset; a folder into its own subtree is a 409 that changes nothing", async () => {
    const a = folder("A2");
    const b = folder("B2", a.ref);
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Lone",
      securityTag: "open",
      parentRef: a.ref,
    });
    expect(await waitForAction(repo, await api.move(asset.ref, "IO", b.ref))).toMatchObject({
      status: "COMPLETED",
    });
    expect((await entity.get(asset.ref, "IO")).parentRef).toBe(b.ref);
    const err = await api.move(a.ref, "SO", b.ref).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 409, operation: "structure.move", method: "PUT" });
    expect((await entity.get(a.ref, "SO")).parentRef).toBeUndefined();
  });

  it("changes a security tag, with and without descendants", async () => {
    const top = folder("Tagged");
    const kid = folder("Kid", top.ref);
    const t1 = await api.setSecurityTag(top.ref, "SO", "staff", false);
    expect(await waitForAction(repo, t1)).toMatchObject({ status: "COMPLETED" });
    expect((await entity.get(top.ref, "SO")).securityTag).toBe("staff");
    expect((await entity.get(kid.ref, "SO")).securityTag).toBe("open");
    const t2 = await api.setSecurityTag(top.ref, "SO", "closed", true);
    expect(await waitForAction(repo, t2)).toMatchObject({ status: "COMPLETED" });
    expect((await entity.get(kid.ref, "SO")).securityTag).toBe("closed");
  });

  it("reports the service's refusals as ServiceErrors: unknown tag 400, curator 403", async () => {
    const f = folder("Guarded");
    const bad = await api.setSecurityTag(f.ref, "SO", "no-such-tag", false).catch((e) => e);
    expect(bad).toMatchObject({ status: 400, operation: "structure.setSecurityTag" });
    const curator = new StructureApi(curatorSession.http);
    const denied = await curator.setSecurityTag(f.ref, "SO", "closed", false).catch((e) => e);
    expect(denied).toBeInstanceOf(ServiceError);
    expect(denied.status).toBe(403);
    expect((await entity.get(f.ref, "SO")).securityTag).toBe("open");
  });

  it("refuses refs that are not UUIDs before sending anything", async () => {
    await expect(api.move("../x", "IO", TOP_LEVEL)).rejects.toThrow(TypeError);
    await expect(api.move("0d1e2f30-4152-4637-8849-5a6b7c8d9e0f", "IO", "nope")).rejects.toThrow(TypeError);
  });
});
