import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { addFragment, addIdentifier, addLink, insertEntity } from "../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { arr, ENTITY_NS, getXml, jsonError, parseXml, text, XIP_NS } from "./entity-xml.js";

/** Entity API read side over real HTTP: entities, children, metadata, identifiers, links, paging, versions. */

const DC = "http://purl.org/dc/elements/1.1/";
const DC_DOC = `<?xml version="1.0" encoding="UTF-8"?>
<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="${DC}"><dc:title>Minutes &amp; papers</dc:title><dc:date>1871</dc:date></oai_dc:dc>`;
const LOCAL_SCHEMA = "urn:example:accession";
const LOCAL_DOC = `<accession><number>A-17</number><note>kept &lt;as text&gt;</note></accession>`;

let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let reader: ReturnType<typeof authed>;
const f = {} as {
  top: string;
  sub: string;
  asset: string;
  closedAsset: string;
  open2: string;
  open3: string;
  co: string;
  secretRoot: string;
  empty: string;
  big: string;
  dcRef: string;
  localRef: string;
  otherAsset: string;
  otherFragment: string;
};

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  db.transaction(() => {
    f.top = insertEntity(db, {
      type: "SO",
      title: "Borough records <1850-1900> & more",
      description: "Council minutes",
      securityTag: "open",
      customType: "Collection",
    }).ref;
    f.sub = insertEntity(db, { type: "SO", title: "Sub-series", securityTag: "open", parentRef: f.top }).ref;
    f.asset = insertEntity(db, {
      type: "IO",
      title: "Minute book 1871",
      securityTag: "open",
      parentRef: f.top,
    }).ref;
    f.closedAsset = insertEntity(db, {
      type: "IO",
      title: "Closed file",
      securityTag: "closed",
      parentRef: f.top,
    }).ref;
    f.open2 = insertEntity(db, { type: "IO", title: "Second", securityTag: "open", parentRef: f.top }).ref;
    f.open3 = insertEntity(db, { type: "IO", title: "Third", securityTag: "open", parentRef: f.top }).ref;
    f.co = insertEntity(db, { type: "CO", title: "page-1.tif", securityTag: "open", parentRef: f.asset }).ref;
    f.secretRoot = insertEntity(db, { type: "SO", title: "Secret root", securityTag: "closed" }).ref;
    f.empty = insertEntity(db, { type: "SO", title: "Empty folder", securityTag: "open" }).ref;
    f.big = insertEntity(db, { type: "SO", title: "Big folder", securityTag: "open" }).ref;
    for (let i = 0; i < 1002; i++) {
      insertEntity(db, { type: "IO", title: `Item ${i}`, securityTag: "open", parentRef: f.big });
    }
    f.dcRef = addFragment(db, f.asset, DC, DC_DOC);
    f.localRef = addFragment(db, f.asset, LOCAL_SCHEMA, LOCAL_DOC);
    f.otherAsset = f.open2;
    f.otherFragment = addFragment(db, f.open2, DC, `<dc xmlns="${DC}"><title>x</title></dc>`);
    for (let i = 1; i <= 3; i++) addIdentifier(db, f.asset, "accession", `A-${i}`);
    addLink(db, "http://purl.org/dc/terms/references", f.asset, f.open2);
    addLink(db, "http://purl.org/dc/terms/isPartOf", f.open3, f.asset);
    addLink(db, "http://purl.org/dc/terms/references", f.asset, f.closedAsset);
  })();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});

afterAll(async () => {
  await repo?.close();
});

const E = "/api/entity";

