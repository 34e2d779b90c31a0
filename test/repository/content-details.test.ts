import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authed, login } from "../helpers/repository.js";
import {
  CHART_PNG,
  type ContentFixture,
  LETTER_TEXT,
  objectId,
  startContentFixture,
} from "./content-fixture.js";

/** Content API single-entity requests over real HTTP: object-details, indexed-fields, download, thumbnail. */

let fx: ContentFixture;
let asManager: ReturnType<typeof authed>;
let asReader: ReturnType<typeof authed>;

beforeAll(async () => {
  fx = await startContentFixture();
  asManager = authed(fx.repo.url, (await login(fx.repo.url, "manager")).token);
  asReader = authed(fx.repo.url, (await login(fx.repo.url, "reader")).token);
});
afterAll(async () => {
  await fx?.repo.close();
});

interface Details {
  id: string;
  name: string;
  properties: { name: string; value: string }[];
  metadata: {
    title: string;
    description: string;
    groupOrItem: { title: string; groupOrItem: { name: string; value: string; type: string }[] }[];
  };
  links: { rel: string; href: string; type: string }[];
}

async function details(
  get: typeof asManager,
  id: string,
  extra = "",
): Promise<{ status: number; body: { success: boolean; message?: string; value: Details } }> {
  const res = await get(`/api/content/object-details?id=${encodeURIComponent(id)}${extra}`);
  return {
    status: res.status,
    body: (await res.json()) as { success: boolean; message?: string; value: Details },
  };
}

const props = (d: Details) => Object.fromEntries(d.properties.map((p) => [p.name, p.value]));

describe("object-details", () => {
  it("describes an asset with CMIS properties, its Dublin Core metadata and links", async () => {
    const r = await details(asReader, objectId(fx.chart));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, version: 1 });
    const d = r.body.value as Details;
    expect(d.id).toBe(objectId(fx.chart));
    expect(d.name).toBe("Harbour chart of 1850");
    const p = props(d);
    expect(p).toMatchObject({
      "cmis:objectId": objectId(fx.chart),
      "cmis:name": "Harbour chart of 1850",
      "cmis:description": "Survey of the harbour entrance",
      "cmis:objectTypeId": "cmis:document",
      "sdbcmis:parentId": objectId(fx.charts),
      "sdbcmis:parentName": "Coastal charts",
      "sdbcmis:securityDescriptor": "open",
      "cmis:createdBy": "manager",
      "cmis:creationDate": String(Date.parse("2020-03-01T09:00:00.000Z") / 1000),
      // The access copy stands for the asset.
      "cmis:contentStreamMimeType": "image/png",
      "cmis:contentStreamFileName": "chart.png",
      "cmis:contentStreamLength": String(CHART_PNG.length),
      "sdbcmis:downloadable": "true",
    });
    expect(d.properties.every((x) => typeof x.value === "string")).toBe(true);
    expect(d.metadata.title).toBe("Harbour chart of 1850");
    expect(d.metadata.description).toBe("Survey of the harbour entrance");
    expect(d.metadata.groupOrItem).toEqual([
      {
        title: "Dublin Core Metadata",
        groupOrItem: [
          { name: "title", value: "Harbour chart", type: "string" },
          { name: "creator", value: "Admiralty Hydrographic Office", type: "string" },
          { name: "subject", value: "harbours", type: "string" },
          { name: "subject", value: "navigation", type: "string" },
          { name: "date", value: "1850", type: "string" },
        ],
      },
    ]);
    const render = d.links.find((l) => l.rel === "render");
    expect(render?.href).toContain(`/api/content/download?id=${encodeURIComponent(objectId(fx.chart))}`);
    // The link leads to the file.
    const file = await asReader(new URL(render?.href ?? "").pathname + new URL(render?.href ?? "").search);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(CHART_PNG);
  });

  it("describes a folder, and groups other schemas by their URI", async () => {
    const folder = (await details(asReader, objectId(fx.charts))).body.value as Details;
    expect(props(folder)["cmis:objectTypeId"]).toBe("cmis:folder");
    expect(props(folder)["sdbcmis:parentId"]).toBe(objectId(fx.maps));
    expect(folder.links).toEqual([]);
    const top = (await details(asReader, objectId(fx.maps))).body.value as Details;
    expect(props(top)["sdbcmis:parentId"]).toBeUndefined();

    const letter = (await details(asReader, fx.letter.ref)).body.value as Details;
    expect(letter.metadata.groupOrItem.map((g) => g.title)).toEqual([
      "Dublin Core Metadata",
      "http://example.org/accession/v1",
    ]);
    expect(letter.metadata.groupOrItem[1]?.groupOrItem).toEqual([
      { name: "number", value: "ACC-7", type: "string" },
      { name: "donor", value: "Parish", type: "string" },
    ]);
  });

  it("leaves out history properties on excludeproperties=history", async () => {
    const d = (await details(asReader, objectId(fx.chart), "&excludeproperties=history")).body
      .value as Details;
    const names = d.properties.map((p) => p.name);
    for (const n of [
      "cmis:createdBy",
      "cmis:creationDate",
      "cmis:lastModifiedBy",
      "cmis:lastModificationDate",
    ]) {
      expect(names).not.toContain(n);
    }
    expect(names).toContain("cmis:objectId");
  });

  it("answers 404 for unknown, deleted or mistyped ids, 400 for malformed ones, 403 without permission", async () => {
    const unknown = await details(asManager, "sdb:IO|0b0b0b0b-0000-4000-8000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false });
    expect((await details(asManager, objectId(fx.withdrawn))).status).toBe(404);
    const mistyped = await details(asManager, `sdb:SO|${fx.chart.ref}`);
    expect(mistyped.status).toBe(404);
    expect(mistyped.body.message).toContain(`sdb:IO|${fx.chart.ref}`);
    for (const bad of ["sdb:IO|not-a-uuid", `sdb:XX|${fx.chart.ref}`, "harbour"]) {
      const r = await details(asManager, bad);
      expect(r.status, bad).toBe(400);
      expect(r.body.message).toContain("sdb:IO|");
    }
    expect((await asManager("/api/content/object-details")).status).toBe(400);
    const forbidden = await details(asReader, objectId(fx.estate));
    expect(forbidden.status).toBe(403);
    expect((await details(asManager, objectId(fx.estate))).status).toBe(200);
  });

  it("does not tell a reader the title of a parent it may not read", async () => {
    const asTheReader = (await details(asReader, objectId(fx.notice))).body.value as Details;
    expect(props(asTheReader)["sdbcmis:parentId"]).toBe(objectId(fx.staff));
    expect(props(asTheReader)["sdbcmis:parentName"]).toBeUndefined();
    const asTheManager = (await details(asManager, objectId(fx.notice))).body.value as Details;
    expect(props(asTheManager)["sdbcmis:parentName"]).toBe("Staff records");
  });
});

