import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { arr, type Node, parseXml } from "../entity-xml.js";
import { props } from "./entry-properties.js";

/**
 * CMIS queries over the AtomPub binding (the query URI template by GET, the query collection by POST) on
 * the demo collection: results are what the Content API's search gives the same user for the same
 * question (so security tags hold), folder scopes and name comparisons narrow them, the select list picks
 * the properties, and everything the repository does not support is refused as CMIS invalidArgument,
 * naming it. (No CMIS client on npm or Debian sends AtomPub queries: libcmis's cmis-client has no query
 * command, and npm's `cmis` speaks the browser binding only; the navigation side is driven by libcmis in
 * libcmis.test.ts.)
 */

const R = "/api/cmis/atom/preservica";
const CMIS_NS = "http://docs.oasis-open.org/ns/cmis/core/200908/";
let repo: RunningRepository;
let manager: string;
let reader: string;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  manager = (await login(repo.url, "manager")).token;
  reader = (await login(repo.url, "reader")).token;
  // The first text search reads the words of the demo files (PDFs in a worker): done here, once, so no
  // test's time holds it.
  expect((await get(`/api/content/search?q=${encodeURIComponent('{"q":"harbour"}')}`, manager)).status).toBe(
    200,
  );
}, 120_000);

afterAll(async () => {
  await repo?.close();
});

function get(path: string, token = reader): Promise<Response> {
  return fetch(`${repo.url}${path}`, { headers: { "Preservica-Access-Token": token } });
}

interface Results {
  ids: string[];
  numItems: number;
  entries: Node[];
  feed: Node;
}

function results(body: string): Results {
  expect(XMLValidator.validate(body)).toBe(true);
  const feed = parseXml(body).root;
  const entries = arr(feed.entry);
  return {
    ids: entries.map((e: Node) => props(e)["cmis:objectId"] as string),
    numItems: Number(feed.numItems),
    entries,
    feed,
  };
}

async function query(statement: string, token = reader, extra = ""): Promise<Results> {
  const res = await get(`${R}/query?q=${encodeURIComponent(statement)}&maxItems=1000${extra}`, token);
  const body = await res.text();
  expect(res.status, `${statement}: ${body}`).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/atom\+xml;type=feed/);
  return results(body);
}

async function refused(statement: string, token = reader): Promise<string> {
  const res = await get(`${R}/query?q=${encodeURIComponent(statement)}`, token);
  const body = (await res.json()) as { success: boolean; message: string };
  expect(res.status, `${statement}: ${body.message}`).toBe(400);
  expect(body.message).toMatch(/^CMIS invalidArgument: /);
  return body.message;
}

/** What the Content API's search answers the same user: ids of one document type for `text`. */
async function contentSearch(textQuery: string, type: "IO" | "SO", token = reader): Promise<string[]> {
  const q = JSON.stringify({ q: textQuery, fields: [{ name: "xip.document_type", values: [type] }] });
  const res = await get(`/api/content/search?q=${encodeURIComponent(q)}&max=1000`, token);
  const body = (await res.json()) as { value: { objectIds: string[] } };
  expect(res.status).toBe(200);
  return body.value.objectIds;
}

const sorted = (ids: string[]) => [...ids].sort();

function rows(
  sql: string,
  ...params: unknown[]
): { ref: string; type: string; title: string; parent_ref: string | null; security_tag: string }[] {
  return repo.svc.db.prepare(sql).all(...params) as ReturnType<typeof rows>;
}