describe("authentication and permissions", () => {
  it("answers 401 (JSON) without a token and with an unknown token", async () => {
    for (const headers of [{}, { "Preservica-Access-Token": "not-a-token" }] as Record<string, string>[]) {
      const res = await fetch(`${repo.url}${E}/structural-objects/${f.top}`, { headers });
      expect(res.status).toBe(401);
      expect((await jsonError(res)).success).toBe(false);
    }
    const v = await fetch(`${repo.url}${E}/versiondetails/version`);
    expect(v.status).toBe(401);
  });

  it("answers 403, not 401, when the caller may not read the entity's tag", async () => {
    for (const path of [
      `/information-objects/${f.closedAsset}`,
      `/information-objects/${f.closedAsset}/metadata`,
      `/information-objects/${f.closedAsset}/identifiers`,
      `/information-objects/${f.closedAsset}/links`,
      `/structural-objects/${f.secretRoot}/children`,
    ]) {
      const res = await reader(`${E}${path}`);
      expect(res.status, path).toBe(403);
      expect((await jsonError(res)).message).toMatch(/Read Metadata/);
    }
    await getXml(manager, `${E}/information-objects/${f.closedAsset}`);
  });

  it("answers 404 for unknown refs, wrong object types, foreign fragments and refs that are not UUIDs", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const res = await manager(`${E}/structural-objects/${unknown}`);
    expect(res.status).toBe(404);
    expect((await jsonError(res)).message).toBe(`Entity ${unknown} not found`);

    const wrongType = await manager(`${E}/structural-objects/${f.asset}`);
    expect(wrongType.status).toBe(404);
    expect((await jsonError(wrongType)).message).toContain(`information-objects/${f.asset}`);
    expect((await manager(`${E}/content-objects/${f.asset}`)).status).toBe(404);
    expect((await manager(`${E}/information-objects/${f.co}`)).status).toBe(404);

    const foreign = await manager(`${E}/information-objects/${f.asset}/metadata/${f.otherFragment}`);
    expect(foreign.status).toBe(404);

    for (const path of [
      "/structural-objects/not-a-uuid",
      "/information-objects/1234",
      `/information-objects/${f.asset}/metadata/nope`,
    ]) {
      // As the real service: a ref that is not a UUID names nothing (pyPreservica's test_entity expects
      // ReferenceNotFoundException for client.asset("bla"), and it maps only 404 to that), and says why.
      const r = await manager(`${E}${path}`);
      expect(r.status, path).toBe(404);
      expect((await jsonError(r)).message).toMatch(/not a UUID/);
    }
  });
});

