import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileOf } from "../../../repository/search/files.js";
import type { RunningRepository } from "../../../repository/server.js";
import { grant, Permission, Role } from "../../../repository/store/auth.js";
import { updateEntityFields } from "../../../repository/store/entities/write.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { arr, type Node, parseXml } from "../entity-xml.js";
import { storeHash } from "../writes/store-hash.js";
import { props } from "./entry-properties.js";

/**
 * The CMIS 1.1 AtomPub endpoint over HTTP: authentication (token or Basic), the service document,
 * types, objects, paged children, parents, allowable actions, content streams and their permissions,
 * and the refusal of every write (405, store unchanged).
 */

const BASE = "/api/cmis/atom";
const R = `${BASE}/preservica`;
let repo: RunningRepository;
let manager: string;
let reader: string;

const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString("base64")}`;

async function get(path: string, token = reader, init: RequestInit = {}) {
  return fetch(`${repo.url}${path}`, {
    ...init,
    headers: { "Preservica-Access-Token": token, ...(init.headers as Record<string, string>) },
  });
}

async function xml(path: string, token = reader): Promise<Node> {
  const res = await get(path, token);
  const body = await res.text();
  expect(res.status, `${path}: ${body}`).toBe(200);
  expect(res.headers.get("content-type")).toMatch(
    /^application\/(atom\+xml|atomsvc\+xml|cmisallowableactions\+xml)/,
  );
  expect(XMLValidator.validate(body)).toBe(true);
  return parseXml(body).root;
}

const id = (type: string, ref: string) => `sdb:${type}|${ref}`;
const q = (v: string) => encodeURIComponent(v);

function link(node: Node, rel: string): string | undefined {
  return arr(node.link).find((l: Node) => l["@rel"] === rel)?.["@href"];
}

function row(where: string): { ref: string; title: string; parent_ref: string | null; security_tag: string } {
  return repo.svc.db
    .prepare(`SELECT * FROM entities WHERE deleted = 0 AND ${where} ORDER BY id LIMIT 1`)
    .get() as {
    ref: string;
    title: string;
    parent_ref: string | null;
    security_tag: string;
  };
}

describe("CMIS 1.1 AtomPub at /api/cmis/atom", () => {
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    manager = (await login(repo.url, "manager")).token;
    reader = (await login(repo.url, "reader")).token;
  });
  afterAll(async () => {
    await repo?.close();
  });

  it("needs authentication: 401 with a Basic challenge, then a token or Basic works", async () => {
    const none = await fetch(`${repo.url}${BASE}`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Basic realm="CMIS"/);
    const wrong = await fetch(`${repo.url}${BASE}`, { headers: { Authorization: basic("reader", "nope") } });
    expect(wrong.status).toBe(401);
    const twoStep = await fetch(`${repo.url}${BASE}`, {
      headers: { Authorization: basic("twofactor", "twofactor-demo-pw") },
    });
    expect(twoStep.status).toBe(401);
    expect(((await twoStep.json()) as { message: string }).message).toMatch(/second step/);
    const ok = await fetch(`${repo.url}${BASE}`, {
      headers: { Authorization: basic("reader", "reader-demo-pw") },
    });
    expect(ok.status).toBe(200);
    expect((await get(BASE)).status).toBe(200);
  });

  it("serves the service document: repository info, collections and URI templates", async () => {
    const svc = await xml(BASE);
    const ws = svc.workspace;
    const info = ws.repositoryInfo;
    expect(info.repositoryId).toBe("preservica");
    expect(info.rootFolderId).toBe("root");
    expect(info.cmisVersionSupported).toBe("1.1");
    // Queries (query.test.ts): full text and property/folder predicates in one statement.
    expect(info.capabilities.capabilityQuery).toBe("bothcombined");
    expect(info.capabilities.capabilityContentStreamUpdatability).toBe("none");
    expect(info.capabilities.capabilityACL).toBe("none");
    const collections = Object.fromEntries(
      arr(ws.collection).map((c: Node) => [c.collectionType, c["@href"]]),
    );
    expect(Object.keys(collections).sort()).toEqual(["query", "root", "types"]);
    expect(collections.root).toBe(`${repo.url}${R}/children?id=root`);
    expect(collections.query).toBe(`${repo.url}${R}/query`);
    expect(arr(ws.collection).find((c: Node) => c.collectionType === "query").accept).toBe(
      "application/cmisquery+xml",
    );
    const templates = Object.fromEntries(arr(ws.uritemplate).map((t: Node) => [t.type, t.template]));
    expect(templates.objectbyid).toMatch(/\/id\?id=\{id\}/);
    expect(templates.typebyid).toBe(`${repo.url}${R}/type?id={id}`);
    expect(templates.query).toMatch(/\/query\?q=\{q\}&searchAllVersions=\{searchAllVersions\}/);
    expect((await get(`${BASE}?repositoryId=other`)).status).toBe(404);
    expect((await get(`${BASE}/other/id?id=root`)).status).toBe(404);
  });

  it("defines cmis:folder and cmis:document, read-only, with the Content API's property names", async () => {
    const feed = await xml(`${R}/types`);
    expect(arr(feed.entry).map((e: Node) => e.type.id)).toEqual(["cmis:document", "cmis:folder"]);
    const doc = (await xml(`${R}/type?id=cmis:document`)).type;
    expect(doc.creatable).toBe("false");
    expect(doc.contentStreamAllowed).toBe("allowed");
    const defs = arr(doc.propertyStringDefinition)
      .concat(arr(doc.propertyIdDefinition), arr(doc.propertyBooleanDefinition))
      .map((d: Node) => d.id);
    for (const name of ["cmis:name", "cmis:description", "sdbcmis:parentId", "sdbcmis:securityDescriptor"]) {
      expect(defs).toContain(name);
    }
    const updatability = new Set(
      Object.entries(doc)
        .filter(([k]) => k.endsWith("Definition"))
        .flatMap(([, v]) => arr(v).map((d: Node) => d.updatability)),
    );
    expect([...updatability]).toEqual(["readonly"]);
    expect(arr((await xml(`${R}/types?typeId=cmis:folder`)).entry)).toEqual([]);
    expect((await get(`${R}/type?id=cmis:policy`)).status).toBe(404);
  });

  it("shows an object as the object details show it, with links and allowable actions", async () => {
    const asset = row("type = 'IO' AND security_tag = 'open'");
    const oid = id("IO", asset.ref);
    const entry = await xml(`${R}/id?id=${q(oid)}&includeAllowableActions=true`);
    const p = props(entry);
    const details = (
      (await (await get(`/api/content/object-details?id=${q(oid)}`)).json()) as { value: Node }
    ).value;
    for (const { name, value } of details.properties as { name: string; value: string }[]) {
      if (/Date$/.test(name)) expect(Date.parse(p[name] as string) / 1000).toBe(Number(value));
      else expect(p[name], name).toBe(value);
    }
    expect(p["cmis:baseTypeId"]).toBe("cmis:document");
    expect(entry.title["#text"] ?? entry.title).toBe(details.name);
    const file = fileOf(repo.svc.db, { ref: asset.ref, type: "IO" });
    expect(entry.content["@src"]).toBe(`${repo.url}${R}/content?id=${q(oid)}`);
    expect(entry.content["@type"]).toBe(file?.mimeType);
    expect(link(entry, "up")).toBe(`${repo.url}${R}/parents?id=${q(oid)}`);
    const actions = entry.object.allowableActions;
    expect(actions.canGetContentStream).toBe("true");
    for (const a of [
      "canDeleteObject",
      "canUpdateProperties",
      "canSetContentStream",
      "canMoveObject",
      "canCreateDocument",
    ]) {
      expect(actions[a], a).toBe("false");
    }
    // Asked for separately, the same actions.
    expect(await xml(`${R}/allowableactions?id=${q(oid)}`)).toEqual(actions);
    // Without includeAllowableActions, none inline.
    expect((await xml(`${R}/id?id=${q(oid)}`)).object.allowableActions).toBeUndefined();
  });

  it("lists children in pages that add up to what the user may read", async () => {
    const folder = row(
      "type = 'SO' AND security_tag = 'open' AND (SELECT count(*) FROM entities c WHERE c.parent_ref = entities.ref) >= 3",
    );
    const expected = (
      repo.svc.db
        .prepare(
          "SELECT type, ref FROM entities WHERE parent_ref = ? AND type IN ('SO','IO') AND deleted = 0 AND security_tag = 'open' ORDER BY id",
        )
        .all(folder.ref) as { type: string; ref: string }[]
    ).map((r) => id(r.type, r.ref));
    let next: string | undefined = `${repo.url}${R}/children?id=${q(id("SO", folder.ref))}&maxItems=2`;
    const seen: string[] = [];
    let pages = 0;
    while (next) {
      const feed = await xml(next.slice(repo.url.length));
      expect(Number(feed.numItems)).toBe(expected.length);
      expect(arr(feed.entry).length).toBeLessThanOrEqual(2);
      seen.push(...arr(feed.entry).map((e: Node) => props(e)["cmis:objectId"] as string));
      next = link(feed, "next");
      pages++;
    }
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 2));
    // The root's children: the top level.
    const top = await xml(`${R}/children?id=root`);
    const topIds = arr(top.entry).map((e: Node) => props(e)["cmis:parentId"]);
    expect(topIds.every((p) => p === "root")).toBe(true);
    expect(Number(top.numItems)).toBe(
      (
        repo.svc.db
          .prepare(
            "SELECT count(*) AS n FROM entities WHERE parent_ref IS NULL AND type IN ('SO','IO') AND deleted = 0 AND security_tag = 'open'",
          )
          .get() as { n: number }
      ).n,
    );
    expect((await get(`${R}/children?id=${q(id("IO", row("type = 'IO'").ref))}`)).status).toBe(400);
    expect((await get(`${R}/children?id=root&maxItems=-1`)).status).toBe(400);
  });

  it("gives parents: a document's parents feed, a folder's up link, none for the root", async () => {
    const asset = row("type = 'IO' AND security_tag = 'open'");
    const feed = await xml(`${R}/parents?id=${q(id("IO", asset.ref))}`);
    expect(arr(feed.entry).map((e: Node) => props(e)["cmis:objectId"])).toEqual([
      id("SO", asset.parent_ref as string),
    ]);
    const folder = row("type = 'SO' AND security_tag = 'open' AND parent_ref IS NULL");
    const entry = await xml(`${R}/id?id=${q(id("SO", folder.ref))}`);
    expect(link(entry, "up")).toBe(`${repo.url}${R}/id?id=root`);
    expect(props(entry)["cmis:path"]).toBe(`/${folder.title}`);
    expect((await get(`${R}/parents?id=root`)).status).toBe(400);
  });

  it("streams content byte-exact, with ranges, and only with Download", async () => {
    const asset = row("type = 'IO' AND security_tag = 'open'");
    const file = fileOf(repo.svc.db, { ref: asset.ref, type: "IO" });
    const path = `${R}/content?id=${q(id("IO", asset.ref))}`;
    const res = await get(path);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    const expected = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      repo.svc.content
        .read(file?.sha256 as string)
        .on("data", (d: Buffer) => chunks.push(d))
        .on("end", () => resolve(Buffer.concat(chunks)))
        .on("error", reject);
    });
    expect(bytes.equals(expected)).toBe(true);
    const part = await get(path, reader, { headers: { Range: "bytes=2-5" } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(expected.subarray(2, 6))).toBe(true);
    // A folder has no content stream (CMIS constraint).
    expect((await get(`${R}/content?id=${q(id("SO", asset.parent_ref as string))}`)).status).toBe(409);
    // Readable but not downloadable: the reader may read staff metadata here, not download it.
    grant(repo.svc.db, Role.ACCESS, "staff", [Permission.READ_METADATA]);
    const staff = row("type = 'IO' AND security_tag = 'staff'");
    const entry = await xml(`${R}/id?id=${q(id("IO", staff.ref))}&includeAllowableActions=true`);
    expect(entry.object.allowableActions.canGetContentStream).toBe("false");
    expect(props(entry)["sdbcmis:downloadable"]).toBe("false");
    expect((await get(`${R}/content?id=${q(id("IO", staff.ref))}`)).status).toBe(403);
    repo.svc.db.prepare("DELETE FROM tag_permissions WHERE role = ? AND tag = 'staff'").run(Role.ACCESS);
  });

  it("answers 400, 403 and 404 for ids it cannot show", async () => {
    const closed = row("type = 'IO' AND security_tag = 'closed'");
    expect((await get(`${R}/id?id=${q(id("IO", closed.ref))}`)).status).toBe(403);
    expect((await get(`${R}/id?id=${q(id("IO", closed.ref))}`, manager)).status).toBe(200);
    expect((await get(`${R}/id?id=nonsense`)).status).toBe(400);
    expect((await get(`${R}/id`)).status).toBe(400);
    expect((await get(`${R}/id?id=${q(id("IO", "00000000-0000-4000-8000-000000000000"))}`)).status).toBe(404);
    const co = row("type = 'CO' AND security_tag = 'open'");
    const coRes = await get(`${R}/id?id=${q(id("CO", co.ref))}`);
    expect(coRes.status).toBe(404);
    expect(((await coRes.json()) as { message: string }).message).toMatch(/use its asset/);
    const folder = row("type = 'SO' AND security_tag = 'open'");
    expect((await get(`${R}/id?id=${q(id("IO", folder.ref))}`)).status).toBe(404);
    expect((await get(`${R}/id?id=root&includeAllowableActions=maybe`)).status).toBe(400);
  });

  it("escapes titles and descriptions", async () => {
    const asset = row("type = 'IO' AND security_tag = 'open'");
    const { description } = repo.svc.db
      .prepare("SELECT description FROM entities WHERE ref = ?")
      .get(asset.ref) as {
      description: string | null;
    };
    updateEntityFields(repo.svc.db, asset.ref, { title: `A & <b>"quoted"</b>`, description: "x]]>y\u0001z" });
    const res = await get(`${R}/id?id=${q(id("IO", asset.ref))}`);
    const body = await res.text();
    expect(XMLValidator.validate(body)).toBe(true);
    const p = props(parseXml(body).root);
    expect(p["cmis:name"]).toBe(`A & <b>"quoted"</b>`);
    expect(p["cmis:description"]).toBe("x]]>yz");
    updateEntityFields(repo.svc.db, asset.ref, { title: asset.title, description });
  });

  it("refuses create, update, delete and set-content with 405, changing nothing", async () => {
    const asset = row("type = 'IO' AND security_tag = 'open'");
    const oid = q(id("IO", asset.ref));
    const before = storeHash(repo.svc.db);
    const entry = `<atom:entry xmlns:atom="http://www.w3.org/2005/Atom"><atom:title>x</atom:title></atom:entry>`;
    for (const [method, path] of [
      ["POST", `${R}/children?id=root`],
      ["POST", `${R}/children?id=${q(id("SO", asset.parent_ref as string))}`],
      ["PUT", `${R}/id?id=${oid}`],
      ["DELETE", `${R}/id?id=${oid}`],
      ["PUT", `${R}/content?id=${oid}&overwriteFlag=true`],
      ["DELETE", `${R}/content?id=${oid}`],
      ["POST", BASE],
    ] as const) {
      const res = await get(path, manager, {
        method,
        body: method === "DELETE" ? undefined : entry,
        headers: { "Content-Type": "application/atom+xml;type=entry" },
      });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      expect(((await res.json()) as { message: string }).message).toMatch(/read-only/);
    }
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});
