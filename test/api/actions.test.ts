import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { ActionsApi, kindPath, looksLikeToken, readProgress } from "../../src/api/actions.js";
import { ServiceError } from "../../src/api/errors.js";
import { parseXml } from "../../src/api/xml.js";
import { Session } from "../../src/session/session.js";
import { authed, DEMO_USERS, login, startTestRepository } from "../helpers/repository.js";

describe("Actions API client", () => {
  let repo: RunningRepository;
  let session: Session;
  let actions: ActionsApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    actions = new ActionsApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("reads progress, listings and item detail of a move", async () => {
    const to = insertEntity(repo.svc.db, { type: "SO", title: "Dest", securityTag: "open" });
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Moved",
      securityTag: "open",
      parentRef: null,
    });
    const http = authed(repo.url, (await login(repo.url, "manager")).token);
    const res = await http(`/api/entity/information-objects/${asset.ref}/parent-ref`, {
      method: "PUT",
      headers: { "Content-Type": "text/plain" },
      body: to.ref,
    });
    const token = (await res.text()).trim();
    let p = await actions.progress(token);
    for (let i = 0; i < 50 && p.status === "ACTIVE"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      p = await actions.progress(token);
    }
    expect(p).toMatchObject({ token, status: "COMPLETED", kind: "move", percentage: 100, errors: [] });
    expect(p.completed).toMatch(/^\d{4}-/);
    const list = await actions.list({ kind: "move" });
    expect(list.items.find((a) => a.id === token)).toMatchObject({ kind: "move", status: "COMPLETED" });
    expect(list.total).toBeGreaterThanOrEqual(1);
    const d = await actions.detail("move", token);
    expect(d.action.entity).toEqual({ ref: asset.ref, type: "IO" });
    expect(d.items.some((i) => i.entityRef === asset.ref)).toBe(true);
  });

  it("refuses a token that is not a UUID before any request; 404 for an unknown one", async () => {
    await expect(actions.progress("../x")).rejects.toThrow(TypeError);
    const err = await actions.progress("0b7c2f3e-8d1a-4c55-9e61-2f4a7b9c0d13").catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).status).toBe(404);
  });

  it("reads a progress document leniently: any namespace, Status nested, errors with items", () => {
    const doc = parseXml(
      `<p:ProgressResponse xmlns:p="http://status.preservica.com"><p:Status>finished_mixed_outcome</p:Status><p:Percentage>100</p:Percentage><p:Errors><p:Error item="3" entityRef="abc">bad</p:Error></p:Errors></p:ProgressResponse>`,
    );
    expect(readProgress(doc, "t")).toEqual({
      token: "t",
      status: "FINISHED_MIXED_OUTCOME",
      percentage: 100,
      errors: [{ message: "bad", entityRef: "abc", item: 3 }],
    });
    expect(kindPath("security-tag")).toBe("security-tags");
    expect(kindPath("replace-content")).toBe("content-replacements");
    expect(looksLikeToken("0b7c2f3e-8d1a-4c55-9e61-2f4a7b9c0d13")).toBe(true);
  });
});
