import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseXmlBody, type XmlNode } from "../../repository/http/xml-body.js";
import { pngFile } from "../../repository/seed/files.js";
import type { RunningRepository } from "../../repository/server.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { ENTITY_NS, jsonError, XIP_NS } from "./entity-xml.js";
import { storeHash } from "./writes/store-hash.js";

/**
 * Wire facts the WRITE calls of the real Python client, pyPreservica 3.4.4, depend on, found by running
 * every write of its EntityAPI, RetentionAPI and MetadataGroupsAPI against this service. Each request
 * below is the one the client sends, byte for byte (ElementTree's serialisation, with its `<Link  …>` /
 * `</Link >` and `<Description />`, and the headers of Python's requests), and each reply is read the
 * way the client reads it: ElementTree's `find(".//{ns}Name")`, by namespace, among descendants only.
 * Each test names what the client does with the fact and what breaks without it.
 */

const E = "/api/entity";
const X = XIP_NS("7.7");
const EN = ENTITY_NS("7.7");
const RM = "http://preservica.com/RetentionManagement/v6.2";
const STATUS = "http://status.preservica.com";
const XML_TYPE = { "Content-Type": "application/xml;charset=UTF-8" };

type Get = ReturnType<typeof authed>;

let repo: RunningRepository;
let manager: Get;
let curator: Get;
/** A root folder holding an asset whose one content object has one generation, and a second asset. */
const f = {} as { folder: string; asset: string; co: string; other: string };
const ORIGINAL = Buffer.from("Minute book, first scan.\n", "utf8");

beforeAll(async () => {
  repo = await startTestRepository();
  const { db, content } = repo.svc;
  f.folder = insertEntity(db, { type: "SO", title: "Harbour records", securityTag: "open" }).ref;
  f.asset = insertEntity(db, {
    type: "IO",
    title: "Minute book",
    securityTag: "open",
    parentRef: f.folder,
  }).ref;
  f.co = insertEntity(db, { type: "CO", title: "minutes.txt", securityTag: "open", parentRef: f.asset }).ref;
  addRepresentation(db, f.asset, "Preservation", "Preservation", [f.co]);
  const g = addGeneration(db, f.co, { label: "minutes.txt", formatPuid: "x-fmt/111" });
  addBitstream(db, g, { filename: "minutes.txt", mimeType: "text/plain", blob: content.put(ORIGINAL) });
  f.other = insertEntity(db, {
    type: "IO",
    title: "Rate book",
    securityTag: "open",
    parentRef: f.folder,
  }).ref;
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
});

afterAll(async () => {
  await repo?.close();
});

// --- reading replies as ElementTree does -------------------------------------------------------------

/** The descendants of `node` in document order, `node` itself excluded (ElementTree's `.//`). */
function descendants(node: XmlNode): XmlNode[] {
  return node.children.flatMap((c) => [c, ...descendants(c)]);
}

/**
 * ElementTree's `root.findall(".//{ns}A/{ns}B/…")`: every element reached by the path's later steps
 * (children) from a descendant matching its first step.
 */
function etFindAll(root: XmlNode, ns: string, ...path: string[]): XmlNode[] {
  const [first, ...rest] = path;
  let found = descendants(root).filter((n) => n.ns === ns && n.name === first);
  for (const step of rest) {
    found = found.flatMap((n) => n.children.filter((c) => c.ns === ns && c.name === step));
  }
  return found;
}

function etFind(root: XmlNode, ns: string, ...path: string[]): XmlNode | undefined {
  return etFindAll(root, ns, ...path)[0];
}

/** `.text` of the first match: undefined when there is none, null for an empty element (as in Python). */
function etText(root: XmlNode, ns: string, ...path: string[]): string | null | undefined {
  const n = etFind(root, ns, ...path);
  if (!n) return undefined;
  return n.text === "" ? null : n.text;
}

async function xmlReply(res: Response, status = 200): Promise<XmlNode> {
  const body = await res.text();
  expect(res.status, body).toBe(status);
  return parseXmlBody(body, "");
}

async function getEntity(path: string, ref: string): Promise<XmlNode> {
  return xmlReply(await manager(`${E}/${path}/${ref}`));
}

/** What `entity_from_string` makes of an entity reply. */
function entityFields(root: XmlNode) {
  return {
    reference: etText(root, X, "Ref"),
    title: etText(root, X, "Title"),
    description: etText(root, X, "Description") ?? null,
    securityTag: etText(root, X, "SecurityTag"),
    parent: etText(root, X, "Parent") ?? null,
    customType: etText(root, X, "CustomType"),
    metadata: Object.fromEntries(
      etFindAll(root, EN, "Metadata", "Fragment").map((fr) => [fr.text, fr.attrs.schema as string]),
    ),
  };
}

/** `get_async_progress`: the first `{status}Status` below the root, "UNKNOWN" when there is none. */
async function progress(id: string): Promise<string> {
  // The client sends `Content-Type: text/plain` on this GET.
  const root = await xmlReply(
    await manager(`${E}/progress/${id}`, { headers: { "Content-Type": "text/plain" } }),
  );
  return etText(root, STATUS, "Status") ?? "UNKNOWN";
}

/** The progress id of a 202/200 that started an action: the whole text/plain body. */
async function progressId(res: Response, status = 202): Promise<string> {
  const body = await res.text();
  expect(res.status, body).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(body).toMatch(/^[0-9a-f-]{36}$/);
  return body;
}

/** ElementTree's escaping of text: &, < and > only. */
function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A leaf as ElementTree writes it; Python's None text gives `<Name />`. */
function leaf(name: string, value: string | null): string {
  return value === null ? `<${name} />` : `<${name}>${esc(value)}</${name}>`;
}

function send(who: Get, method: string, path: string, body: string | Buffer, headers = XML_TYPE) {
  return who(path, { method, headers, body });
}

function sha(alg: string, bytes: Uint8Array): string {
  return createHash(alg).update(bytes).digest("hex");
}

// --- structure -----------------------------------------------------------------------------------------

