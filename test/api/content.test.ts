import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../repository/seed.js";
import type { RunningRepository } from "../../repository/server.js";
import { buildQ, ContentApi, parseObjectId } from "../../src/api/content.js";
import { EntityApi } from "../../src/api/entity.js";
import { ServiceError } from "../../src/api/errors.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

describe("Content API client against the demo collection", () => {
  let repo: RunningRepository;
  let session: Session;
  let content: ContentApi;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    content = new ContentApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("builds q as JSON, so any search text survives", () => {
    const text = `he said "harbour" \\ and }{`;
    const q = JSON.parse(
      buildQ({
        text,
        filters: [{ name: "xip.title", values: ['a"b'], exclude: true }],
        facets: ["xip.document_type"],
      }),
    );
    expect(q).toEqual({
      q: text,
      fields: [{ name: "xip.title", values: ['a"b'], operator: "NOT" }],
      facets: [{ name: "xip.document_type" }],
    });
    expect(parseObjectId("sdb:IO|abc")).toEqual({ type: "IO", ref: "abc" });
    expect(parseObjectId("IO|abc")).toBeUndefined();
  });

  it("searches, returning ids in our terms and metadata rows as records", async () => {
    const res = await content.search({
      text: "harbour",
      max: 5,
      metadata: ["xip.title", "xip.document_type"],
    });
    expect(res.totalHits).toBeGreaterThan(0);
    expect(res.ids.length).toBe(Math.min(5, res.totalHits));
    expect(res.rows).toHaveLength(res.ids.length);
    for (const [i, id] of res.ids.entries()) {
      expect(["SO", "IO", "CO"]).toContain(id.type);
      expect(id.ref).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.rows[i]?.["xip.document_type"]).toBe(id.type);
      expect(typeof res.rows[i]?.["xip.title"]).toBe("string");
    }
  });

  it("survives search text with quotes and backslashes", async () => {
    const res = await content.search({ text: `"harbour" \\ }{`, max: 1 });
    expect(res.totalHits).toBeGreaterThanOrEqual(0);
  });

  it("filters, sorts and counts facets", async () => {
    const res = await content.search({
      filters: [{ name: "xip.document_type", values: ["IO"] }],
      sort: [{ field: "xip.title", descending: true }],
      facets: ["xip.security_descriptor"],
      metadata: ["xip.title"],
      max: 10,
    });
    expect(res.ids.every((id) => id.type === "IO")).toBe(true);
    const titles = res.rows.map((r) => String(r["xip.title"]));
    expect(titles).toEqual([...titles].sort((a, b) => b.localeCompare(a, "en", { sensitivity: "base" })));
    const facet = res.facets.find((f) => f.field === "xip.security_descriptor");
    expect(facet?.values.length).toBeGreaterThan(0);
    expect(facet?.values.reduce((n, v) => n + v.count, 0)).toBe(res.totalHits);
  });

  it("pages with start and max", async () => {
    const first = await content.search({ text: "", max: 3 });
    const second = await content.search({ text: "", start: 3, max: 3 });
    expect(first.totalHits).toBe(second.totalHits);
    expect(new Set([...first.ids, ...second.ids].map((i) => i.ref)).size).toBe(6);
  });

  it("lists the top level, the children of an object, and searches within a folder", async () => {
    const top = await content.topLevelList({ max: 100 });
    expect(top.ids.map((i) => i.ref).sort()).toEqual(DEMO.rootFolders.map((f) => f.ref).sort());

    const entity = new EntityApi(session.http);
    const folder = DEMO.refs.councilMinutesSeries;
    const children = await content.objectChildren({ type: "SO", ref: folder }, { max: 100 });
    const viaEntity = await entity.children(folder);
    expect(children.ids.map((i) => i.ref).sort()).toEqual(viaEntity.items.map((c) => c.ref).sort());

    const within = await content.searchWithin(folder, { text: "", max: 100, metadata: ["xip.parent_ref"] });
    expect(within.totalHits).toBeGreaterThan(children.totalHits);
  });

  it("reads object details and indexed fields", async () => {
    const ref = DEMO.refs.councilMinutes1851;
    const details = await content.objectDetails({ type: "IO", ref });
    const planned = DEMO.entities.find((e) => e.ref === ref);
    expect(details.name).toBe(planned?.title);
    expect(Object.keys(details.properties).length).toBeGreaterThan(0);
    const fields = await content.indexedFields();
    expect(fields.map((f) => f.field)).toEqual(expect.arrayContaining(["xip.title", "xip.reference"]));
    await expect(
      content.objectDetails({ type: "IO", ref: "00000000-0000-4000-8000-000000000000" }),
    ).rejects.toMatchObject({ status: 404, operation: "content.objectDetails" });
  });

  it("downloads an asset's file as a stream", async () => {
    const file = await content.download({ type: "IO", ref: DEMO.refs.pdfAsset });
    const chunks: Buffer[] = [];
    for await (const c of file.stream as Readable) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    expect(file.status).toBe(200);
    expect(bytes.length).toBe(file.length);
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("reports a malformed query as a 400 with the service's explanation", async () => {
    const err = (await content
      .search({ filters: [{ name: "no.such_field", values: ["x"] }] })
      .catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.status).toBe(400);
    expect(err.serviceMessage).toMatch(/no\.such_field/);
  });
});
