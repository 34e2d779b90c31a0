import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { ALL_PERMISSIONS, addSecurityTag, grant, Role } from "../../../repository/store/auth.js";
import { findEntity } from "../../../repository/store/entities/read.js";
import {
  addBitstream,
  addGeneration,
  addIdentifier,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { arr, ENTITY_NS, getXml, parseXml, text, XIP_NS } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";
import {
  actionCount,
  contentSearch,
  expectRefused,
  expectTrace,
  instantNow,
  LONG_AGO,
  sendXml,
  signIn,
  type Users,
  updatedSince,
} from "./write-helpers.js";

/**
 * Entity API basic writes over real HTTP: creating folders and physical assets, saving an entity,
 * identifiers, links and custom previews. Each write is tried with a role that may make it and one that
 * may not; each refusal must leave the store exactly as it was; each write must leave its event, show
 * in updated-since and be seen at once by the read routes and the Content API.
 */

const XIP = XIP_NS("7.7");
const XIP60 = XIP_NS("6.0");
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);

let repo: RunningRepository;
let u: Users;
const fx = {} as {
  top: string;
  closedFolder: string;
  asset: string;
  target: string;
  secret: string;
  co: string;
  imageAsset: string;
};

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  // A tag only managers may read, to show that a link may not point at what the caller cannot see.
  addSecurityTag(db, "secret");
  grant(db, Role.MANAGER, "secret", ALL_PERMISSIONS);
  db.transaction(() => {
    const old = { created: LONG_AGO };
    fx.top = insertEntity(db, { type: "SO", title: "Harbour records", securityTag: "open", ...old }).ref;
    fx.closedFolder = insertEntity(db, {
      type: "SO",
      title: "Closed series",
      securityTag: "closed",
      ...old,
    }).ref;
    fx.asset = insertEntity(db, {
      type: "IO",
      title: "Quay ledger",
      description: "Dues paid at the quay",
      securityTag: "open",
      parentRef: fx.top,
      customType: "Ledger",
      ...old,
    }).ref;
    fx.target = insertEntity(db, {
      type: "IO",
      title: "Lighthouse log",
      securityTag: "open",
      parentRef: fx.top,
      ...old,
    }).ref;
    fx.secret = insertEntity(db, {
      type: "IO",
      title: "Sealed file",
      securityTag: "secret",
      parentRef: fx.top,
      ...old,
    }).ref;
    fx.co = insertEntity(db, {
      type: "CO",
      title: "ledger.tif",
      securityTag: "open",
      parentRef: fx.asset,
      ...old,
    }).ref;
    // An asset whose own content is an image: its thumbnail falls back to that once a preview is gone.
    fx.imageAsset = insertEntity(db, {
      type: "IO",
      title: "Chart",
      securityTag: "open",
      parentRef: fx.top,
      ...old,
    }).ref;
    const co = insertEntity(db, {
      type: "CO",
      title: "chart.jpg",
      securityTag: "open",
      parentRef: fx.imageAsset,
      ...old,
    }).ref;
    addRepresentation(db, fx.imageAsset, "Preservation", null, [co]);
    const gen = addGeneration(db, co, {});
    addBitstream(db, gen, {
      filename: "chart.jpg",
      mimeType: "image/jpeg",
      blob: repo.svc.content.put(JPEG),
    });
  })();
  u = await signIn(repo);
});

afterAll(async () => {
  await repo?.close();
});

function folderXml(fields: Record<string, string | undefined>, ns = XIP, root = "StructuralObject"): string {
  const inner = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => (v === "" ? `<${k}/>` : `<${k}>${v}</${k}>`))
    .join("");
  return `<${root} xmlns="${ns}">${inner}</${root}>`;
}

/** pyPreservica's add_physical_asset body: `<XIP >` with the stray space, in the namespace it was given. */
function physicalAssetXml(title: string, parent: string, ns = XIP60, repType = "Physical"): string {
  return `<XIP  xmlns="${ns}"><InformationObject><Title>${title}</Title><Description>A box of charts</Description><SecurityTag>open</SecurityTag><Parent>${parent}</Parent></InformationObject><Representation><Type>${repType}</Type></Representation></XIP >`;
}