describe("create_folder, add_physical_asset and save", () => {
  it("create_folder: keeps the client's Ref and answers an EntityResponse the client reads its folder from", async () => {
    // create_folder makes the Ref (uuid4) itself and builds its Folder from the reply's first xip:Ref,
    // Title, Description, SecurityTag and Parent; a None description is sent as <Description />.
    const ref = "5f0c3b8e-2d1a-4c7e-9b1f-3a6d2e8c4b10";
    const body = `<StructuralObject xmlns="${X}"><Ref>${ref}</Ref>${leaf("Title", "Café & <Quay>")}${leaf("Description", null)}<SecurityTag>open</SecurityTag><Parent>${f.folder}</Parent></StructuralObject>`;
    const reply = await xmlReply(await send(manager, "POST", `${E}/structural-objects`, body));
    const expected = {
      reference: ref,
      title: "Café & <Quay>",
      description: null,
      securityTag: "open",
      parent: f.folder,
    };
    expect(entityFields(reply)).toMatchObject(expected);
    expect(entityFields(await getEntity("structural-objects", ref))).toMatchObject(expected);
  });

  it("add_physical_asset: accepts the <XIP  …> … </XIP > document and a Physical representation", async () => {
    // add_physical_asset sends no Ref (the service makes one) and builds its Asset from the reply; a
    // later representations() lists the Physical representation.
    const body = `<XIP  xmlns="${X}"><InformationObject><Title>Box of letters</Title><Description>1871-1890</Description><SecurityTag>open</SecurityTag><Parent>${f.folder}</Parent></InformationObject><Representation><Type>Physical</Type></Representation></XIP >`;
    const reply = entityFields(await xmlReply(await send(manager, "POST", `${E}/information-objects`, body)));
    expect(reply).toMatchObject({ title: "Box of letters", description: "1871-1890", parent: f.folder });
    expect(reply.reference).toMatch(/^[0-9a-f-]{36}$/);
    const reps = await xmlReply(await manager(`${E}/information-objects/${reply.reference}/representations`));
    expect(etFindAll(reps, EN, "Representation").map((r) => r.attrs.type)).toEqual(["Physical"]);
  });

  it("save: an entity listed by descendants() (no tag, no description) changes its title and keeps its tag", async () => {
    // Entities from descendants()/children() carry only ref and title, so save() sends
    // <Description /> and <SecurityTag />: the tag is never changed this way (a 400 for the empty
    // tag would break the common "rename everything in a folder" loop), the description is cleared.
    const ref = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Untitled",
      description: "to be cleared",
      securityTag: "closed",
      parentRef: f.folder,
    }).ref;
    const body = `<InformationObject xmlns="${X}"><Ref>${ref}</Ref><Title>Ledger 1</Title><Description /><SecurityTag /><Parent>${f.folder}</Parent></InformationObject>`;
    const reply = entityFields(
      await xmlReply(await send(manager, "PUT", `${E}/information-objects/${ref}`, body)),
    );
    expect(reply).toMatchObject({ title: "Ledger 1", description: null, securityTag: "closed" });
    expect(entityFields(await getEntity("information-objects", ref))).toMatchObject({
      title: "Ledger 1",
      description: null,
      securityTag: "closed",
      parent: f.folder,
    });
  });

  it("save: a CustomType sent is answered as xip:CustomType, which save() and folder() copy to custom_type", async () => {
    const body = `<StructuralObject xmlns="${X}"><Ref>${f.folder}</Ref><Title>Harbour records</Title><Description>new description &amp; &lt;notes&gt;</Description><SecurityTag>open</SecurityTag><CustomType>Series</CustomType></StructuralObject>`;
    const reply = entityFields(
      await xmlReply(await send(manager, "PUT", `${E}/structural-objects/${f.folder}`, body)),
    );
    expect(reply).toMatchObject({ description: "new description & <notes>", customType: "Series" });
    expect(entityFields(await getEntity("structural-objects", f.folder)).customType).toBe("Series");
  });

  it("save: a content object is saved with a <ContentObject> body and answered as one", async () => {
    // save() picks the root element from the entity's class and re-reads Ref, Title and Parent from
    // the reply into a new ContentObject.
    const co = insertEntity(repo.svc.db, {
      type: "CO",
      title: "scan.tif",
      securityTag: "open",
      parentRef: f.other,
    }).ref;
    const body = `<ContentObject xmlns="${X}"><Ref>${co}</Ref><Title>scan, page 1</Title><Description>recto</Description><SecurityTag>open</SecurityTag><Parent>${f.other}</Parent></ContentObject>`;
    const reply = await xmlReply(await send(manager, "PUT", `${E}/content-objects/${co}`, body));
    expect(etFind(reply, X, "ContentObject")).toBeDefined();
    expect(entityFields(reply)).toMatchObject({ reference: co, title: "scan, page 1", parent: f.other });
  });
});

describe("move and security tag", () => {
  it("move_sync: a text/plain folder ref or @root@ gives 202 + progress id, ACTIVE until the move is applied", async () => {
    // move_sync polls until the status is anything but ACTIVE, then re-reads the entity: a status
    // other than ACTIVE before the move is applied would hand back the old parent.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Mover",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const dest = insertEntity(repo.svc.db, { type: "SO", title: "Destination", securityTag: "open" }).ref;
    const headers = { "Content-Type": "text/plain" };
    const id = await progressId(
      await send(manager, "PUT", `${E}/information-objects/${a}/parent-ref`, dest, headers),
    );
    const first = await progress(id);
    const parentNow = entityFields(await getEntity("information-objects", a)).parent;
    if (first !== "ACTIVE") expect(parentNow).toBe(dest);
    await repo.svc.actions.idle();
    expect(await progress(id)).toBe("COMPLETED");
    expect(entityFields(await getEntity("information-objects", a)).parent).toBe(dest);

    const sub = insertEntity(repo.svc.db, {
      type: "SO",
      title: "Sub",
      securityTag: "open",
      parentRef: dest,
    }).ref;
    const toRoot = await progressId(
      await send(manager, "PUT", `${E}/structural-objects/${sub}/parent-ref`, "@root@", headers),
    );
    await repo.svc.actions.idle();
    expect(await progress(toRoot)).toBe("COMPLETED");
    expect(entityFields(await getEntity("structural-objects", sub)).parent).toBeNull();
  });

  it("security_tag_sync: PUT …/security-descriptor?includeDescendants=false with the tag as text/plain", async () => {
    const folder = insertEntity(repo.svc.db, { type: "SO", title: "Tagged", securityTag: "open" }).ref;
    const inside = insertEntity(repo.svc.db, {
      type: "IO",
      title: "In",
      securityTag: "open",
      parentRef: folder,
    }).ref;
    const id = await progressId(
      await send(
        manager,
        "PUT",
        `${E}/structural-objects/${folder}/security-descriptor?includeDescendants=false`,
        "staff",
        {
          "Content-Type": "text/plain",
        },
      ),
    );
    await repo.svc.actions.idle();
    expect(await progress(id)).toBe("COMPLETED");
    expect(entityFields(await getEntity("structural-objects", folder)).securityTag).toBe("staff");
    expect(entityFields(await getEntity("information-objects", inside)).securityTag).toBe("open");
  });
});

// --- descriptive metadata -------------------------------------------------------------------------------