describe("indexed-fields", () => {
  it("lists the fields with the names clients build as shortName.index", async () => {
    const res = await asReader("/api/content/indexed-fields");
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      success: boolean;
      value: {
        shortName: string;
        uri: string;
        index: string;
        shortKey: string;
        displayName: string;
        type: string;
        facetable: boolean;
      }[];
    };
    expect(body.success).toBe(true);
    const names = body.value.map((f) => `${f.shortName}.${f.index}`);
    for (const n of [
      "xip.reference",
      "xip.title",
      "xip.description",
      "xip.document_type",
      "xip.parent_ref",
      "xip.parent_hierarchy",
      "xip.security_descriptor",
      "xip.created",
      "xip.top_level_so",
      "xip.identifier",
      "xip.full_text",
      "oai_dc.title",
      "oai_dc.creator",
      "oai_dc.subject",
      "oai_dc.date",
    ]) {
      expect(names).toContain(n);
    }
    for (const f of body.value) {
      expect(f.shortKey).toBe(`${f.shortName}.${f.index}`);
      expect(typeof f.facetable).toBe("boolean");
      expect(f.uri).toMatch(/^http:\/\//);
    }
    expect(body.value.find((f) => f.shortKey === "xip.title")?.uri).toBe("http://preservica.com/XIP/v7.7");
  });
});

describe("download and thumbnail", () => {
  it("downloads the access copy of an asset, else its preservation file", async () => {
    const chart = await asReader(`/api/content/download?id=${objectId(fx.chart)}`);
    expect(chart.status).toBe(200);
    expect(chart.headers.get("content-type")).toBe("image/png");
    expect(chart.headers.get("accept-ranges")).toBe("bytes");
    expect(chart.headers.get("content-disposition")).toContain("chart.png");
    expect(Buffer.from(await chart.arrayBuffer())).toEqual(CHART_PNG);

    const letter = await asReader(`/api/content/download?id=${encodeURIComponent(objectId(fx.letter))}`);
    expect(letter.status).toBe(200);
    expect(await letter.text()).toBe(LETTER_TEXT);

    const co = await asReader(`/api/content/download?id=${objectId(fx.chartCos[0]!)}`);
    expect(co.headers.get("content-type")).toBe("image/tiff");
  });

  it("serves byte ranges", async () => {
    const part = await asReader(`/api/content/download?id=${objectId(fx.chart)}`, {
      headers: { Range: "bytes=2-9" },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 2-9/${CHART_PNG.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(CHART_PNG.subarray(2, 10));
    const tail = await asReader(`/api/content/download?id=${objectId(fx.letter)}`, {
      headers: { Range: "bytes=-6" },
    });
    expect(await tail.text()).toBe(LETTER_TEXT.slice(-6));
    const beyond = await asReader(`/api/content/download?id=${objectId(fx.chart)}`, {
      headers: { Range: "bytes=100000-" },
    });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${CHART_PNG.length}`);
  });

  it("refuses what the caller may not download and says when there is nothing to download", async () => {
    expect((await asReader(`/api/content/download?id=${objectId(fx.estate)}`)).status).toBe(403);
    const noFile = await asManager(`/api/content/download?id=${objectId(fx.estate)}`);
    expect(noFile.status).toBe(404);
    expect(((await noFile.json()) as { message: string }).message).toContain("no stored file");
    expect((await asManager(`/api/content/download?id=${objectId(fx.maps)}`)).status).toBe(404);
    expect(
      (await asManager("/api/content/download?id=sdb:IO|0b0b0b0b-0000-4000-8000-000000000000")).status,
    ).toBe(404);
    expect((await asManager("/api/content/download?id=sdb:IO|x")).status).toBe(400);
  });

  it("serves an image asset as its own thumbnail and answers 404 when there is none", async () => {
    const thumb = await asReader(`/api/content/thumbnail?id=${objectId(fx.chart)}&size=small`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await thumb.arrayBuffer())).toEqual(CHART_PNG);
    expect((await asReader(`/api/content/thumbnail?id=${objectId(fx.letter)}`)).status).toBe(404);
    expect((await asReader(`/api/content/thumbnail?id=${objectId(fx.maps)}`)).status).toBe(404);
  });

  it("answers 401 without a token", async () => {
    for (const path of [
      `/api/content/download?id=${objectId(fx.chart)}`,
      `/api/content/thumbnail?id=${objectId(fx.chart)}`,
      `/api/content/object-details?id=${objectId(fx.chart)}`,
      "/api/content/indexed-fields",
    ]) {
      const res = await fetch(`${fx.repo.url}${path}`);
      expect(res.status, path).toBe(401);
    }
  });
});