describe("version details and versioned paths", () => {
  it("reports the version as an unprefixed CurrentVersion with three numeric parts", async () => {
    const res = await manager(`${E}/versiondetails/version`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("<CurrentVersion>7.7.0</CurrentVersion>");
    expect(parseXml(body).ns.entity).toBe(ENTITY_NS("7.7"));
  });

  it("answers each supported version in its own namespaces, and keeps the prefix in URLs", async () => {
    for (const [prefix, version] of [
      ["", "7.7"],
      ["/v7.7", "7.7"],
      ["/v6.3", "6.3"],
      ["/v6.2", "6.2"],
      ["/v6.0", "6.0"],
      ["/v7.0", "7.0"],
    ] as const) {
      const reply = await getXml(manager, `${E}${prefix}/structural-objects/${f.top}`);
      expect(reply.ns.entity, prefix).toBe(ENTITY_NS(version));
      expect(reply.ns.xip, prefix).toBe(XIP_NS(version));
      expect(text(reply.root.AdditionalInformation.Self)).toBe(
        `${repo.url}${E}${prefix}/structural-objects/${f.top}`,
      );
      expect(text(reply.root.AdditionalInformation.Children)).toBe(
        `${repo.url}${E}${prefix}/structural-objects/${f.top}/children`,
      );
    }
    const v = await getXml(manager, `${E}/v6.2/versiondetails/version`);
    expect(v.ns.entity).toBe(ENTITY_NS("6.2"));
    expect(v.text).toContain("<CurrentVersion>7.7.0</CurrentVersion>");
  });

  it("answers 404 with a clear message for versions newer than the service or unknown", async () => {
    for (const v of ["v7.8", "v8.0", "v9.9", "v5.0", "v6.99"]) {
      const res = await manager(`${E}/${v}/structural-objects/${f.top}`);
      expect(res.status, v).toBe(404);
      expect((await jsonError(res)).message, v).toMatch(
        /Entity API v\d+\.\d+ is (newer than this service|not served)/,
      );
    }
  });
});

describe("entity GET", () => {
  it("renders a folder: XIP fields with the xip prefix, then AdditionalInformation URLs", async () => {
    const reply = await getXml(manager, `${E}/structural-objects/${f.top}`);
    expect(reply.rootName).toBe("EntityResponse");
    const so = reply.root.StructuralObject;
    expect(so.Ref).toBe(f.top);
    expect(so.Title).toBe("Borough records <1850-1900> & more");
    expect(so.Description).toBe("Council minutes");
    expect(so.SecurityTag).toBe("open");
    expect(so.CustomType).toBe("Collection");
    expect(so.Parent).toBeUndefined();
    expect(Object.keys(reply.prefixed["xip:StructuralObject"])).toEqual(
      expect.arrayContaining(["xip:Ref", "xip:Title", "xip:SecurityTag"]),
    );
    const info = reply.root.AdditionalInformation;
    const self = `${repo.url}${E}/structural-objects/${f.top}`;
    expect(info.Self).toBe(self);
    expect(info.Parent).toBeUndefined();
    expect(info.Identifiers).toBe(`${self}/identifiers`);
    expect(info.Links).toBe(`${self}/links`);
    expect(info.EventActions).toBe(`${self}/event-actions`);
    expect(info.Children).toBe(`${self}/children`);
    expect(info.Representations).toBeUndefined();
    expect(arr(info.Metadata?.Fragment)).toEqual([]);
  });

  it("renders an asset with its parent, representations link and metadata fragments", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.asset}`);
    const io = reply.root.InformationObject;
    expect(io.Parent).toBe(f.top);
    expect(io.Description).toBeUndefined();
    const info = reply.root.AdditionalInformation;
    expect(info.Parent).toBe(`${repo.url}${E}/structural-objects/${f.top}`);
    expect(info.Representations).toBe(`${repo.url}${E}/information-objects/${f.asset}/representations`);
    expect(info.Children).toBeUndefined();
    const fragments = arr(info.Metadata.Fragment);
    expect(fragments.map((x) => x["@schema"])).toEqual([DC, LOCAL_SCHEMA]);
    expect(fragments.map((x) => text(x))).toEqual([
      `${repo.url}${E}/information-objects/${f.asset}/metadata/${f.dcRef}`,
      `${repo.url}${E}/information-objects/${f.asset}/metadata/${f.localRef}`,
    ]);
  });

  it("renders a content object whose parent is an asset", async () => {
    const reply = await getXml(reader, `${E}/content-objects/${f.co}`);
    expect(reply.root.ContentObject.Parent).toBe(f.asset);
    const info = reply.root.AdditionalInformation;
    expect(info.Parent).toBe(`${repo.url}${E}/information-objects/${f.asset}`);
    expect(info.Generations).toBe(`${repo.url}${E}/content-objects/${f.co}/generations`);
  });
});

describe("children and paging", () => {
  const children = (reply: { root: { Children: { Child?: unknown } } }) => arr(reply.root.Children?.Child);

  it("lists only readable top-level entities and counts only those", async () => {
    const mine = await getXml(manager, `${E}/root/children`);
    const theirs = await getXml(reader, `${E}/root/children`);
    expect(mine.rootName).toBe("ChildrenResponse");
    expect(children(mine).map((c) => c["@ref"])).toEqual([f.top, f.secretRoot, f.empty, f.big]);
    expect(children(theirs).map((c) => c["@ref"])).toEqual([f.top, f.empty, f.big]);
    expect(mine.root.Paging.TotalResults).toBe("4");
    expect(theirs.root.Paging.TotalResults).toBe("3");
    expect(theirs.root.Paging.Next).toBeUndefined();
  });

  it("gives Child attributes title, ref, type and the absolute entity URL", async () => {
    const reply = await getXml(reader, `${E}/structural-objects/${f.top}/children`);
    const kids = children(reply);
    expect(kids.map((c) => c["@ref"])).toEqual([f.sub, f.asset, f.open2, f.open3]);
    expect(kids[0]).toMatchObject({ "@title": "Sub-series", "@type": "SO" });
    expect(text(kids[0])).toBe(`${repo.url}${E}/structural-objects/${f.sub}`);
    expect(kids[1]).toMatchObject({ "@title": "Minute book 1871", "@type": "IO" });
    expect(text(kids[1])).toBe(`${repo.url}${E}/information-objects/${f.asset}`);
    expect(reply.root.Paging.TotalResults).toBe("4");
    expect(text(reply.root.AdditionalInformation.Self)).toBe(
      `${repo.url}${E}/structural-objects/${f.top}/children`,
    );
  });

  it("says TotalResults 0 and no Next for an empty list", async () => {
    const reply = await getXml(reader, `${E}/structural-objects/${f.empty}/children`);
    expect(children(reply)).toEqual([]);
    expect(reply.root.Paging.TotalResults).toBe("0");
    expect(reply.root.Paging.Next).toBeUndefined();
  });

  it("pages with an absolute Next on the service's origin until the last page", async () => {
    const first = await getXml(reader, `${E}/structural-objects/${f.top}/children?start=0&max=3`);
    expect(children(first)).toHaveLength(3);
    const next = text(first.root.Paging.Next);
    const url = new URL(next);
    expect(url.origin).toBe(repo.url);
    expect(url.pathname).toBe(`${E}/structural-objects/${f.top}/children`);
    expect(url.searchParams.get("start")).toBe("3");
    expect(url.searchParams.get("max")).toBe("3");

    const res = await reader(next.slice(repo.url.length));
    const last = parseXml(await res.text());
    expect(children(last).map((c) => c["@ref"])).toEqual([f.open3]);
    expect(last.root.Paging.Next).toBeUndefined();
    expect(last.root.Paging.TotalResults).toBe("4");
    expect(first.root.Paging.Previous).toBeUndefined();
  });

  it("gives pages after the first a Previous, as real pages do, back to the page before", async () => {
    // A real v6.3 second page of children: <Paging><Previous>…children?start=0&max=100</Previous>
    // <TotalResults>134</TotalResults></Paging>.
    const middle = await getXml(reader, `${E}/structural-objects/${f.top}/children?start=1&max=2`);
    const previous = new URL(text(middle.root.Paging.Previous));
    expect(previous.origin).toBe(repo.url);
    expect(previous.pathname).toBe(`${E}/structural-objects/${f.top}/children`);
    expect([previous.searchParams.get("start"), previous.searchParams.get("max")]).toEqual(["0", "2"]);
    expect(new URL(text(middle.root.Paging.Next)).searchParams.get("start")).toBe("3");
    expect(middle.text).toMatch(/<Paging><Previous>[^<]+<\/Previous><Next>[^<]+<\/Next><TotalResults>4</);
    const last = await getXml(reader, `${E}/structural-objects/${f.top}/children?start=3&max=2`);
    expect(new URL(text(last.root.Paging.Previous)).searchParams.get("start")).toBe("1");
    expect(last.root.Paging.Next).toBeUndefined();
  });

  it("has no Next on an exact last page, nor past the end", async () => {
    const exact = await getXml(reader, `${E}/structural-objects/${f.top}/children?max=4`);
    expect(children(exact)).toHaveLength(4);
    expect(exact.root.Paging.Next).toBeUndefined();
    const past = await getXml(reader, `${E}/structural-objects/${f.top}/children?start=10&max=4`);
    expect(children(past)).toEqual([]);
    expect(past.root.Paging.TotalResults).toBe("4");
    expect(past.root.Paging.Next).toBeUndefined();
  });

  it("defaults to pages of 100 and clamps max to 1000", async () => {
    const byDefault = await getXml(reader, `${E}/structural-objects/${f.big}/children`);
    expect(children(byDefault)).toHaveLength(100);
    const first = new URL(text(byDefault.root.Paging.Next)).searchParams;
    expect([first.get("start"), first.get("max")]).toEqual(["100", "100"]);

    const clamped = await getXml(reader, `${E}/structural-objects/${f.big}/children?max=5000`);
    expect(children(clamped)).toHaveLength(1000);
    expect(clamped.root.Paging.TotalResults).toBe("1002");
    const next = new URL(text(clamped.root.Paging.Next)).searchParams;
    expect([next.get("start"), next.get("max")]).toEqual(["1000", "1000"]);
  });

  it("rejects junk and negative paging parameters with 400", async () => {
    for (const q of ["max=abc", "start=-1", "max=-5", "start=1.5", "max=1e3"]) {
      const res = await reader(`${E}/structural-objects/${f.top}/children?${q}`);
      expect(res.status, q).toBe(400);
      expect((await jsonError(res)).message).toMatch(/Parameter (start|max)/);
    }
  });
});

describe("metadata", () => {
  it("inlines the stored document as XML inside xip:Content", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.asset}/metadata/${f.dcRef}`);
    expect(reply.rootName).toBe("MetadataResponse");
    const container = reply.root.MetadataContainer;
    expect(container["@schemaUri"]).toBe(DC);
    expect(container.Ref).toBe(f.dcRef);
    expect(container.Entity).toBe(f.asset);
    expect(container.Content.dc.title).toBe("Minutes & papers");
    expect(container.Content.dc.date).toBe("1871");
    expect(reply.text).not.toContain("&lt;oai_dc");
    expect(reply.text.match(/<\?xml/g)).toHaveLength(1);
    expect(text(reply.root.AdditionalInformation.Self)).toBe(
      `${repo.url}${E}/information-objects/${f.asset}/metadata/${f.dcRef}`,
    );
  });

  it("keeps an un-namespaced document out of the EntityAPI namespace", async () => {
    const reply = await getXml(reader, `${E}/v6.2/information-objects/${f.asset}/metadata/${f.localRef}`);
    expect(reply.ns.entity).toBe(ENTITY_NS("6.2"));
    expect(reply.text).toContain('<accession xmlns=""><number>A-17</number>');
    expect(reply.root.MetadataContainer.Content.accession.note).toBe("kept <as text>");
  });

  it("lists an entity's fragments with paging", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.asset}/metadata?max=1`);
    const fragments = arr(reply.root.Metadata.Fragment);
    expect(fragments).toHaveLength(1);
    expect(fragments[0]["@schema"]).toBe(DC);
    expect(reply.root.Paging.TotalResults).toBe("2");
    expect(new URL(text(reply.root.Paging.Next)).searchParams.get("start")).toBe("1");
  });
});

describe("identifiers", () => {
  it("lists xip:Identifier with ApiId, Type, Value, Entity in that order, paged", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.asset}/identifiers?max=2`);
    expect(reply.rootName).toBe("IdentifiersResponse");
    const ids = arr(reply.root.Identifiers.Identifier);
    expect(ids.map((i) => i.Value)).toEqual(["A-1", "A-2"]);
    expect(ids[0]).toMatchObject({ Type: "accession", Entity: f.asset });
    expect(ids[0].ApiId).toMatch(/^[0-9a-f]{32}$/);
    expect(Object.keys(reply.prefixed.Identifiers["xip:Identifier"][0])).toEqual([
      "xip:ApiId",
      "xip:Type",
      "xip:Value",
      "xip:Entity",
    ]);
    expect(reply.root.Paging.TotalResults).toBe("3");
    expect(reply.root.Paging.Next).toBeDefined();
    const empty = await getXml(reader, `${E}/structural-objects/${f.top}/identifiers`);
    expect(empty.root.Paging.TotalResults).toBe("0");
  });
});

describe("links", () => {
  it("lists links both ways, with direction, and hides links to entities the caller may not read", async () => {
    const mine = await getXml(manager, `${E}/information-objects/${f.asset}/links`);
    expect(mine.root.Paging.TotalResults).toBe("3");
    const theirs = await getXml(reader, `${E}/information-objects/${f.asset}/links`);
    expect(theirs.rootName).toBe("LinksResponse");
    const links = arr(theirs.root.Links.Link);
    expect(theirs.root.Paging.TotalResults).toBe("2");
    expect(links).toHaveLength(2);
    const from = links.find((l) => l["@linkDirection"] === "From");
    const to = links.find((l) => l["@linkDirection"] === "To");
    expect(from).toMatchObject({
      "@linkType": "http://purl.org/dc/terms/references",
      "@ref": f.open2,
      "@title": "Second",
      "@type": "IO",
    });
    expect(from["@apiId"]).toMatch(/^[0-9a-f]{32}$/);
    expect(text(from)).toBe(`${repo.url}${E}/information-objects/${f.open2}`);
    expect(to).toMatchObject({ "@linkType": "http://purl.org/dc/terms/isPartOf", "@ref": f.open3 });
  });
});