/** The documents (first child of xip:Content, standalone) of an entity's fragments with this schema. */
async function documentsOf(
  path: string,
  ref: string,
  schema: string,
): Promise<{ url: string; doc: XmlNode }[]> {
  const { metadata } = entityFields(await getEntity(path, ref));
  const out: { url: string; doc: XmlNode }[] = [];
  for (const [url, s] of Object.entries(metadata)) {
    if (s !== schema) continue;
    const reply = await xmlReply(await manager(new URL(url as string).pathname));
    const content = etFind(reply, X, "Content") as XmlNode;
    out.push({ url: url as string, doc: content.children[0] as XmlNode });
  }
  return out;
}

describe("add_metadata, add_metadata_as_fragment, update_metadata, delete_metadata", () => {
  const OAI = "http://www.openarchives.org/OAI/2.0/oai_dc/";
  const DC = "http://purl.org/dc/elements/1.1/";

  it("add_metadata: the document's namespaces are declared on the container (ElementTree hoists them), not on the document", async () => {
    // ElementTree writes every namespace declaration on the root it serialises, here the
    // MetadataContainer, so <oai_dc:dc> inside Content declares nothing: the stored document must take
    // the bindings it inherits, or metadata() would hand back unbound prefixes.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "DC",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const body = `<xip:MetadataContainer xmlns:dc="${DC}" xmlns:oai_dc="${OAI}" schemaUri="${OAI}" xmlns:xip="${X}"><xip:Entity>${a}</xip:Entity><xip:Content><oai_dc:dc><dc:title>Minutes</dc:title><dc:creator>Clerk</dc:creator></oai_dc:dc></xip:Content></xip:MetadataContainer>`;
    const res = await send(manager, "POST", `${E}/information-objects/${a}/metadata`, body);
    expect(res.status, await res.text()).toBe(200);
    const [stored] = await documentsOf("information-objects", a, OAI);
    expect(stored?.doc).toMatchObject({ ns: OAI, name: "dc" });
    expect(stored?.doc.children.map((c) => [c.ns, c.name, c.text])).toEqual([
      [DC, "title", "Minutes"],
      [DC, "creator", "Clerk"],
    ]);
  });

  it("add_metadata_as_fragment: an indented container with xmlns=<schema>, and a fragment read from a file with its XML declaration", async () => {
    // add_metadata_as_fragment pastes the caller's text between indented tags without parsing it;
    // an element without its own xmlns inherits the schema, and a fragment read from a file keeps its
    // <?xml …?> line, which is ignored rather than refusing the document.
    const a = insertEntity(repo.svc.db, { type: "SO", title: "Frag", securityTag: "open" }).ref;
    const container = (schema: string, fragment: string) =>
      `<xip:MetadataContainer xmlns="${schema}" schemaUri="${schema}" xmlns:xip="${X}">\n            <xip:Entity>${a}</xip:Entity>\n                <xip:Content>\n                   ${fragment}\n                </xip:Content>\n            </xip:MetadataContainer>`;
    for (const [schema, fragment] of [
      ["urn:example:inherit", "<inh><a>1</a></inh>"],
      ["urn:example:decl", '<?xml version="1.0" encoding="UTF-8"?><d xmlns="urn:example:decl">x</d>'],
    ] as const) {
      const res = await send(
        manager,
        "POST",
        `${E}/structural-objects/${a}/metadata`,
        container(schema, fragment),
      );
      expect(res.status, await res.text()).toBe(200);
      const [stored] = await documentsOf("structural-objects", a, schema);
      expect(stored?.doc.ns, schema).toBe(schema);
    }
  });

  it("update_metadata: PUT to the fragment URL with xip:Ref = the URL's tail replaces the document", async () => {
    // update_metadata finds the fragment URL by schema in the entity reply, cuts the mref after
    // "{ref}/metadata/", and PUTs the container there; it needs 200.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Upd",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    await send(
      manager,
      "POST",
      `${E}/information-objects/${a}/metadata`,
      `<xip:MetadataContainer schemaUri="urn:example:u" xmlns:xip="${X}"><xip:Entity>${a}</xip:Entity><xip:Content><ns0:r xmlns:ns0="urn:example:u"><ns0:v>1</ns0:v></ns0:r></xip:Content></xip:MetadataContainer>`,
    );
    const [before] = await documentsOf("information-objects", a, "urn:example:u");
    const url = before?.url as string;
    const mref = url.slice(url.lastIndexOf(`${a}/metadata/`) + `${a}/metadata/`.length);
    const body = `<xip:MetadataContainer xmlns:ns0="urn:example:u" schemaUri="urn:example:u" xmlns:xip="${X}"><xip:Ref>${mref}</xip:Ref><xip:Entity>${a}</xip:Entity><xip:Content><ns0:r><ns0:v>2</ns0:v></ns0:r></xip:Content></xip:MetadataContainer>`;
    const res = await send(manager, "PUT", new URL(url).pathname, body);
    expect(res.status, await res.text()).toBe(200);
    const after = await documentsOf("information-objects", a, "urn:example:u");
    expect(after.map((d) => [d.url, d.doc.children[0]?.text])).toEqual([[url, "2"]]);
  });

  it("update_metadata and add_metadata_as_fragment: ISO-8859-1 bytes under charset=UTF-8 keep their accents", async () => {
    // Both send the XML as a Python str, which http.client encodes as ISO-8859-1 although the header
    // says UTF-8: "Crème" arrives as Cr\xE8me. Read as UTF-8 it was stored as "Cr\uFFFDme", silently
    // losing every accented letter of the archive's descriptions.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Latin",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const fragment = `<xip:MetadataContainer xmlns="urn:example:l" schemaUri="urn:example:l" xmlns:xip="${X}">\n            <xip:Entity>${a}</xip:Entity>\n                <xip:Content>\n                   <f xmlns="urn:example:l" a="ñ">naïve £5</f>\n                </xip:Content>\n            </xip:MetadataContainer>`;
    const added = await send(
      manager,
      "POST",
      `${E}/information-objects/${a}/metadata`,
      Buffer.from(fragment, "latin1"),
    );
    expect(added.status, await added.text()).toBe(200);
    const [stored] = await documentsOf("information-objects", a, "urn:example:l");
    expect(stored?.doc.text).toBe("naïve £5");
    expect(stored?.doc.attrs.a).toBe("ñ");

    const url = stored?.url as string;
    const mref = url.slice(url.lastIndexOf("/") + 1);
    const update = `<xip:MetadataContainer schemaUri="urn:example:l" xmlns:xip="${X}" xmlns:ns0="urn:example:l"><xip:Ref>${mref}</xip:Ref><xip:Entity>${a}</xip:Entity><xip:Content><ns0:f>Crème brûlée, ÿ</ns0:f></xip:Content></xip:MetadataContainer>`;
    const updated = await send(manager, "PUT", new URL(url).pathname, Buffer.from(update, "latin1"));
    expect(updated.status, await updated.text()).toBe(200);
    const [after] = await documentsOf("information-objects", a, "urn:example:l");
    expect(after?.doc.text).toBe("Crème brûlée, ÿ");

    // Valid UTF-8 is never reinterpreted: the same text sent as UTF-8 reads the same.
    const utf8 = await send(
      manager,
      "PUT",
      new URL(url).pathname,
      Buffer.from(update.replace("Crème", "Crêpe 東京"), "utf8"),
    );
    expect(utf8.status, await utf8.text()).toBe(200);
    expect((await documentsOf("information-objects", a, "urn:example:l"))[0]?.doc.text).toBe(
      "Crêpe 東京 brûlée, ÿ",
    );
  });

  it("update_metadata and delete_metadata find fragments by the schemaUri sent, not the document's namespace", async () => {
    // Both look the schema up in the entity's {fragment URL: schema} map; had the service recorded the
    // document's root namespace, a document whose namespace differs from its schema could be neither
    // updated ("Only existing schema's can be updated") nor deleted.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Schema",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const res = await send(
      manager,
      "POST",
      `${E}/information-objects/${a}/metadata`,
      `<xip:MetadataContainer schemaUri="urn:example:schema" xmlns:xip="${X}"><xip:Entity>${a}</xip:Entity><xip:Content><ns0:x xmlns:ns0="urn:example:other"><ns0:y /></ns0:x></xip:Content></xip:MetadataContainer>`,
    );
    expect(res.status, await res.text()).toBe(200);
    expect(Object.values(entityFields(await getEntity("information-objects", a)).metadata)).toEqual([
      "urn:example:schema",
    ]);
  });

  it("delete_metadata: DELETE of each fragment URL of the schema answers 204 and the entity no longer lists it", async () => {
    // delete_metadata accepts only 204, then re-reads the entity.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Del",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    for (const v of ["1", "2"]) {
      await send(
        manager,
        "POST",
        `${E}/information-objects/${a}/metadata`,
        `<xip:MetadataContainer schemaUri="urn:example:d" xmlns:xip="${X}"><xip:Entity>${a}</xip:Entity><xip:Content><ns0:d xmlns:ns0="urn:example:d">${v}</ns0:d></xip:Content></xip:MetadataContainer>`,
      );
    }
    const urls = Object.keys(entityFields(await getEntity("information-objects", a)).metadata);
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      const res = await manager(new URL(url).pathname, { method: "DELETE" });
      expect(res.status).toBe(204);
    }
    expect(entityFields(await getEntity("information-objects", a)).metadata).toEqual({});
  });
});

