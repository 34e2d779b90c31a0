import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../repository/seed.js";
import type { RunningRepository } from "../../repository/server.js";
import { EntityApi, readBitstream } from "../../src/api/entity.js";
import { ServiceError } from "../../src/api/errors.js";
import { collect, paginate } from "../../src/api/walk.js";
import { parseXml } from "../../src/api/xml.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe("Entity API client against the demo collection", () => {
  let repo: RunningRepository;
  let session: Session;
  let entity: EntityApi;
  const refs = DEMO.refs;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    entity = new EntityApi(session.http);
  });
  afterAll(async () => {
    await session.close();
    await repo.close();
  });

  it("reads the service version", async () => {
    const v = await entity.version();
    expect(v.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(v.major).toBeGreaterThanOrEqual(7);
  });

  it("lists the top-level folders with a total", async () => {
    const page = await entity.children(null);
    expect(page.items.map((c) => c.title)).toEqual(DEMO.rootFolders.map((f) => f.title));
    expect(page.items.every((c) => c.type === "SO")).toBe(true);
    expect(page.total).toBe(DEMO.rootFolders.length);
    expect(page.next).toBeUndefined();
  });

  it("pages with next cursors and collects every child exactly once", async () => {
    // The folder with the most children.
    const counts = new Map<string, number>();
    for (const e of DEMO.entities) {
      if (e.type !== "CO" && e.parentRef) counts.set(e.parentRef, (counts.get(e.parentRef) ?? 0) + 1);
    }
    const folder = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
    const expected = DEMO.entities.filter((e) => e.parentRef === folder && e.type !== "CO");
    expect(expected.length).toBeGreaterThan(4);
    const first = await entity.children(folder, { max: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.total).toBe(expected.length);
    expect(first.nextStart).toBe(2);
    expect(first.next).toMatch(/start=2/);
    const second = await entity.children(folder, { next: first.next });
    expect(second.items[0]?.ref).not.toBe(first.items[0]?.ref);
    const all = await collect(paginate((req) => entity.children(folder, req), { pageSize: 2 }));
    expect(all.map((c) => c.ref).sort()).toEqual(expected.map((e) => e.ref).sort());
  });

  it("gets folders and assets in our terms, finding the type when not given", async () => {
    const asset = await entity.get(refs.councilMinutes1851, "IO");
    const planned = DEMO.entities.find((e) => e.ref === refs.councilMinutes1851);
    expect(asset).toMatchObject({
      ref: refs.councilMinutes1851,
      type: "IO",
      title: planned?.title,
      securityTag: planned?.securityTag,
      parentRef: planned?.parentRef,
    });
    expect(asset.fragments.length).toBeGreaterThan(0);
    for (const f of asset.fragments) {
      expect(f.schema).toMatch(/^\w+:/);
      expect(f.mref).toMatch(/^[0-9a-f-]{36}$/);
    }
    const folder = await entity.get(refs.councilMinutesSeries);
    expect(folder.type).toBe("SO");
    const root = await entity.get(DEMO.rootFolders[0]?.ref as string);
    expect(root.parentRef).toBeUndefined();
    await expect(entity.get("00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({ status: 404 });
    await expect(entity.get("not-a-ref")).rejects.toThrow(/valid reference/);
  });

  it("reads the same entity through a versioned path (other namespaces)", async () => {
    const old = new EntityApi(session.http, { basePath: "/api/entity/v6.2" });
    const a = await old.get(refs.councilMinutes1851, "IO");
    const b = await entity.get(refs.councilMinutes1851, "IO");
    expect({ ...a, fragments: a.fragments.map((f) => f.mref) }).toEqual({
      ...b,
      fragments: b.fragments.map((f) => f.mref),
    });
    expect(a.fragments[0]?.url).toContain("/api/entity/v6.2/");
  });

  it("gives a metadata fragment's document as standalone XML", async () => {
    const asset = await entity.get(refs.councilMinutes1851, "IO");
    const fragment = asset.fragments[0];
    if (!fragment) throw new Error("no fragment");
    const m = await entity.metadata(fragment);
    expect(m.mref).toBe(fragment.mref);
    expect(m.schema).toBe(fragment.schema);
    expect(m.entityRef).toBe(asset.ref);
    expect(m.document.startsWith("<")).toBe(true);
    expect(() => parseXml(m.document)).not.toThrow();
    const same = await entity.metadata({ ref: asset.ref, type: "IO", mref: fragment.mref });
    expect(same.document).toBe(m.document);
  });

  it("lists identifiers and finds the entity by one of them", async () => {
    const ids = await entity.identifiers(refs.councilMinutes1851, "IO");
    expect(ids.items.length).toBeGreaterThan(0);
    const id = ids.items[0];
    if (!id) throw new Error("no identifier");
    expect(id.apiId).toBeTruthy();
    expect(id.entityRef).toBe(refs.councilMinutes1851);
    const found = await entity.byIdentifier(id.value, id.type);
    expect(found.items.map((e) => e.ref)).toContain(refs.councilMinutes1851);
  });

  it("lists links in both directions", async () => {
    const links = await entity.links(refs.mapNorthQuay1850, "IO");
    expect(links.items.length).toBeGreaterThan(0);
    expect(links.items.some((l) => l.direction === "To")).toBe(true);
    for (const l of links.items) {
      expect(l.linkType).toBeTruthy();
      expect(["IO", "SO", "CO"]).toContain(l.type);
    }
  });

  it("follows the content chain to the bytes, and their fixity matches", async () => {
    const reps = await entity.representations(refs.councilMinutes1851);
    const preservation = reps.items.find((r) => r.type === "Preservation");
    expect(preservation?.index).toBe(1);
    const rep = await entity.representation(refs.councilMinutes1851, "Preservation", 1);
    expect(rep.type).toBe("Preservation");
    const co = rep.contentObjects[0];
    if (!co) throw new Error("no content object");
    const gens = await entity.generations(co.ref);
    expect(gens.items[0]).toMatchObject({ index: 1, active: true });
    const gen = await entity.generation(co.ref, 1);
    expect(gen.original).toBe(true);
    expect(gen.bitstreams.length).toBeGreaterThan(0);
    expect(gen.formats[0]?.name).toBeTruthy();
    const bs = await entity.bitstream(co.ref, 1, gen.bitstreams[0]?.index ?? 1);
    expect(bs.filename).toBe(gen.bitstreams[0]?.filename);
    expect(bs.size).toBeGreaterThan(0);
    expect(bs.contentUrl).toMatch(/\/content$/);
    const sha = bs.fixities.find((f) => /sha-?256/i.test(f.algorithm));
    expect(sha?.value).toMatch(/^[0-9a-f]{64}$/i);

    const content = await entity.bitstreamContent(co.ref, 1, 1);
    const bytes = await readAll(content.stream);
    expect(content.status).toBe(200);
    expect(bytes.length).toBe(bs.size);
    expect(content.length).toBe(bs.size);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(sha?.value.toLowerCase());

    const part = await entity.bitstreamContent(co.ref, 1, 1, { range: { start: 1, end: 10 } });
    expect(part.status).toBe(206);
    expect(part.contentRange).toBe(`bytes 1-10/${bs.size}`);
    expect(await readAll(part.stream)).toEqual(bytes.subarray(1, 11));
  });

  it("reads history: event actions of an entity, events, and the actions of one event", async () => {
    const actions = await entity.eventActions(refs.councilMinutes1851, "IO");
    expect(actions.total).toBeGreaterThan(0);
    const first = actions.items[0];
    if (!first) throw new Error("no event action");
    expect(first.event.type).toBeTruthy();
    expect(first.event.date).toMatch(/^\d{4}-/);
    expect(first.entityRef).toBe(refs.councilMinutes1851);

    const ingests = await entity.events({ types: [first.event.type], max: 5 });
    expect(ingests.items.length).toBeGreaterThan(0);
    expect(ingests.items.every((e) => e.type === first.event.type)).toBe(true);
    const ofEvent = await entity.eventActionsOfEvent(first.event.ref);
    expect(ofEvent.items.map((a) => a.entityRef)).toContain(refs.councilMinutes1851);
  });

  it("lists entities updated since a date", async () => {
    const page = await entity.updatedSince("1900-01-01T00:00:00Z", { max: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.total).toBeGreaterThan(3);
    expect(page.next).toBeTruthy();
  });

  it("says what failed when the service refuses", async () => {
    const reader = new Session({ url: repo.url, ...DEMO_USERS.reader, keepAlive: false });
    try {
      const err = (await new EntityApi(reader.http)
        .get(refs.closedAsset, "IO")
        .catch((e: unknown) => e)) as ServiceError;
      expect(err).toBeInstanceOf(ServiceError);
      expect([403, 404]).toContain(err.status);
      expect(err.operation).toBe("entity.get");
    } finally {
      await reader.close();
    }
  });
});

describe("bitstream reader", () => {
  const doc = (nameElement: string) =>
    parseXml(`<?xml version="1.0" encoding="UTF-8"?>
<BitstreamResponse xmlns="http://preservica.com/EntityAPI/v7.0" xmlns:xip="http://preservica.com/XIP/v7.0">
  <xip:Bitstream><xip:Filename>scan.tif</xip:Filename><xip:FileSize>12</xip:FileSize>${nameElement}<xip:Fixities/></xip:Bitstream>
</BitstreamResponse>`);

  it("reads the original name under the spec's name and under the official schemas' OriginalFilename", () => {
    expect(readBitstream(doc("<xip:OriginalName>Scan 1.TIF</xip:OriginalName>")).originalName).toBe(
      "Scan 1.TIF",
    );
    expect(readBitstream(doc("<xip:OriginalFilename>Scan 2.TIF</xip:OriginalFilename>")).originalName).toBe(
      "Scan 2.TIF",
    );
    expect(readBitstream(doc("")).originalName).toBeUndefined();
  });
});