describe("CMIS query by the URI template (GET …/query?q=)", () => {
  it("CONTAINS finds what the Content API's search finds for the same user, in the same order", async () => {
    for (const [who, token] of [
      ["reader", reader],
      ["manager", manager],
    ] as const) {
      const docs = await query("SELECT * FROM cmis:document WHERE CONTAINS('harbour')", token);
      const expected = await contentSearch("harbour", "IO", token);
      expect(expected.length, who).toBeGreaterThan(0);
      expect(docs.ids, who).toEqual(expected);
      expect(docs.numItems).toBe(expected.length);
      for (const e of docs.entries) expect(props(e)["cmis:baseTypeId"]).toBe("cmis:document");
      const folders = await query("SELECT * FROM cmis:folder WHERE CONTAINS('harbour')", token);
      expect(folders.ids, who).toEqual(await contentSearch("harbour", "SO", token));
    }
  });

  it("never shows what the user may not read: the reader sees a subset of the manager's results", async () => {
    const all = await query("SELECT cmis:objectId FROM cmis:document", manager);
    const mine = await query("SELECT cmis:objectId FROM cmis:document", reader);
    expect(mine.numItems).toBeLessThan(all.numItems);
    const readable = new Set(mine.ids.map((id) => id.split("|")[1]));
    const hidden = rows("SELECT ref, security_tag FROM entities WHERE type = 'IO' AND deleted = 0").filter(
      (r) => !readable.has(r.ref),
    );
    expect(hidden.length).toBe(all.numItems - mine.numItems);
    // Every hidden asset is on a tag the reader lacks Read Metadata on: each answers 403 by id.
    for (const h of hidden.slice(0, 3)) {
      expect((await get(`${R}/id?id=${encodeURIComponent(`sdb:IO|${h.ref}`)}`)).status).toBe(403);
    }
  });

  it("IN_FOLDER gives a folder's readable children of the type; IN_FOLDER('root') the top level", async () => {
    const top = await query("SELECT * FROM cmis:folder WHERE IN_FOLDER('root')", manager);
    const expected = rows(
      "SELECT ref FROM entities WHERE type = 'SO' AND parent_ref IS NULL AND deleted = 0 ORDER BY id",
    );
    expect(top.ids).toEqual(expected.map((r) => `sdb:SO|${r.ref}`));
    const folder = expected[0]?.ref as string;
    const inside = await query(`SELECT * FROM cmis:document WHERE IN_FOLDER('sdb:SO|${folder}')`, manager);
    const children = rows(
      "SELECT ref FROM entities WHERE type = 'IO' AND parent_ref = ? AND deleted = 0 ORDER BY id",
      folder,
    );
    expect(inside.ids).toEqual(children.map((r) => `sdb:IO|${r.ref}`));
    // The same as the folder's children feed, less its folders.
    const feed = results(
      await (
        await get(`${R}/children?id=${encodeURIComponent(`sdb:SO|${folder}`)}&maxItems=1000`, manager)
      ).text(),
    );
    expect(inside.ids).toEqual(feed.ids.filter((id) => id.startsWith("sdb:IO|")));
  });

  it("IN_TREE with AND and cmis:name LIKE: assets anywhere below a folder whose name matches", async () => {
    const top = rows(
      "SELECT ref FROM entities WHERE type = 'SO' AND parent_ref IS NULL AND deleted = 0 ORDER BY id",
    );
    const below = (root: string) =>
      rows(
        `WITH RECURSIVE sub(ref) AS (SELECT ? UNION SELECT e.ref FROM sub JOIN entities e ON e.parent_ref = sub.ref AND e.deleted = 0)
         SELECT e.ref, e.title FROM entities e JOIN sub ON e.ref = sub.ref WHERE e.type = 'IO'`,
        root,
      );
    const folder = top.find((f) => below(f.ref).length > 1)?.ref as string;
    const assets = below(folder);
    const word = String(assets[0]?.title).split(/\s+/)[0] as string;
    const res = await query(
      `SELECT * FROM cmis:document D WHERE IN_TREE(D, 'sdb:SO|${folder}') AND (D.cmis:name LIKE '${word.replaceAll("'", "''")}%')`,
      manager,
    );
    const expected = assets.filter((a) => a.title.toLowerCase().startsWith(word.toLowerCase()));
    expect(sorted(res.ids)).toEqual(sorted(expected.map((a) => `sdb:IO|${a.ref}`)));
    expect(res.ids.length).toBeGreaterThan(0);
    const everywhere = await query(
      `SELECT * FROM cmis:document WHERE IN_TREE('root') AND cmis:name LIKE '${word}%'`,
      manager,
    );
    expect(everywhere.ids.length).toBeGreaterThanOrEqual(res.ids.length);
  });

  it("cmis:name = finds the asset of that name; a quote in the value is data, not syntax", async () => {
    const asset = rows(
      "SELECT ref, title FROM entities WHERE type = 'IO' AND deleted = 0 ORDER BY id LIMIT 1",
    )[0];
    const exact = await query(
      `SELECT * FROM cmis:document WHERE cmis:name = '${asset?.title.replaceAll("'", "\\'")}'`,
      manager,
    );
    expect(exact.ids).toContain(`sdb:IO|${asset?.ref}`);
    for (const e of exact.entries)
      expect(props(e)["cmis:name"]?.toLowerCase()).toBe(asset?.title.toLowerCase());
    const before = rows("SELECT ref FROM entities").length;
    const injected = await query("SELECT * FROM cmis:document WHERE cmis:name = 'x'' OR 1=1 --'", manager);
    expect(injected.numItems).toBe(0);
    expect(rows("SELECT ref FROM entities").length).toBe(before);
  });

  it("the select list picks the properties (with the identifying ones); * gives them all", async () => {
    const picked = await query(
      "SELECT cmis:name, cmis:creationDate FROM cmis:document WHERE CONTAINS('harbour')",
    );
    const p = props(picked.entries[0]);
    expect(Object.keys(p).sort()).toEqual(
      ["cmis:baseTypeId", "cmis:creationDate", "cmis:name", "cmis:objectId", "cmis:objectTypeId"].sort(),
    );
    const all = props((await query("SELECT * FROM cmis:document WHERE CONTAINS('harbour')")).entries[0]);
    expect(Object.keys(all)).toContain("sdbcmis:securityDescriptor");
  });

  it("pages with skipCount and maxItems, with next and previous links", async () => {
    const all = await query("SELECT * FROM cmis:document", manager);
    const res = await get(
      `${R}/query?q=${encodeURIComponent("SELECT * FROM cmis:document")}&skipCount=2&maxItems=2`,
      manager,
    );
    const page = results(await res.text());
    expect(page.numItems).toBe(all.numItems);
    expect(page.ids).toEqual(all.ids.slice(2, 4));
    const links = Object.fromEntries(arr(page.feed.link).map((l: Node) => [l["@rel"], l["@href"]]));
    expect(links.next).toMatch(/skipCount=4&maxItems=2/);
    expect(links.previous).toMatch(/skipCount=0&maxItems=2/);
  });
});