// --- identifiers and links -------------------------------------------------------------------------------

describe("identifiers", () => {
  it("add_identifier, identifiers_for_entity, identifier(), update_identifiers, delete_identifiers", async () => {
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Ids",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const idBody = (type: string, value: string) =>
      `<Identifier xmlns="${X}"><Type>${esc(type)}</Type><Value>${esc(value)}</Value><Entity>${a}</Entity></Identifier>`;
    // add_identifier returns the first descendant xip:ApiId of the reply (None without one).
    const added = await xmlReply(
      await send(
        manager,
        "POST",
        `${E}/information-objects/${a}/identifiers`,
        idBody("isbn & co", "978 0/12+3?x=1#é"),
      ),
    );
    const apiId = etText(added, X, "ApiId");
    expect(apiId).toMatch(/\S/);

    // update/delete_identifiers list them and match children by tag suffix: Entity must name the
    // entity and ApiId give the id used in the PUT/DELETE path.
    const list = await xmlReply(await manager(`${E}/information-objects/${a}/identifiers`));
    const items = etFindAll(list, X, "Identifier").map((i) =>
      Object.fromEntries(i.children.map((c) => [c.name, c.text])),
    );
    expect(items).toEqual([{ ApiId: apiId, Type: "isbn & co", Value: "978 0/12+3?x=1#é", Entity: a }]);

    // identifier() sends type and value as requests encodes query parameters and reads
    // {entity}Entity attributes type, ref and title.
    const q = "type=isbn+%26+co&value=978+0%2F12%2B3%3Fx%3D1%23%C3%A9";
    const found = await xmlReply(await manager(`${E}/entities/by-identifier?${q}`));
    expect(etFindAll(found, EN, "Entity").map((e) => e.attrs)).toEqual([
      expect.objectContaining({ type: "IO", ref: a, title: "Ids" }),
    ]);

    // update_identifiers PUTs to …/identifiers/{ApiId} and returns the reply's xip:ApiId on 200.
    const updated = await xmlReply(
      await send(
        manager,
        "PUT",
        `${E}/information-objects/${a}/identifiers/${apiId}`,
        idBody("isbn & co", "979-1"),
      ),
    );
    expect(etText(updated, X, "ApiId")).toBe(apiId);
    const byNew = await xmlReply(await manager(`${E}/entities/by-identifier?type=isbn+%26+co&value=979-1`));
    expect(etFindAll(byNew, EN, "Entity").map((e) => e.attrs.ref)).toEqual([a]);

    // delete_identifiers treats anything but 204 as failure.
    const del = await manager(`${E}/information-objects/${a}/identifiers/${apiId}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    const after = await xmlReply(await manager(`${E}/information-objects/${a}/identifiers`));
    expect(etFindAll(after, X, "Identifier")).toEqual([]);
  });
});

describe("relationships", () => {
  it("add_relation, relationships and delete_relationships: <Link  …>…</Link >, a nested xip:Link/xip:Type, Link attributes", async () => {
    const from = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Edition 2",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const to = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Edition 1",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const link = (type: string, target: string) =>
      `<Link  xmlns="${X}"><Type>${type}</Type><FromEntity>${from}</FromEntity><ToEntity>${target}</ToEntity></Link >`;
    // add_relation returns the text of the first xip:Type inside the first descendant xip:Link.
    const added = await xmlReply(
      await send(
        manager,
        "POST",
        `${E}/information-objects/${from}/links`,
        link("http://purl.org/dc/terms/isVersionOf", to),
      ),
    );
    expect(etText(etFind(added, X, "Link") as XmlNode, X, "Type")).toBe(
      "http://purl.org/dc/terms/isVersionOf",
    );
    await send(
      manager,
      "POST",
      `${E}/information-objects/${from}/links`,
      link("http://purl.org/dc/terms/isPartOf", f.folder),
    );

    // relationships() reads linkType, linkDirection (From|To), title, ref, type and apiId of every
    // {entity}Link and int(TotalResults). `type` is the type of the entity in `ref`: the client's
    // delete_relationships wrongly fetches *this* entity with that type (folder(asset ref) → 404), so
    // it only works between entities of the same type; a client bug, not the service's.
    const listed = await xmlReply(await manager(`${E}/information-objects/${from}/links?start=0&max=25`));
    const links = etFindAll(listed, EN, "Link").map((l) => l.attrs);
    expect(links).toEqual([
      expect.objectContaining({
        linkType: "http://purl.org/dc/terms/isVersionOf",
        linkDirection: "From",
        title: "Edition 1",
        ref: to,
        type: "IO",
      }),
      expect.objectContaining({
        linkType: "http://purl.org/dc/terms/isPartOf",
        linkDirection: "From",
        ref: f.folder,
        type: "SO",
      }),
    ]);
    expect(etText(listed, EN, "Paging", "TotalResults")).toBe("2");
    const incoming = await xmlReply(await manager(`${E}/information-objects/${to}/links?start=0&max=25`));
    expect(etFindAll(incoming, EN, "Link").map((l) => [l.attrs.linkDirection, l.attrs.ref])).toEqual([
      ["To", from],
    ]);

    // __delete_relationship: DELETE {this entity}/links/{apiId}, 204 only.
    const apiId = links[0]?.apiId as string;
    const del = await manager(`${E}/information-objects/${from}/links/${apiId}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    const left = await xmlReply(await manager(`${E}/information-objects/${from}/links?start=0&max=25`));
    expect(etFindAll(left, EN, "Link").map((l) => l.attrs.ref)).toEqual([f.folder]);
  });
});

// --- previews --------------------------------------------------------------------------------------------

describe("thumbnails", () => {
  it("add_thumbnail 204, has_thumbnail/thumbnail 200 with the image, remove_thumbnail 204, then 404 (no thumbnail)", async () => {
    // add_thumbnail and remove_thumbnail accept exactly 204; has_thumbnail is True on 200 and False on
    // 404 (anything else raises); thumbnail() writes the bytes of a 200 to the file, None on 404.
    const image = pngFile(4, 4, () => [200, 30, 30]);
    for (const [path, type, ref] of [
      ["information-objects", "IO", f.other],
      ["structural-objects", "SO", f.folder],
    ] as const) {
      const put = await manager(`${E}/${path}/${ref}/preview`, {
        method: "PUT",
        headers: { "Content-Type": "application/octet-stream" },
        body: image,
      });
      expect(put.status, await put.text()).toBe(204);
      for (const size of ["small", "medium", "large"]) {
        const got = await manager(`/api/content/thumbnail?id=sdb%3A${type}%7C${ref}&size=${size}`, {
          headers: { "Content-Type": "application/octet-stream" },
        });
        expect(got.status, `${type} ${size}`).toBe(200);
        expect(Buffer.from(await got.arrayBuffer()).equals(image)).toBe(true);
      }
      const del = await manager(`${E}/${path}/${ref}/preview`, { method: "DELETE" });
      expect(del.status).toBe(204);
      const gone = await manager(`/api/content/thumbnail?id=sdb%3A${type}%7C${ref}&size=small`);
      expect(gone.status).toBe(404);
    }
  });
});

// --- content ---------------------------------------------------------------------------------------------

/** What generations() + generation() read: per generation, active and the bitstream fixities. */
async function generationsOf(co: string) {
  const list = await xmlReply(await manager(`${E}/content-objects/${co}/generations`));
  const out: { url: string; active: string | undefined; fixity: Record<string, string> }[] = [];
  for (const g of etFindAll(list, EN, "Generation")) {
    const gen = await xmlReply(await manager(new URL(g.text).pathname));
    const bsUrl = etText(gen, EN, "Bitstreams", "Bitstream") as string;
    const bs = await xmlReply(await manager(new URL(bsUrl).pathname));
    const fixity: Record<string, string> = {};
    for (const fx of etFindAll(bs, X, "Fixity")) {
      // The client indexes the children: [0] is the algorithm, [1] the value.
      fixity[fx.children[0]?.text as string] = fx.children[1]?.text as string;
    }
    out.push({ url: g.text, active: etFind(gen, X, "Generation")?.attrs.active, fixity });
  }
  return out;
}

describe("replace_generation_sync and add_access_representation", () => {
  it("replace_generation_sync without an algorithm: the last generation's last fixity becomes the header; 200 + progress id", async () => {
    // With no algorithm given, the client takes generations(co).pop() (the LAST listed) and the last
    // algorithm of its bitstream's fixities, maps names containing MD5/SHA1/SHA256/SHA512 to a
    // Fixity-* header, and needs 200 (not 202) with the progress id as the body. The newest
    // generation must therefore be listed last, with algorithm names the client recognises.
    const first = await generationsOf(f.co);
    expect(first).toHaveLength(1);
    const algorithms = Object.keys(first[0]?.fixity ?? {});
    expect(algorithms.at(-1)).toBe("SHA512");
    for (const alg of algorithms) expect(alg).toMatch(/MD5|SHA1|SHA256|SHA512/);

    const replacement = Buffer.from("Minute book, second scan.\n".repeat(10), "utf8");
    const replace = (bytes: Buffer, header: Record<string, string>) =>
      manager(`${E}/content-objects/${f.co}/generations?replaceType=previous`, {
        method: "POST",
        headers: {
          "Content-Type": "application/octet-stream",
          ...header,
          Filename: "minutes-v2.txt",
          "Content-Length": String(bytes.length),
        },
        body: bytes,
      });
    const id = await progressId(
      await replace(replacement, { "Fixity-SHA-512": sha("sha512", replacement) }),
      200,
    );
    // replace_generation_sync polls without sleeping until the status is not ACTIVE and returns it.
    await repo.svc.actions.idle();
    expect(await progress(id)).toBe("COMPLETED");
    const after = await generationsOf(f.co);
    expect(after.map((g) => g.active)).toEqual(["false", "true"]);
    expect(after.at(-1)?.fixity.MD5).toBe(sha("md5", replacement));

    // A second replacement picks the new generation (last listed) for its checksum: MD5 here.
    const third = Buffer.from("third scan\n", "utf8");
    const id2 = await progressId(await replace(third, { "Fixity-MD5": sha("md5", third) }), 200);
    await repo.svc.actions.idle();
    expect(await progress(id2)).toBe("COMPLETED");
    expect((await generationsOf(f.co)).map((g) => g.active)).toEqual(["false", "false", "true"]);
  });

  it("replace_generation_async with a checksum that does not match: 400 with the reason, nothing stored", async () => {
    // The client raises HTTPException with the body's message on anything but 200.
    const bytes = Buffer.from("not what the checksum says\n", "utf8");
    const before = storeHash(repo.svc.db);
    const res = await manager(`${E}/content-objects/${f.co}/generations?replaceType=previous`, {
      method: "POST",
      headers: {
        "Content-Type": "application/octet-stream",
        "Fixity-SHA-1": "0".repeat(40),
        Filename: "bad.txt",
        "Content-Length": String(bytes.length),
      },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect((await jsonError(res)).message).toMatch(/does not match its Fixity-SHA-1 header/);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("add_access_representation: ?type=Access&name=…&filename=… (spaces as +) gives 202 + id, then the named Access representation", async () => {
    const bytes = Buffer.from("access copy\n", "utf8");
    const res = await manager(
      `${E}/information-objects/${f.other}/representations?type=Access&name=Reading+Room+copy&filename=access+copy.txt`,
      {
        method: "POST",
        headers: { "Content-Type": "application/octet-stream", "Content-Length": String(bytes.length) },
        body: bytes,
      },
    );
    const id = await progressId(res);
    await repo.svc.actions.idle();
    expect(await progress(id)).toBe("COMPLETED");
    // representations() reads the type and name attributes and the URL text of each Representation.
    const reps = await xmlReply(await manager(`${E}/information-objects/${f.other}/representations`));
    const access = etFindAll(reps, EN, "Representation").find((r) => r.attrs.type === "Access");
    expect(access?.attrs.name).toBe("Reading Room copy");
    const download = await manager(`/api/content/download?id=sdb%3AIO%7C${f.other}`);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });
});

// --- deletion ----------------------------------------------------------------------------------------------

describe("delete_asset and delete_folder", () => {
  const submission = (comment: string) =>
    `<DeletionAction xmlns:xip="${X}" xmlns="${EN}"><Submission><Comment>${comment}</Comment></Submission></DeletionAction>`;

  it("submits, reaches PENDING, is approved with the manager's <DeletionAction  …> (202), and the entity is gone", async () => {
    // _delete_entity polls progress until COMPLETED or PENDING (any other status: sleep 2 s, forever),
    // approves on PENDING and returns as soon as the approval answers 202.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Doomed",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const id = await progressId(
      await send(manager, "DELETE", `${E}/information-objects/${a}`, submission("operator says")),
    );
    await repo.svc.actions.idle();
    expect(await progress(id)).toBe("PENDING");
    const approval = `<DeletionAction  xmlns:xip="${X}" xmlns="${EN}"><Approval><Approved>true</Approved><Comment>supervisor says</Comment></Approval></DeletionAction >`;
    const approved = await send(manager, "PUT", `${E}/actions/deletions/${id}`, approval);
    expect(approved.status, await approved.text()).toBe(202);
    await repo.svc.actions.idle();
    expect((await manager(`${E}/information-objects/${a}`)).status).toBe(404);
  });

  it("answers 403 to a user without the Delete permission, which the client reports as missing deletion rights", async () => {
    // 403 and 422 are the statuses the client explains; 401 would make it log in again and retry.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Kept",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const before = storeHash(repo.svc.db);
    const res = await send(curator, "DELETE", `${E}/information-objects/${a}`, submission("op"));
    expect(res.status).toBe(403);
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});

// --- events ------------------------------------------------------------------------------------------------

describe("updated_entities and entity_events after writes", () => {
  it("updated_entities: a date with microseconds and +00:00, requests-encoded, lists the written entity with type, ref and title", async () => {
    // The client sends (utcnow() - n days).replace(tzinfo=utc).isoformat() and int()s TotalResults.
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Touched",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const d = new Date(repo.svc.now() - 60_000).toISOString().replace("Z", "");
    const since = `${d}123+00:00`;
    const body = `<Identifier xmlns="${X}"><Type>code</Type><Value>T-1</Value><Entity>${a}</Entity></Identifier>`;
    await send(manager, "POST", `${E}/information-objects/${a}/identifiers`, body);
    const q = new URLSearchParams({ date: since, start: "0", max: "25" }).toString();
    expect(q).toContain("%2B00%3A00");
    const reply = await xmlReply(await manager(`${E}/entities/updated-since?${q}`));
    const entities = etFindAll(reply, EN, "Entity").map((e) => e.attrs);
    expect(entities).toContainEqual(expect.objectContaining({ type: "IO", ref: a, title: "Touched" }));
    expect(Number(etText(reply, EN, "TotalResults"))).toBeGreaterThanOrEqual(1);
  });

  it("entity_events: each xip:EventAction has commandType and an xip:Event with type, Date, User and Ref", async () => {
    // The client reads commandType from the EventAction and Date, User, Ref from its Event. (It looks
    // for `type` on the EventAction instead of the Event, so its eventType key is never set: a client
    // bug; the event type is on the Event, where the Entity API puts it.)
    const a = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Evented",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    await send(
      manager,
      "POST",
      `${E}/information-objects/${a}/identifiers`,
      `<Identifier xmlns="${X}"><Type>code</Type><Value>E-1</Value><Entity>${a}</Entity></Identifier>`,
    );
    const reply = await xmlReply(await manager(`${E}/information-objects/${a}/event-actions?start=0&max=25`));
    const actions = etFindAll(reply, X, "EventAction");
    expect(actions.length).toBeGreaterThanOrEqual(1);
    const last = actions.at(-1) as XmlNode;
    expect(last.attrs.commandType).toMatch(/\S/);
    const event = etFind(last, X, "Event") as XmlNode;
    expect(event.attrs.type).toMatch(/\S/);
    expect(etText(event, X, "User")).toBe("manager");
    expect(etText(event, X, "Date")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(etText(event, X, "Ref")).toMatch(/^[0-9a-f-]{36}$/);
    expect(etText(reply, EN, "TotalResults")).toMatch(/^\d+$/);
  });
});

// --- retention ---------------------------------------------------------------------------------------------

/** create_policy's body: every field, in its order, None as an empty element, Assignable as True/False. */
function policyBody(fields: Record<string, string | null>, ref?: string): string {
  const order = [
    "Name",
    "Description",
    "SecurityTag",
    "StartDateField",
    "Period",
    "PeriodUnit",
    "ExpiryAction",
    "ExpiryActionParameters",
    "Restriction",
    "Assignable",
  ];
  const refEl = ref ? `<Ref>${ref}</Ref>` : "";
  return `<RetentionPolicy  xmlns="${RM}">${refEl}${order.map((k) => leaf(k, fields[k] ?? null)).join("")}</RetentionPolicy >`;
}

/** What RetentionAPI.policy() reads (it calls .text on Ref, Name, Description, SecurityTag unconditionally). */
function policyFields(root: XmlNode) {
  const t = (name: string) => {
    const n = etFind(root, RM, "RetentionPolicy", name);
    return n === undefined ? undefined : n.text === "" ? null : n.text;
  };
  return {
    ref: t("Ref"),
    name: t("Name"),
    description: t("Description"),
    securityTag: t("SecurityTag"),
    period: t("Period"),
    periodUnit: t("PeriodUnit"),
    startDateField: t("StartDateField"),
    assignable: t("Assignable"),
  };
}

describe("RetentionAPI writes", () => {
  it("create_policy and update_policy: <RetentionPolicy  …>, Python's True, None fields as empty elements", async () => {
    // create_policy reads the ref from the reply's nested {rm}RetentionPolicy/{rm}Ref, then policy(ref)
    // asserts the Ref equals the one asked for and calls .text on Description and SecurityTag: they
    // must be present even when the policy has no description.
    const created = await xmlReply(
      await send(
        manager,
        "POST",
        `${E}/retention-policies`,
        policyBody({
          Name: "Seven years",
          Description: "Financial records",
          SecurityTag: "open",
          StartDateField: "xip.created",
          Period: "7",
          PeriodUnit: "YEAR",
          ExpiryAction: "Delete",
          Restriction: "Delete",
          Assignable: "True",
        }),
      ),
    );
    const ref = etText(etFind(created, RM, "RetentionPolicy") as XmlNode, RM, "Ref") as string;
    expect(ref).toMatch(/^[0-9a-f-]{36}$/);
    const one = policyFields(await xmlReply(await manager(`${E}/retention-policies/${ref}`)));
    expect(one).toMatchObject({
      ref,
      name: "Seven years",
      securityTag: "open",
      period: "7",
      // Read back as sent (YEAR), so a client comparing what it wrote finds it.
      periodUnit: "YEAR",
      assignable: "true",
    });

    const sparse = await xmlReply(
      await send(
        manager,
        "POST",
        `${E}/retention-policies`,
        policyBody({ Name: "Sparse", Description: "", SecurityTag: "open", Assignable: "False" }),
      ),
    );
    const sparseRef = etText(etFind(sparse, RM, "RetentionPolicy") as XmlNode, RM, "Ref") as string;
    const sparseRead = policyFields(await xmlReply(await manager(`${E}/retention-policies/${sparseRef}`)));
    expect(sparseRead.description).not.toBeUndefined();
    expect(sparseRead).toMatchObject({ securityTag: "open", assignable: "false" });

    // update_policy sends the same document with the Ref first, needs 200, then re-reads the policy.
    const upd = await send(
      manager,
      "PUT",
      `${E}/retention-policies/${ref}`,
      policyBody(
        {
          Name: "Seven years",
          Description: "Updated",
          SecurityTag: "open",
          StartDateField: "xip.created",
          Period: "10",
          PeriodUnit: "YEARS",
          ExpiryAction: "Delete",
          Restriction: "Delete",
          Assignable: "True",
        },
        ref,
      ),
    );
    expect(upd.status, await upd.text()).toBe(200);
    expect(policyFields(await xmlReply(await manager(`${E}/retention-policies/${ref}`)))).toMatchObject({
      description: "Updated",
      period: "10",
    });
  });

  it("assignable_policy, add_assignments, assignments, remove_assignments, delete_policy", async () => {
    const created = await xmlReply(
      await send(
        manager,
        "POST",
        `${E}/retention-policies`,
        policyBody({
          Name: "Short",
          Description: "d",
          SecurityTag: "open",
          Period: "1",
          PeriodUnit: "DAYS",
          Assignable: "False",
        }),
      ),
    );
    const ref = etText(created, RM, "Ref") as string;
    // assignable_policy sends str(bool) as text/plain;charset=UTF-8 and needs 200.
    const assignable = await manager(`${E}/retention-policies/${ref}/assignable`, {
      method: "PUT",
      headers: { "Content-Type": "text/plain;charset=UTF-8" },
      body: "True",
    });
    expect(assignable.status).toBe(200);

    // add_assignments takes the FIRST descendant {rm}RetentionPolicy's text as the policy ref (and
    // asserts it), so the reply must not nest a whole policy before it; also {rm}Entity and {rm}ApiId.
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Kept",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const added = await xmlReply(
      await send(
        manager,
        "POST",
        `${E}/information-objects/${asset}/retention-assignments`,
        `<RetentionAssignment xmlns="${RM}"><RetentionPolicy>${ref}</RetentionPolicy></RetentionAssignment>`,
      ),
    );
    expect(etText(added, RM, "RetentionPolicy")).toBe(ref);
    expect(etText(added, RM, "Entity")).toBe(asset);
    const apiId = etText(added, RM, "ApiId") as string;
    expect(apiId).toMatch(/\S/);

    // assignments() reads Entity (asserted), RetentionPolicy, StartDate?, Expired == 'true', ApiId.
    const list = await xmlReply(await manager(`${E}/information-objects/${asset}/retention-assignments`));
    const items = etFindAll(list, RM, "RetentionAssignment").map((n) => ({
      entity: etText(n, RM, "Entity"),
      policy: etText(n, RM, "RetentionPolicy"),
      expired: etText(n, RM, "Expired"),
      apiId: etText(n, RM, "ApiId"),
    }));
    expect(items).toEqual([{ entity: asset, policy: ref, expired: "false", apiId }]);

    // remove_assignments and delete_policy accept exactly 204.
    const removed = await manager(`${E}/information-objects/${asset}/retention-assignments/${apiId}`, {
      method: "DELETE",
    });
    expect(removed.status).toBe(204);
    const deleted = await manager(`${E}/retention-policies/${ref}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await manager(`${E}/retention-policies/${ref}`)).status).toBe(404);
  });
});

// --- metadata groups and CSV edits -------------------------------------------------------------------------

describe("MetadataGroupsAPI writes and add_group_metadata", () => {
  const J = { "Content-Type": "application/json;charset=UTF-8" };
  const field = (id: string, name: string, type: string, extra: Record<string, string> = {}) => ({
    id,
    name,
    type,
    minOccurs: "0",
    maxOccurs: "1",
    visible: "True",
    editable: "True",
    defaultValue: "",
    indexed: "True",
    ...extra,
  });

  it("add_group with Python-stringified numbers and booleans → 201; group() reads JSON booleans and numbers back", async () => {
    // _json_from_object_ sends str() of every number and bool ("0", "True", "False"); add_group_json
    // needs 201. _object_from_json_ does bool(field['visible']): a "False" string would read as True,
    // so the reply must carry real JSON booleans; int() works on numbers.
    const doc = {
      name: "h7_accession",
      description: "Accessions",
      fields: [
        field("accession_number", "Accession Number", "STRING"),
        field("boxes", "Boxes", "NUMBER", {
          minOccurs: "1",
          visible: "False",
          editable: "False",
          indexed: "False",
        }),
        field("notes", "Notes", "LONGSTRING", { maxOccurs: "-1" }),
      ],
    };
    const res = await manager("/api/metadata/groups/", {
      method: "POST",
      headers: J,
      body: JSON.stringify(doc),
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; schemaUri: string };
    expect(created.schemaUri).toBe("http://www.preservica.com/metadata/group/h7_accession");
    const got = (await (await manager(`/api/metadata/groups/${created.id}`, { headers: J })).json()) as {
      fields: Record<string, unknown>[];
    };
    const boxes = got.fields.find((x) => x.id === "boxes");
    expect(boxes).toMatchObject({
      type: "NUMBER",
      visible: false,
      editable: false,
      indexed: false,
      minOccurs: 1,
    });
    expect(got.fields.find((x) => x.id === "notes")).toMatchObject({
      type: "LONGSTRING",
      maxOccurs: -1,
      visible: true,
    });

    // add_fields PUTs the whole group with the new fields appended and needs 201 (sic).
    const put = await manager(`/api/metadata/groups/${created.id}`, {
      method: "PUT",
      headers: J,
      body: JSON.stringify({ ...doc, fields: [...doc.fields, field("received", "Received", "DATE")] }),
    });
    expect(put.status).toBe(201);
    expect(((await put.json()) as { fields: unknown[] }).fields).toHaveLength(4);
  });

  it("add_group_metadata: the CSV as text/csv;charset=UTF-8 gives 202 + id; get_progress reaches COMPLETED and each asset has the group's document", async () => {
    const doc = {
      name: "h7_csv",
      description: "CSV",
      fields: [field("code", "Code", "STRING"), field("count", "Count", "NUMBER")],
    };
    const created = (await (
      await manager("/api/metadata/groups/", { method: "POST", headers: J, body: JSON.stringify(doc) })
    ).json()) as { schemaUri: string };
    const su = created.schemaUri;
    const a1 = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Row 1",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    const a2 = insertEntity(repo.svc.db, {
      type: "IO",
      title: "Row 2",
      securityTag: "open",
      parentRef: f.folder,
    }).ref;
    // The layout the client's documentation gives: template header, a row of labels, one row per asset.
    const csv =
      `"PRESERVICA_CSV_TEMPLATE","PRESERVICA_ENTITY_REF","${su};/ns:h7_csv/ns:code","${su};/ns:h7_csv/ns:count"\n` +
      `"file or folder name","entity ref","Code","Count"\n` +
      `"a.png","${a1}","ACC-1","3"\n` +
      `"b.png","${a2}","ACC-2, with comma","5"\n`;
    const id = await progressId(
      await manager(`${E}/actions/metadata-csv-edits`, {
        method: "POST",
        headers: { "Content-Type": "text/csv;charset=UTF-8" },
        body: Buffer.from(csv, "utf8"),
      }),
    );
    await repo.svc.actions.idle();
    expect(await progress(id)).toBe("COMPLETED");
    for (const [ref, code, count] of [
      [a1, "ACC-1", "3"],
      [a2, "ACC-2, with comma", "5"],
    ] as const) {
      const [stored] = await documentsOf("information-objects", ref, su);
      expect(stored?.doc).toMatchObject({ ns: su, name: "h7_csv" });
      expect(stored?.doc.children.map((c) => [c.name, c.text])).toEqual([
        ["code", code],
        ["count", count],
      ]);
    }
  });

  it("download_template: forms() lists {id, title}; csv-templates/download?ids=<form id> gives the group's columns", async () => {
    const created = (await (
      await manager("/api/metadata/groups/", {
        method: "POST",
        headers: J,
        body: JSON.stringify({
          name: "h7_tmpl",
          description: "T",
          fields: [field("ref_no", "Ref No", "STRING")],
        }),
      })
    ).json()) as { schemaUri: string };
    const formRes = await manager("/api/metadata/forms/", {
      method: "POST",
      headers: J,
      body: JSON.stringify({
        title: "H7 template form",
        description: "d",
        schemaUri: created.schemaUri,
        fields: [{ id: "ref_no", label: "Ref" }],
      }),
    });
    expect(formRes.status).toBe(201);
    const forms = (
      (await (await manager("/api/metadata/forms", { headers: J })).json()) as {
        metadataForms: { id: string; title: string }[];
      }
    ).metadataForms;
    const form = forms.find((x) => x.title === "H7 template form");
    expect(form?.id).toBeDefined();
    const tmpl = await manager(`/api/metadata/csv-templates/download?ids=${form?.id}`);
    expect(tmpl.status).toBe(200);
    expect((await tmpl.text()).split("\n")[0]).toBe(
      `"PRESERVICA_CSV_TEMPLATE","PRESERVICA_ENTITY_REF","${created.schemaUri};/ns:h7_tmpl/ns:ref_no"`,
    );
  });
});

// --- token expiry during writes ------------------------------------------------------------------------------

describe("writes with an expired token", () => {
  let clocked: RunningRepository;
  let now = Date.now();
  beforeAll(async () => {
    // A controllable clock: the token expires by moving time, not by sleeping.
    clocked = await startTestRepository({ now: () => now, tokenTtlMs: 3000 });
  });
  afterAll(async () => {
    await clocked?.close();
  });

  it("answers 401 (never 403) before storing anything, so the client logs in again and repeats the request", async () => {
    // Every write of the client re-logs in on 401 and sends the same request again (streamed bodies
    // are re-opened from the file); a 403 would be reported as a refusal instead.
    const db = clocked.svc.db;
    const asset = insertEntity(db, { type: "IO", title: "Expiring", securityTag: "open" }).ref;
    const stale = authed(clocked.url, (await login(clocked.url, "manager")).token);
    now += 5000;
    const image = pngFile(2, 2, () => [0, 0, 0]);
    const metadata = `<xip:MetadataContainer schemaUri="urn:example:t" xmlns:xip="${X}"><xip:Entity>${asset}</xip:Entity><xip:Content><ns0:t xmlns:ns0="urn:example:t" /></xip:Content></xip:MetadataContainer>`;
    const requests: [string, string, RequestInit["body"], Record<string, string>][] = [
      [
        "PUT",
        `${E}/information-objects/${asset}/preview`,
        image,
        { "Content-Type": "application/octet-stream" },
      ],
      ["POST", `${E}/information-objects/${asset}/metadata`, metadata, XML_TYPE],
      [
        "PUT",
        `${E}/information-objects/${asset}/security-descriptor?includeDescendants=false`,
        "closed",
        { "Content-Type": "text/plain" },
      ],
    ];
    const before = storeHash(db);
    for (const [method, path, body, headers] of requests) {
      const res = await stale(path, { method, body, headers });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    expect(storeHash(db)).toBe(before);

    const fresh = authed(clocked.url, (await login(clocked.url, "manager")).token);
    const statuses = [];
    for (const [method, path, body, headers] of requests) {
      statuses.push((await fresh(path, { method, body, headers })).status);
    }
    expect(statuses).toEqual([204, 200, 202]);
  });
});