describe("create a folder: POST /structural-objects", () => {
  it("keeps the client's ref and answers the EntityResponse; reads, search and facets see it at once", async () => {
    const facetsBefore = await contentSearch(u.curator, { q: "%", facets: ["xip.document_type"] });
    const folders = (v: typeof facetsBefore) =>
      v.facets.find((f) => f.name === "xip.document_type")?.terms.find((t) => t.value === "SO")?.count ?? 0;

    const ref = randomUUID();
    const since = instantNow();
    const res = await sendXml(
      u.curator,
      "POST",
      "/api/entity/structural-objects",
      folderXml({
        Ref: ref.toUpperCase(),
        Title: "Zanzibar dockets",
        Description: "Shipping dockets",
        SecurityTag: "open",
        Parent: fx.top,
      }),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    expect(reply.rootName).toBe("EntityResponse");
    expect(reply.ns).toEqual({ entity: ENTITY_NS("7.7"), xip: XIP });
    const so = reply.root.StructuralObject;
    expect(text(so.Ref)).toBe(ref);
    expect(text(so.Title)).toBe("Zanzibar dockets");
    expect(text(so.Description)).toBe("Shipping dockets");
    expect(text(so.SecurityTag)).toBe("open");
    expect(text(so.Parent)).toBe(fx.top);

    const got = await getXml(u.reader, `/api/entity/structural-objects/${ref}`);
    expect(text(got.root.StructuralObject.Title)).toBe("Zanzibar dockets");
    const children = await getXml(u.reader, `/api/entity/structural-objects/${fx.top}/children?max=100`);
    expect(arr(children.root.Children.Child).map((c: { "@ref": string }) => c["@ref"])).toContain(ref);

    await expectTrace(u.manager, "structural-objects", ref, since, {
      commandType: "CreateFolder",
      eventType: "Create",
      user: "curator",
    });

    const found = await contentSearch(u.reader, { q: "zanzibar" });
    expect(found.objectIds).toEqual([`sdb:SO|${ref}`]);
    const details = await u.reader(`/api/content/object-details?id=${encodeURIComponent(`sdb:SO|${ref}`)}`);
    expect(((await details.json()) as { value: { name: string } }).value.name).toBe("Zanzibar dockets");
    const facetsAfter = await contentSearch(u.curator, { q: "%", facets: ["xip.document_type"] });
    expect(folders(facetsAfter)).toBe(folders(facetsBefore) + 1);
  });

  it("makes a top-level folder without Parent and a ref of its own when none is sent", async () => {
    const res = await sendXml(
      u.curator,
      "POST",
      "/api/entity/structural-objects",
      folderXml({ Title: "Top level", Description: "", SecurityTag: "closed", CustomType: "Fonds" }),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    const so = reply.root.StructuralObject;
    expect(text(so.Ref)).toMatch(/^[0-9a-f-]{36}$/);
    expect(so.Parent).toBeUndefined();
    expect(so.Description).toBeUndefined();
    expect(text(so.CustomType)).toBe("Fonds");
    const row = findEntity(repo.svc.db, text(so.Ref));
    expect(row).toMatchObject({ parent_ref: null, security_tag: "closed", description: null });
    const root = await getXml(u.manager, "/api/entity/root/children?max=100");
    expect(arr(root.root.Children.Child).map((c: { "@ref": string }) => c["@ref"])).toContain(text(so.Ref));
  });

  it("refuses the reader, who may not ingest, and changes nothing", async () => {
    await expectRefused(
      repo,
      () =>
        sendXml(
          u.reader,
          "POST",
          "/api/entity/structural-objects",
          folderXml({ Title: "Nope", SecurityTag: "open", Parent: fx.top }),
        ),
      403,
      /reader lacks the Ingest permission on security tag "open"/,
    );
    await expectRefused(
      repo,
      () =>
        sendXml(
          u.reader,
          "POST",
          "/api/entity/structural-objects",
          folderXml({ Title: "Nope", SecurityTag: "open" }),
        ),
      403,
      /Ingest permission on security tag "open".*top-level folder/,
    );
  });

  it("refuses bad requests with a message that says what to fix, and changes nothing", async () => {
    const post = (body: string) => () => sendXml(u.curator, "POST", "/api/entity/structural-objects", body);
    const inUse = fx.asset;
    const cases: [string, string, number, RegExp][] = [
      ["not XML", "<StructuralObject", 400, /not well-formed XML.*send XML such as <StructuralObject/],
      [
        "a DOCTYPE",
        `<!DOCTYPE x [<!ENTITY e "boom">]><StructuralObject xmlns="${XIP}"><Title>&e;</Title></StructuralObject>`,
        400,
        /DOCTYPE declarations are not accepted/,
      ],
      [
        "the wrong root",
        folderXml({ Title: "x", SecurityTag: "open" }, XIP, "InformationObject"),
        400,
        /root element is <InformationObject>.*expected <StructuralObject> in an XIP namespace/,
      ],
      [
        "a root outside the XIP namespace",
        folderXml({ Title: "x", SecurityTag: "open" }, "urn:other"),
        400,
        /<StructuralObject> in namespace "urn:other"; expected <StructuralObject> in an XIP namespace/,
      ],
      ["an empty title", folderXml({ Title: "", SecurityTag: "open" }), 400, /<Title> is empty/],
      ["no title", folderXml({ SecurityTag: "open" }), 400, /<Title> is missing/],
      ["no security tag", folderXml({ Title: "x" }), 400, /<SecurityTag> is missing/],
      [
        "an unknown tag",
        folderXml({ Title: "x", SecurityTag: "topsecret" }),
        400,
        /Security tag "topsecret" does not exist; use one of: closed, open, secret, staff/,
      ],
      [
        "a malformed ref",
        folderXml({ Ref: "abc", Title: "x", SecurityTag: "open" }),
        400,
        /<Ref> "abc" is not/,
      ],
      [
        "a ref in use",
        folderXml({ Ref: inUse, Title: "x", SecurityTag: "open" }),
        409,
        /Reference .* is already in use/,
      ],
      [
        "an unknown parent",
        folderXml({ Title: "x", SecurityTag: "open", Parent: randomUUID() }),
        404,
        /Parent folder .* not found/,
      ],
      [
        "an asset as parent",
        folderXml({ Title: "x", SecurityTag: "open", Parent: fx.asset }),
        400,
        /is not a folder/,
      ],
      [
        "a malformed parent",
        folderXml({ Title: "x", SecurityTag: "open", Parent: "top" }),
        400,
        /<Parent> "top"/,
      ],
    ];
    for (const [what, body, status, message] of cases) {
      await expectRefused(repo, post(body), status, message).catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`);
      });
    }
  });
});

describe("create a physical asset: POST /information-objects", () => {
  it("takes pyPreservica's <XIP > body in any XIP version and records a Physical representation", async () => {
    const since = instantNow();
    const res = await sendXml(
      u.curator,
      "POST",
      "/api/entity/information-objects",
      physicalAssetXml("Box of charts", fx.top),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    const io = reply.root.InformationObject;
    const ref = text(io.Ref);
    expect(text(io.Title)).toBe("Box of charts");
    expect(text(io.Parent)).toBe(fx.top);
    expect(text(io.SecurityTag)).toBe("open");

    const reps = await getXml(u.reader, `/api/entity/information-objects/${ref}/representations`);
    expect(arr(reps.root.Representations.Representation).map((r: { "@type": string }) => r["@type"])).toEqual(
      ["Physical"],
    );
    await expectTrace(u.manager, "information-objects", ref, since, {
      commandType: "CreateAsset",
      eventType: "Create",
      user: "curator",
    });
    expect((await contentSearch(u.reader, { q: "box charts" })).objectIds).toEqual([`sdb:IO|${ref}`]);
    // A physical asset has no file: no download, no thumbnail.
    expect((await u.reader(`/api/content/thumbnail?id=sdb:IO|${ref}`)).status).toBe(404);
  });

  it("refuses an asset without a folder, digital representations, the wrong root and the reader", async () => {
    const post = (who: typeof u.curator, body: string) => () =>
      sendXml(who, "POST", "/api/entity/information-objects", body);
    await expectRefused(
      repo,
      post(
        u.curator,
        `<XIP xmlns="${XIP}"><InformationObject><Title>x</Title><SecurityTag>open</SecurityTag></InformationObject></XIP>`,
      ),
      400,
      /asset must be created in a folder; give the folder's ref in <Parent>/,
    );
    await expectRefused(
      repo,
      post(u.curator, physicalAssetXml("x", fx.top, XIP, "Preservation")),
      400,
      /Representation type "Preservation" cannot be created this way; send <Type>Physical<\/Type>/,
    );
    await expectRefused(
      repo,
      post(u.curator, folderXml({ Title: "x", SecurityTag: "open", Parent: fx.top })),
      400,
      /root element is <StructuralObject>.*expected <InformationObject>/,
    );
    await expectRefused(
      repo,
      post(u.reader, physicalAssetXml("x", fx.top)),
      403,
      /lacks the Ingest permission/,
    );
  });
});

describe("save: PUT /{path}/{ref}", () => {
  const saveXml = (el: string, fields: Record<string, string | undefined>) => folderXml(fields, XIP, el);

  it("changes title, description and custom type only; search follows at once", async () => {
    const since = instantNow();
    const res = await sendXml(
      u.curator,
      "PUT",
      `/api/entity/information-objects/${fx.asset}`,
      saveXml("InformationObject", {
        Ref: fx.asset,
        Title: "Wharfage ledger",
        Description: "Wharfage dues",
        SecurityTag: "closed",
        CustomType: "Register",
        Parent: fx.closedFolder,
      }),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    const io = reply.root.InformationObject;
    expect(text(io.Title)).toBe("Wharfage ledger");
    expect(text(io.Description)).toBe("Wharfage dues");
    expect(text(io.CustomType)).toBe("Register");
    // Tag and parent are not changed by a save.
    expect(text(io.SecurityTag)).toBe("open");
    expect(text(io.Parent)).toBe(fx.top);

    const trace = await expectTrace(u.manager, "information-objects", fx.asset, since, {
      commandType: "UpdateEntity",
      eventType: "Modified",
      user: "curator",
    });
    expect(trace.serialised).toMatch(/title, description, custom_type/);
    expect((await contentSearch(u.reader, { q: "wharfage" })).objectIds).toEqual([`sdb:IO|${fx.asset}`]);
    expect((await contentSearch(u.reader, { q: "quay" })).objectIds).toEqual([]);
    const byTitle = await contentSearch(u.reader, {
      q: "%",
      fields: [{ name: "xip.title", values: ["Wharfage ledger"] }],
    });
    expect(byTitle.objectIds).toEqual([`sdb:IO|${fx.asset}`]);
  });

  it("clears the description with an empty element, keeps what is not sent, and records nothing for no change", async () => {
    const put = (fields: Record<string, string | undefined>) =>
      sendXml(
        u.curator,
        "PUT",
        `/api/entity/information-objects/${fx.asset}`,
        saveXml("InformationObject", fields),
      );
    const res = await put({ Ref: fx.asset, Title: "Wharfage ledger", Description: "", SecurityTag: "open" });
    expect(res.status).toBe(200);
    const io = parseXml(await res.text()).root.InformationObject;
    expect(io.Description).toBeUndefined();
    expect(text(io.CustomType)).toBe("Register");
    expect(findEntity(repo.svc.db, fx.asset)?.description).toBeNull();

    const before = storeHash(repo.svc.db);
    const count = await actionCount(u.manager, "information-objects", fx.asset);
    const same = await put({ Ref: fx.asset, Title: "Wharfage ledger", Description: "", SecurityTag: "open" });
    expect(same.status).toBe(200);
    expect(storeHash(repo.svc.db)).toBe(before);
    expect(await actionCount(u.manager, "information-objects", fx.asset)).toBe(count);
  });

  it("saves content objects and folders on their own paths", async () => {
    const co = await sendXml(
      u.curator,
      "PUT",
      `/api/entity/content-objects/${fx.co}`,
      saveXml("ContentObject", { Ref: fx.co, Title: "ledger page 1", Description: "", SecurityTag: "open" }),
    );
    expect(co.status).toBe(200);
    expect(text(parseXml(await co.text()).root.ContentObject.Title)).toBe("ledger page 1");
    const so = await sendXml(
      u.curator,
      "PUT",
      `/api/entity/structural-objects/${fx.closedFolder}`,
      saveXml("StructuralObject", {
        Ref: fx.closedFolder,
        Title: "Closed series (restricted)",
        SecurityTag: "closed",
      }),
    );
    expect(so.status).toBe(200);
    expect(text(parseXml(await so.text()).root.StructuralObject.Title)).toBe("Closed series (restricted)");
  });

  it("refuses bad saves and callers without Update Metadata, changing nothing", async () => {
    const put = (who: typeof u.curator, path: string, body: string) => () => sendXml(who, "PUT", path, body);
    const assetPath = `/api/entity/information-objects/${fx.asset}`;
    const ok = { Ref: fx.asset, Title: "x", SecurityTag: "open" };
    await expectRefused(
      repo,
      put(u.reader, assetPath, saveXml("InformationObject", ok)),
      403,
      /reader lacks the Update Metadata permission/,
    );
    await expectRefused(
      repo,
      put(u.curator, assetPath, saveXml("InformationObject", { ...ok, Title: "" })),
      400,
      /<Title> is empty/,
    );
    await expectRefused(
      repo,
      put(u.curator, assetPath, saveXml("InformationObject", { ...ok, Ref: fx.target })),
      400,
      /<Ref> .* differs from the entity in the request path/,
    );
    await expectRefused(
      repo,
      put(u.curator, assetPath, saveXml("StructuralObject", ok)),
      400,
      /root element is <StructuralObject>.*expected <InformationObject>/,
    );
    await expectRefused(
      repo,
      put(u.curator, `/api/entity/information-objects/${randomUUID()}`, saveXml("InformationObject", ok)),
      404,
      /not found/,
    );
    await expectRefused(
      repo,
      put(u.curator, "/api/entity/information-objects/not-a-ref", saveXml("InformationObject", ok)),
      404,
      /is not a UUID/,
    );
    await expectRefused(
      repo,
      put(u.curator, assetPath, "<InformationObject><Title>"),
      400,
      /not well-formed/,
    );
  });
});

describe("identifiers", () => {
  it("adds, changes and removes an identifier, answering with a descendant xip:ApiId", async () => {
    const base = `/api/entity/information-objects/${fx.target}/identifiers`;
    let since = instantNow();
    // pyPreservica's shape (ElementTree with a prefix of its own, a stray space in the end tag).
    const added = await sendXml(
      u.curator,
      "POST",
      base,
      `<ns0:Identifier xmlns:ns0="${XIP}"><ns0:Type>accession</ns0:Type><ns0:Value>LH-1871</ns0:Value><ns0:Entity>${fx.target}</ns0:Entity></ns0:Identifier >`,
    );
    const reply = parseXml(await added.text());
    expect(added.status, reply.text).toBe(200);
    expect(reply.prefixed["xip:Identifier"]["xip:ApiId"]).toBeTruthy();
    const apiId = text(reply.root.Identifier.ApiId);
    expect(reply.root.Identifier).toMatchObject({ Type: "accession", Value: "LH-1871", Entity: fx.target });
    await expectTrace(u.manager, "information-objects", fx.target, since, {
      commandType: "AddIdentifier",
      eventType: "Modified",
      user: "curator",
    });
    const listed = await getXml(u.reader, base);
    expect(arr(listed.root.Identifiers.Identifier).map((i: { ApiId: string }) => i.ApiId)).toEqual([apiId]);
    const byId = await getXml(u.reader, "/api/entity/entities/by-identifier?type=accession&value=LH-1871");
    expect(arr(byId.root.Entities.Entity).map((e: { "@ref": string }) => e["@ref"])).toEqual([fx.target]);
    const one = await getXml(u.reader, `${base}/${apiId}`);
    expect(text(one.root.Identifier.Value)).toBe("LH-1871");

    since = instantNow();
    const changed = await sendXml(
      u.curator,
      "PUT",
      `${base}/${apiId}`,
      `<Identifier xmlns="${XIP}"><Type>accession</Type><Value>LH-1872</Value><Entity>${fx.target}</Entity></Identifier>`,
    );
    const changedReply = parseXml(await changed.text());
    expect(changed.status, changedReply.text).toBe(200);
    expect(text(changedReply.root.Identifier.ApiId)).toBe(apiId);
    expect(text(changedReply.root.Identifier.Value)).toBe("LH-1872");
    await expectTrace(u.manager, "information-objects", fx.target, since, {
      commandType: "UpdateIdentifier",
      eventType: "Modified",
      user: "curator",
    });
    const search = await contentSearch(u.reader, {
      q: "%",
      fields: [{ name: "xip.identifier", values: ["LH-1872"] }],
    });
    expect(search.objectIds).toEqual([`sdb:IO|${fx.target}`]);

    since = instantNow();
    const removed = await u.curator(`${base}/${apiId}`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    await expectTrace(u.manager, "information-objects", fx.target, since, {
      commandType: "DeleteIdentifier",
      eventType: "Modified",
      user: "curator",
    });
    expect(arr((await getXml(u.reader, base)).root.Identifiers?.Identifier)).toEqual([]);
  });

  it("refuses identifiers without type or value, of another entity, unknown ones, and the reader", async () => {
    const base = `/api/entity/information-objects/${fx.target}/identifiers`;
    const otherApiId = addIdentifier(repo.svc.db, fx.asset, "accession", "Q-1");
    const body = (type: string, value: string, entity = fx.target) =>
      `<Identifier xmlns="${XIP}"><Type>${type}</Type><Value>${value}</Value><Entity>${entity}</Entity></Identifier>`;
    await expectRefused(repo, () => sendXml(u.curator, "POST", base, body("", "v")), 400, /<Type> is empty/);
    await expectRefused(
      repo,
      () => sendXml(u.curator, "POST", base, `<Identifier xmlns="${XIP}"><Type>t</Type></Identifier>`),
      400,
      /<Value> is missing/,
    );
    await expectRefused(
      repo,
      () => sendXml(u.curator, "POST", base, body("t", "v", fx.asset)),
      400,
      /<Entity> .* differs from the entity in the request path/,
    );
    await expectRefused(
      repo,
      () => sendXml(u.curator, "POST", base, `<Link xmlns="${XIP}"/>`),
      400,
      /root element is <Link>.*expected <Identifier>/,
    );
    await expectRefused(repo, () => sendXml(u.reader, "POST", base, body("t", "v")), 403, /Update Metadata/);
    await expectRefused(
      repo,
      () => sendXml(u.curator, "PUT", `${base}/${otherApiId}`, body("t", "v")),
      404,
      /Identifier .* not found on entity/,
    );
    await expectRefused(
      repo,
      () => u.curator(`${base}/${otherApiId}`, { method: "DELETE" }),
      404,
      /not found/,
    );
    await expectRefused(
      repo,
      () => u.curator(`${base}/no such id`, { method: "DELETE" }),
      400,
      /is not an ApiId/,
    );
    await expectRefused(
      repo,
      () =>
        u.reader(`/api/entity/information-objects/${fx.asset}/identifiers/${otherApiId}`, {
          method: "DELETE",
        }),
      403,
      /Update Metadata/,
    );
  });
});

describe("links", () => {
  it("adds a link (nested xip:Link/xip:Type), lists it from both ends and removes it", async () => {
    const type = "http://purl.org/dc/terms/references";
    let since = instantNow();
    const res = await sendXml(
      u.curator,
      "POST",
      `/api/entity/information-objects/${fx.asset}/links`,
      `<Link  xmlns="${XIP}"><Type>${type}</Type><FromEntity>${fx.asset}</FromEntity><ToEntity>${fx.target}</ToEntity></Link >`,
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    expect(reply.rootName).toBe("LinkResponse");
    expect(reply.prefixed["xip:Link"]["xip:Type"]).toBe(type);
    expect(reply.root.Link).toMatchObject({ FromEntity: fx.asset, ToEntity: fx.target });
    // No XIP version defines Link/ApiId: the new link's id ends its Self URL.
    expect(reply.root.Link.ApiId).toBeUndefined();
    const apiId = /\/links\/([0-9a-f]+)$/.exec(text(reply.root.AdditionalInformation.Self))?.[1];
    expect(apiId).toBeTruthy();
    await expectTrace(u.manager, "information-objects", fx.asset, since, {
      commandType: "AddLink",
      eventType: "Modified",
      user: "curator",
    });

    const from = await getXml(u.reader, `/api/entity/information-objects/${fx.asset}/links`);
    expect(
      arr(from.root.Links.Link).map((l: Record<string, string>) => [
        l["@apiId"],
        l["@linkDirection"],
        l["@ref"],
      ]),
    ).toEqual([[apiId, "From", fx.target]]);
    const to = await getXml(u.reader, `/api/entity/information-objects/${fx.target}/links`);
    expect(
      arr(to.root.Links.Link).map((l: Record<string, string>) => [
        l["@apiId"],
        l["@linkDirection"],
        l["@ref"],
      ]),
    ).toEqual([[apiId, "To", fx.asset]]);
    const one = await getXml(u.reader, `/api/entity/information-objects/${fx.target}/links/${apiId}`);
    expect(text(one.root.Link.Type)).toBe(type);

    await expectRefused(
      repo,
      () =>
        sendXml(
          u.curator,
          "POST",
          `/api/entity/information-objects/${fx.asset}/links`,
          `<Link xmlns="${XIP}"><Type>${type}</Type><ToEntity>${fx.target}</ToEntity></Link>`,
        ),
      409,
      new RegExp(`already has a .* link to ${fx.target} \\(apiId ${apiId}\\)`),
    );

    since = instantNow();
    const removed = await u.curator(`/api/entity/information-objects/${fx.asset}/links/${apiId}`, {
      method: "DELETE",
    });
    expect(removed.status).toBe(204);
    await expectTrace(u.manager, "information-objects", fx.asset, since, {
      commandType: "DeleteLink",
      eventType: "Modified",
      user: "curator",
    });
    expect(
      Number(
        text(
          (await getXml(u.reader, `/api/entity/information-objects/${fx.target}/links`)).root.Paging
            .TotalResults,
        ),
      ),
    ).toBe(0);
  });

  it("refuses links from another entity, to itself, to an unknown or unreadable one, and the reader", async () => {
    const path = `/api/entity/information-objects/${fx.asset}/links`;
    const link = (to: string, from = fx.asset, type = "http://purl.org/dc/terms/references") =>
      `<Link xmlns="${XIP}"><Type>${type}</Type><FromEntity>${from}</FromEntity><ToEntity>${to}</ToEntity></Link>`;
    const post = (who: typeof u.curator, body: string) => () => sendXml(who, "POST", path, body);
    await expectRefused(repo, post(u.curator, link(fx.target, fx.top)), 400, /<FromEntity> .* differs/);
    await expectRefused(repo, post(u.curator, link(fx.asset)), 400, /is the entity itself/);
    await expectRefused(repo, post(u.curator, link(randomUUID())), 404, /ToEntity .* not found/);
    await expectRefused(
      repo,
      post(u.curator, link(fx.secret)),
      403,
      /lacks the Read Metadata permission on security tag "secret"/,
    );
    await expectRefused(repo, post(u.curator, link(fx.target, fx.asset, "")), 400, /<Type> is empty/);
    await expectRefused(
      repo,
      post(u.curator, `<Link xmlns="${XIP}"><Type>t</Type></Link>`),
      400,
      /<ToEntity> is missing/,
    );
    await expectRefused(repo, post(u.reader, link(fx.target)), 403, /Update Metadata/);
    await expectRefused(
      repo,
      () => u.curator(`${path}/deadbeef`, { method: "DELETE" }),
      404,
      /Link deadbeef not found/,
    );
  });
});

describe("custom previews", () => {
  const thumb = (ref: string, type = "IO") =>
    u.reader(`/api/content/thumbnail?id=sdb:${type}|${ref}&size=large`);

  it("serves the preview as the thumbnail first, and falls back or 404s after it is removed", async () => {
    // Before: the asset's own JPEG is its thumbnail; the folder has none.
    expect((await thumb(fx.imageAsset)).headers.get("content-type")).toBe("image/jpeg");
    expect((await thumb(fx.top, "SO")).status).toBe(404);

    for (const [path, ref, type] of [
      ["information-objects", fx.imageAsset, "IO"],
      ["structural-objects", fx.top, "SO"],
    ] as const) {
      const since = instantNow();
      const put = await u.curator(`/api/entity/${path}/${ref}/preview`, {
        method: "PUT",
        headers: { "Content-Type": "application/octet-stream" },
        body: PNG,
      });
      expect(put.status, await put.text()).toBe(204);
      await expectTrace(u.manager, path, ref, since, {
        commandType: "AddPreview",
        eventType: "Modified",
        user: "curator",
      });
      const got = await thumb(ref, type);
      expect(got.status).toBe(200);
      expect(got.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
    }

    for (const [path, ref] of [
      ["information-objects", fx.imageAsset],
      ["structural-objects", fx.top],
    ] as const) {
      const since = instantNow();
      const del = await u.curator(`/api/entity/${path}/${ref}/preview`, { method: "DELETE" });
      expect(del.status).toBe(204);
      await expectTrace(u.manager, path, ref, since, {
        commandType: "DeletePreview",
        eventType: "Modified",
        user: "curator",
      });
    }
    const fallback = await thumb(fx.imageAsset);
    expect(fallback.status).toBe(200);
    expect(fallback.headers.get("content-type")).toBe("image/jpeg");
    expect((await thumb(fx.top, "SO")).status).toBe(404);
  });

  it("refuses what is not an image, an empty body, more than 10 MB, content objects and the reader", async () => {
    const put = (who: typeof u.curator, path: string, body: Buffer) => () =>
      who(path, { method: "PUT", headers: { "Content-Type": "application/octet-stream" }, body });
    const assetPreview = `/api/entity/information-objects/${fx.target}/preview`;
    await expectRefused(
      repo,
      put(u.curator, assetPreview, Buffer.from("hello")),
      400,
      /not a PNG, JPEG, GIF, TIFF, BMP or WebP image/,
    );
    await expectRefused(repo, put(u.curator, assetPreview, Buffer.alloc(0)), 400, /body is empty/);
    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    await expectRefused(repo, put(u.curator, assetPreview, big), 413, /larger than 10 MB/);
    await expectRefused(
      repo,
      put(u.curator, `/api/entity/content-objects/${fx.co}/preview`, PNG),
      400,
      /Content objects have no custom preview/,
    );
    await expectRefused(repo, put(u.reader, assetPreview, PNG), 403, /Update Metadata/);
    await expectRefused(
      repo,
      () => u.curator(assetPreview, { method: "DELETE" }),
      404,
      /has no custom preview/,
    );
  });

  /** A PUT of the preview whose body arrives in chunks, without a Content-Length. */
  const putChunked = (ref: string, chunks: Buffer[]) => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(new Uint8Array(next));
        else controller.close();
      },
    });
    return u.curator(`/api/entity/information-objects/${ref}/preview`, {
      method: "PUT",
      headers: { "Content-Type": "application/octet-stream" },
      body: stream,
      duplex: "half",
    } as RequestInit);
  };

  it("takes an image streamed in chunks, and stops reading one past 10 MB", async () => {
    const res = await putChunked(fx.target, [PNG.subarray(0, 10), PNG.subarray(10)]);
    expect(res.status).toBe(204);
    expect((await thumb(fx.target)).status).toBe(200);

    const megabyte = Buffer.alloc(1024 * 1024);
    const chunks = [PNG, ...Array.from({ length: 11 }, () => megabyte)];
    await expectRefused(repo, () => putChunked(fx.asset, chunks), 413, /larger than 10 MB/);
    expect((await thumb(fx.asset)).status).toBe(404);
  });
});

describe("versioned paths", () => {
  it("answers creations, identifiers and links in the namespaces of the version asked for", async () => {
    const res = await sendXml(
      u.curator,
      "POST",
      "/api/entity/v6.2/structural-objects",
      folderXml({ Title: "Versioned folder", SecurityTag: "open", Parent: fx.top }, XIP60),
    );
    const reply = parseXml(await res.text());
    expect(res.status, reply.text).toBe(200);
    expect(reply.ns).toEqual({ entity: ENTITY_NS("6.2"), xip: XIP_NS("6.2") });
    const ref = text(reply.root.StructuralObject.Ref);
    expect(text(reply.root.AdditionalInformation.Self)).toContain(
      `/api/entity/v6.2/structural-objects/${ref}`,
    );

    const id = await sendXml(
      u.curator,
      "POST",
      `/api/entity/v6.2/structural-objects/${ref}/identifiers`,
      `<Identifier xmlns="${XIP_NS("6.2")}"><Type>code</Type><Value>V-1</Value></Identifier>`,
    );
    const idReply = parseXml(await id.text());
    expect(id.status, idReply.text).toBe(200);
    expect(idReply.ns).toEqual({ entity: ENTITY_NS("6.2"), xip: XIP_NS("6.2") });

    const link = await sendXml(
      u.curator,
      "POST",
      `/api/entity/v7.0/structural-objects/${ref}/links`,
      `<Link xmlns="${XIP}"><Type>related</Type><ToEntity>${fx.top}</ToEntity></Link>`,
    );
    const linkReply = parseXml(await link.text());
    expect(link.status, linkReply.text).toBe(200);
    expect(linkReply.ns).toEqual({ entity: ENTITY_NS("7.0"), xip: XIP_NS("7.0") });
    expect(await updatedSince(u.reader, LONG_AGO)).toContain(ref);
  });
});