describe("CMIS query by the query collection (POST cmis:query)", () => {
  it("answers 201 with the feed and where to read it again", async () => {
    const statement = "SELECT * FROM cmis:document WHERE CONTAINS('harbour')";
    const res = await fetch(`${repo.url}${R}/query`, {
      method: "POST",
      headers: { "Preservica-Access-Token": reader, "Content-Type": "application/cmisquery+xml" },
      body: `<?xml version="1.0" encoding="UTF-8"?><cmis:query xmlns:cmis="${CMIS_NS}"><cmis:statement><![CDATA[${statement}]]></cmis:statement><cmis:searchAllVersions>false</cmis:searchAllVersions><cmis:includeAllowableActions>true</cmis:includeAllowableActions><cmis:maxItems>1</cmis:maxItems><cmis:skipCount>0</cmis:skipCount></cmis:query>`,
    });
    const body = await res.text();
    expect(res.status, body).toBe(201);
    const posted = results(body);
    const expected = await contentSearch("harbour", "IO");
    expect(posted.ids).toEqual(expected.slice(0, 1));
    expect(posted.numItems).toBe(expected.length);
    expect(posted.entries[0].object.allowableActions.canGetProperties).toBe("true");
    const again = results(
      await (
        await get(
          new URL(res.headers.get("location") as string).pathname +
            new URL(res.headers.get("location") as string).search,
        )
      ).text(),
    );
    expect(again.ids).toEqual(posted.ids);
  });

  it("refuses a body that is not a cmis:query, or has no statement", async () => {
    for (const body of [
      "<query/>",
      `<cmis:query xmlns:cmis="${CMIS_NS}"><cmis:maxItems>1</cmis:maxItems></cmis:query>`,
    ]) {
      const res = await fetch(`${repo.url}${R}/query`, {
        method: "POST",
        headers: { "Preservica-Access-Token": reader, "Content-Type": "application/cmisquery+xml" },
        body,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(/CMIS invalidArgument/);
    }
  });
});

describe("what CMIS query does not support is refused as invalidArgument, by name", () => {
  it.each([
    ["SELECT * FROM cmis:document WHERE CONTAINS('a') OR CONTAINS('b')", /OR is not supported/],
    ["SELECT * FROM cmis:document WHERE NOT CONTAINS('a')", /NOT is not supported/],
    ["SELECT * FROM cmis:document ORDER BY cmis:name", /ORDER BY is not supported/],
    [
      "SELECT * FROM cmis:document D JOIN cmis:folder F ON D.cmis:parentId = F.cmis:objectId",
      /JOIN is not supported/,
    ],
    ["SELECT * FROM cmis:document WHERE cmis:description = 'x'", /cmis:description cannot be compared/],
    ["SELECT * FROM cmis:document WHERE cmis:name < 'x'", /only = and LIKE/],
    [
      "SELECT * FROM cmis:document WHERE cmis:name LIKE 'a_c'",
      /_ \(exactly one character\) is not supported/,
    ],
    ["SELECT * FROM cmis:relationship", /cmis:document \(assets\) and cmis:folder/],
    ["SELECT cmis:nonsense FROM cmis:document", /cmis:nonsense is not a property of cmis:document/],
    ["SELECT * FROM cmis:document WHERE CONTAINS('a') AND CONTAINS('b')", /CONTAINS may appear only once/],
    [
      "SELECT * FROM cmis:document WHERE IN_FOLDER('root') AND IN_TREE('root')",
      /only one IN_FOLDER or IN_TREE/,
    ],
    ["SELECT * FROM cmis:document WHERE cmis:name = 'unterminated", /Unterminated string/],
    ["SELECT * FROM cmis:document WHERE IN_FOLDER('not-an-id')", /not a folder id/],
    ["SELECT SCORE() FROM cmis:document", /SCORE\(\) is not supported/],
    ["DELETE FROM cmis:document", /Expected SELECT/],
  ])("%s", async (statement, message) => {
    expect(await refused(statement)).toMatch(message);
  });

  it("refuses searchAllVersions=true, an asset as IN_FOLDER's folder, and answers 404 for an unknown folder", async () => {
    const res = await get(
      `${R}/query?q=${encodeURIComponent("SELECT * FROM cmis:document")}&searchAllVersions=true`,
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /searchAllVersions=true is not supported/,
    );
    const asset = rows(
      "SELECT ref FROM entities WHERE type = 'IO' AND security_tag = 'open' AND deleted = 0 LIMIT 1",
    )[0]?.ref;
    expect(await refused(`SELECT * FROM cmis:document WHERE IN_FOLDER('sdb:IO|${asset}')`)).toMatch(
      /not a folder/,
    );
    const unknown = await get(
      `${R}/query?q=${encodeURIComponent("SELECT * FROM cmis:document WHERE IN_TREE('sdb:SO|00000000-0000-4000-8000-000000000000')")}`,
    );
    expect(unknown.status).toBe(404);
  });

  it("declares the types queryable and full-text indexed, and cmis:name the one queryable property", async () => {
    for (const type of ["cmis:document", "cmis:folder"]) {
      const t = parseXml(await (await get(`${R}/type?id=${type}`)).text()).root.type;
      expect(t.queryable).toBe("true");
      expect(t.fulltextIndexed).toBe("true");
      const defs = Object.entries(t)
        .filter(([k]) => k.endsWith("Definition"))
        .flatMap(([, v]) => arr(v));
      expect(defs.filter((d: Node) => d.queryable === "true").map((d: Node) => d.id)).toEqual(["cmis:name"]);
    }
  });
});
