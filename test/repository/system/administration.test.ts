import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { addFragment, insertEntity } from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * The Administration and Management API's settings over HTTP: thumbnail policy, system properties,
 * notify-updates, and the CMIS transform's Title/Description fields as the Content API shows them.
 */

let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let curator: ReturnType<typeof authed>;
let reader: ReturnType<typeof authed>;
let asset: string;

beforeAll(async () => {
  repo = await startTestRepository();
  const { db } = repo.svc;
  asset = insertEntity(db, {
    type: "IO",
    title: "IMG_0412.tif",
    description: "scan",
    securityTag: "open",
  }).ref;
  addFragment(
    db,
    asset,
    "http://www.openarchives.org/OAI/2.0/oai_dc/",
    '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Harbour at dawn</dc:title><dc:description>Glass plate negative, 1902</dc:description></oai_dc:dc>',
  );
  addFragment(
    db,
    asset,
    "https://example.org/ns/photo",
    '<p:photo xmlns:p="https://example.org/ns/photo"><p:caption>Boats leaving the harbour</p:caption></p:photo>',
  );
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});
afterAll(async () => {
  await repo?.close();
});

const JSON_TYPE = { "Content-Type": "application/json" };
const put = (who: typeof manager, path: string, body: unknown) =>
  who(path, { method: "PUT", headers: JSON_TYPE, body: JSON.stringify(body) });
const value = async (res: Response) => ((await res.json()) as { value: Record<string, unknown> }).value;
function lastEvent() {
  return repo.svc.db
    .prepare(
      "SELECT username, category, command_type AS commandType, subject FROM config_events ORDER BY id DESC LIMIT 1",
    )
    .get();
}

describe("thumbnail policy", () => {
  it("reads the default, changes it with a config event, and refuses non-managers", async () => {
    expect(await value(await manager("/api/admin/thumbnail-policy"))).toEqual({
      enabled: true,
      useImageContent: true,
      maxWidth: 256,
      maxHeight: 256,
    });
    const before = storeHash(repo.svc.db);
    expect((await put(curator, "/api/admin/thumbnail-policy", { maxWidth: 128 })).status).toBe(403);
    expect((await curator("/api/admin/thumbnail-policy")).status).toBe(403);
    expect((await put(manager, "/api/admin/thumbnail-policy", { maxWidth: 1 })).status).toBe(400);
    expect((await put(manager, "/api/admin/thumbnail-policy", { size: 1 })).status).toBe(400);
    expect(storeHash(repo.svc.db)).toBe(before);
    const res = await put(manager, "/api/admin/thumbnail-policy", { maxWidth: 128, useImageContent: false });
    expect(res.status).toBe(200);
    expect(await value(res)).toEqual({
      enabled: true,
      useImageContent: false,
      maxWidth: 128,
      maxHeight: 256,
    });
    expect(await value(await manager("/api/admin/thumbnail-policy"))).toMatchObject({ maxWidth: 128 });
    expect(lastEvent()).toEqual({
      username: "manager",
      category: "SYSTEM",
      commandType: "UPDATE",
      subject: "thumbnail.policy",
    });
  });
});

