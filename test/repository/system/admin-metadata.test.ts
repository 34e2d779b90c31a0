import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseXmlBody, type XmlNode } from "../../../repository/http/xml-body.js";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * The Admin API's schemas, documents and transforms over HTTP, read as pyPreservica's AdminAPI reads them
 * (`.//{ADMIN}Schema`, children by namespace).
 */

const ADMIN = "http://preservica.com/AdminAPI/v7.7";
const XML = { "Content-Type": "application/xml;charset=UTF-8" };
let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let curator: ReturnType<typeof authed>;

beforeAll(async () => {
  repo = await startTestRepository();
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
});
afterAll(async () => {
  await repo?.close();
});

function all(node: XmlNode, name: string): XmlNode[] {
  return node.children.flatMap((c) => [...(c.ns === ADMIN && c.name === name ? [c] : []), ...all(c, name)]);
}
function fields(node: XmlNode): Record<string, string> {
  return Object.fromEntries(node.children.filter((c) => c.ns === ADMIN).map((c) => [c.name, c.text]));
}
async function list(path: string, element: string): Promise<Record<string, string>[]> {
  const res = await manager(`/api/admin/${path}`);
  expect(res.status).toBe(200);
  return all(parseXmlBody(await res.text(), ""), element).map(fields);
}
function events(category: string) {
  return repo.svc.db
    .prepare("SELECT command_type AS commandType, subject FROM config_events WHERE category = ? ORDER BY id")
    .all(category) as { commandType: string; subject: string }[];
}

const XSD = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="https://example.org/ns/accession/v1"
  elementFormDefault="qualified"><xs:element name="accession" type="xs:string"/></xs:schema>`;
const DOC = '<acc:accession xmlns:acc="https://example.org/ns/accession/v1">template</acc:accession>';
const XSLT =
  '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"/></xsl:stylesheet>';

describe("schemas", () => {
  it("lists the built-in Dublin Core schema", async () => {
    expect(await list("schemas", "Schema")).toContainEqual(
      expect.objectContaining({
        SchemaUri: "http://www.openarchives.org/OAI/2.0/oai_dc/",
        Name: "Dublin Core",
      }),
    );
  });

  it("adds a schema whose URI is the XSD's targetNamespace, serves its content and deletes it", async () => {
    const res = await manager(
      "/api/admin/schemas?name=Accession&description=Accession%20records&originalName=acc.xsd",
      {
        method: "POST",
        headers: XML,
        body: XSD,
      },
    );
    expect(res.status).toBe(201);
    const added = (await list("schemas", "Schema")).find(
      (s) => s.SchemaUri === "https://example.org/ns/accession/v1",
    );
    expect(added).toMatchObject({ Name: "Accession", Description: "Accession records" });
    const content = await manager(`/api/admin/schemas/${added?.ApiId}/content`);
    expect(content.headers.get("content-type")).toMatch(/application\/xml/);
    expect(await content.text()).toBe(XSD);
    // The same URI again: 409, nothing stored.
    const before = storeHash(repo.svc.db);
    const again = await manager("/api/admin/schemas?name=Again", { method: "POST", headers: XML, body: XSD });
    expect(again.status).toBe(409);
    expect(storeHash(repo.svc.db)).toBe(before);
    expect((await manager(`/api/admin/schemas/${added?.ApiId}`, { method: "DELETE" })).status).toBe(204);
    expect((await list("schemas", "Schema")).map((s) => s.ApiId)).not.toContain(added?.ApiId);
    expect((await manager(`/api/admin/schemas/${added?.ApiId}/content`)).status).toBe(404);
    expect(events("METADATA").slice(-2)).toEqual([
      { commandType: "CREATE", subject: "Accession" },
      { commandType: "DELETE", subject: "Accession" },
    ]);
  });

  it("refuses unsafe or unusable XSDs with 400 and non-managers with 403, changing nothing", async () => {
    const before = storeHash(repo.svc.db);
    const bad: [string, string, RegExp][] = [
      [
        "name=X",
        XSD.replace(' targetNamespace="https://example.org/ns/accession/v1"', ""),
        /targetNamespace/,
      ],
      ["name=X", '<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]><s>&x;</s>', /DOCTYPE/],
      ["name=X", DOC, /not an XML schema/],
      ["name=X", "<xs:schema", /not well-formed/],
      ["description=no-name", XSD, /name is required/],
    ];
    for (const [query, body, message] of bad) {
      const res = await manager(`/api/admin/schemas?${query}`, { method: "POST", headers: XML, body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
    const refused = await curator("/api/admin/schemas?name=X", { method: "POST", headers: XML, body: XSD });
    expect(refused.status).toBe(403);
    expect((await curator("/api/admin/schemas")).status).toBe(403);
    expect((await fetch(`${repo.url}/api/admin/schemas`)).status).toBe(401);
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});

describe("documents and transforms", () => {
  it("adds a document (SchemaUri from its root's namespace), serves and deletes it", async () => {
    const res = await manager("/api/admin/documents?name=Accession%20template&type=MetadataTemplate", {
      method: "POST",
      headers: XML,
      body: DOC,
    });
    expect(res.status).toBe(201);
    const doc = (await list("documents", "Document")).find((d) => d.Name === "Accession template");
    expect(doc).toMatchObject({
      DocumentType: "MetadataTemplate",
      SchemaUri: "https://example.org/ns/accession/v1",
    });
    expect(await (await manager(`/api/admin/documents/${doc?.ApiId}/content`)).text()).toBe(DOC);
    const bad = await manager("/api/admin/documents?name=X&type=Nonsense", {
      method: "POST",
      headers: XML,
      body: DOC,
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/MetadataDropdownLists/);
    expect((await manager(`/api/admin/documents/${doc?.ApiId}`, { method: "DELETE" })).status).toBe(204);
    expect((await manager(`/api/admin/documents/${doc?.ApiId}`, { method: "DELETE" })).status).toBe(404);
  });

  it("adds a transform with its from/to URIs and purpose, serves and deletes it", async () => {
    const q =
      "name=Accession%20view&from=https://example.org/ns/accession/v1&to=http://www.w3.org/1999/xhtml&purpose=VIEW&originalName=view.xslt";
    expect(
      (await manager(`/api/admin/transforms?${q}`, { method: "POST", headers: XML, body: XSLT })).status,
    ).toBe(201);
    const t = (await list("transforms", "Transform")).find((x) => x.Name === "Accession view");
    expect(t).toMatchObject({
      FromSchemaUri: "https://example.org/ns/accession/v1",
      ToSchemaUri: "http://www.w3.org/1999/xhtml",
      Purpose: "view",
    });
    expect(await (await manager(`/api/admin/transforms/${t?.ApiId}/content`)).text()).toBe(XSLT);
    const notXslt = await manager(`/api/admin/transforms?${q}`, { method: "POST", headers: XML, body: DOC });
    expect(notXslt.status).toBe(400);
    expect((await manager(`/api/admin/transforms/${t?.ApiId}`, { method: "DELETE" })).status).toBe(204);
    expect((await list("transforms", "Transform")).map((x) => x.Name)).toEqual(["Dublin Core to CMIS"]);
  });
});