describe("system properties", () => {
  it("are for administrators only: 403 for others, nothing changed", async () => {
    const before = storeHash(repo.svc.db);
    expect((await curator("/api/admin/system-properties")).status).toBe(403);
    expect((await reader("/api/admin/system-properties/system.name")).status).toBe(403);
    expect((await put(curator, "/api/admin/system-properties/system.name", { value: "x" })).status).toBe(403);
    expect((await curator("/api/admin/system-properties/system.name", { method: "DELETE" })).status).toBe(
      403,
    );
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("lists, changes, adds and deletes properties with config events; built-ins cannot be deleted", async () => {
    const list = (await value(await manager("/api/admin/system-properties"))).properties as {
      name: string;
    }[];
    expect(list.map((p) => p.name)).toContain("system.timezone");
    let res = await put(manager, "/api/admin/system-properties/system.timezone", { value: "Europe/London" });
    expect(res.status).toBe(200);
    expect(await value(res)).toMatchObject({
      name: "system.timezone",
      value: "Europe/London",
      builtIn: true,
      modifiedBy: "manager",
    });
    expect(lastEvent()).toMatchObject({
      category: "SYSTEM",
      commandType: "UPDATE",
      subject: "system.timezone",
    });
    res = await put(manager, "/api/admin/system-properties/reading.room.hours", {
      value: "9-17",
      description: "Opening hours",
    });
    expect(res.status).toBe(201);
    expect(lastEvent()).toMatchObject({ commandType: "CREATE", subject: "reading.room.hours" });
    expect(await value(await manager("/api/admin/system-properties/reading.room.hours"))).toMatchObject({
      value: "9-17",
    });
    expect(
      (await manager("/api/admin/system-properties/reading.room.hours", { method: "DELETE" })).status,
    ).toBe(204);
    expect(lastEvent()).toMatchObject({ commandType: "DELETE", subject: "reading.room.hours" });
    expect((await manager("/api/admin/system-properties/reading.room.hours")).status).toBe(404);
    const builtIn = await manager("/api/admin/system-properties/system.name", { method: "DELETE" });
    expect(builtIn.status).toBe(409);
    expect((await put(manager, "/api/admin/system-properties/bad%20name", { value: "x" })).status).toBe(400);
    expect((await put(manager, "/api/admin/system-properties/x", { value: 5 })).status).toBe(400);
  });
});

describe("notify-updates", () => {
  it("restores a deleted built-in transform and reports what it did", async () => {
    expect((await curator("/api/admin/notify-updates", { method: "POST" })).status).toBe(403);
    let res = await manager("/api/admin/notify-updates", { method: "POST" });
    expect(await value(res)).toEqual({ restored: [], unchanged: 3 });
    expect(lastEvent()).toMatchObject({
      category: "SYSTEM",
      commandType: "APPLY",
      subject: "notify-updates",
    });
    const id = "7f5b2e3a0c1d4e9f9a4b3c2d5e6f7a83";
    expect((await manager(`/api/admin/transforms/${id}`, { method: "DELETE" })).status).toBe(204);
    res = await manager("/api/admin/notify-updates", { method: "POST" });
    expect(await value(res)).toEqual({
      restored: [{ kind: "transform", apiId: id, name: "Dublin Core to CMIS" }],
      unchanged: 2,
    });
    expect((await manager(`/api/admin/transforms/${id}/content`)).status).toBe(200);
  });
});

describe("CMIS transform", () => {
  const details = async () => {
    const res = await reader(`/api/content/object-details?id=${encodeURIComponent(`sdb:IO|${asset}`)}`);
    expect(res.status).toBe(200);
    const d = (await value(res)) as {
      name: string;
      properties: { name: string; value: string }[];
      metadata: { title: string; description: string };
    };
    const p = Object.fromEntries(d.properties.map((x) => [x.name, x.value]));
    return {
      name: d.name,
      title: d.metadata.title,
      description: d.metadata.description,
      cmisName: p["cmis:name"],
      cmisDescription: p["cmis:description"],
    };
  };

  it("decides which metadata fields give Title and Description in the Content API's object details", async () => {
    expect(await value(await manager("/api/admin/cmis-transform"))).toEqual({
      titleField: "xip.title",
      descriptionField: "xip.description",
    });
    expect(await details()).toEqual({
      name: "IMG_0412.tif",
      title: "IMG_0412.tif",
      description: "scan",
      cmisName: "IMG_0412.tif",
      cmisDescription: "scan",
    });

    const res = await put(manager, "/api/admin/cmis-transform", {
      titleField: "oai_dc.title",
      descriptionField: "oai_dc.description",
    });
    expect(res.status).toBe(200);
    expect(lastEvent()).toMatchObject({
      category: "METADATA",
      commandType: "UPDATE",
      subject: "cmis.transform",
    });
    expect(await details()).toEqual({
      name: "Harbour at dawn",
      title: "Harbour at dawn",
      description: "Glass plate negative, 1902",
      cmisName: "Harbour at dawn",
      cmisDescription: "Glass plate negative, 1902",
    });

    // Any schema's element in Clark notation; a field the entity lacks falls back to its own value.
    await put(manager, "/api/admin/cmis-transform", {
      descriptionField: "{https://example.org/ns/photo}caption",
      titleField: "oai_dc.creator",
    });
    expect(await details()).toMatchObject({
      title: "IMG_0412.tif",
      description: "Boats leaving the harbour",
    });
    await put(manager, "/api/admin/cmis-transform", {
      titleField: "xip.title",
      descriptionField: "xip.description",
    });
  });

  it("refuses unknown fields with 400 and non-managers with 403, changing nothing", async () => {
    const before = storeHash(repo.svc.db);
    expect((await put(curator, "/api/admin/cmis-transform", { titleField: "oai_dc.title" })).status).toBe(
      403,
    );
    for (const body of [
      { titleField: "oai_dc.nonsense" },
      { titleField: "dc:title" },
      { titleField: 3 },
      { title: "oai_dc.title" },
    ]) {
      const res = await put(manager, "/api/admin/cmis-transform", body);
      expect(res.status).toBe(400);
    }
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});
