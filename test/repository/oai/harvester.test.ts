import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { recordChange } from "../../../repository/store/events/write.js";
import { markDeleted, removeEntities } from "../../../repository/store/recycle-bin/write.js";
import { login, startTestRepository } from "../../helpers/repository.js";

/**
 * OAI-PMH at /OAI-PMH, harvested by a real harvester: Debian's HTTP::OAI (libhttp-oai-perl), run with
 * /usr/bin/perl against the service over loopback (test/repository/oai/harvest.pl). Counts are checked
 * against what the store says the user may read (Read Metadata on the security tag).
 */

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("./harvest.pl", import.meta.url));
const HAS_HARVESTER = await run("/usr/bin/perl", ["-MHTTP::OAI", "-e", "1"]).then(
  () => true,
  () => false,
);

interface Harvest {
  http: number;
  errors: { code: string; message: string }[];
  items: {
    identifier?: string;
    datestamp?: string;
    deleted?: boolean;
    setSpecs?: string[];
    titles?: string[];
    setSpec?: string;
    setName?: string;
    metadataPrefix?: string;
  }[];
  pages: { count: number; token: string | null; completeListSize: string | null; cursor: string | null }[];
  identify?: Record<string, unknown>;
}

let repo: RunningRepository;
let managerToken: string;
const READER_BASIC = "basic:reader:reader-demo-pw";

/**
 * One Perl for the file, serving harvests in turn (harvest.pl without arguments): a Perl per harvest loaded
 * HTTP::OAI ~45 times (~0.15 s each). Answers come back in the order asked.
 */
let harvester: ChildProcessWithoutNullStreams | undefined;
const waiting: { resolve(line: string): void; reject(err: Error): void }[] = [];

function harvesterProcess(): ChildProcessWithoutNullStreams {
  if (harvester) return harvester;
  const child = spawn("/usr/bin/perl", [SCRIPT]);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.resolve(line));
  child.on("exit", (code) => {
    harvester = undefined;
    for (const w of waiting.splice(0)) w.reject(new Error(`harvest.pl exited ${code}: ${stderr}`));
  });
  harvester = child;
  return child;
}

async function stopHarvester(): Promise<void> {
  const child = harvester;
  if (!child) return;
  const exited = once(child, "exit");
  child.stdin.end();
  await exited;
}

async function harvest(
  auth: string,
  mode: "resume" | "pages" | "force",
  verb: string,
  args: Record<string, string> = {},
  url = repo.url,
): Promise<Harvest> {
  const pairs = Object.entries(args).map(([k, v]) => `${k}=${v}`);
  const child = harvesterProcess();
  const line = await new Promise<string>((resolve, reject) => {
    waiting.push({ resolve, reject });
    child.stdin.write(`${JSON.stringify([`${url}/OAI-PMH`, auth, mode, verb, ...pairs])}\n`);
  });
  const result = JSON.parse(line) as Harvest & { httpMessage?: string; fatal?: string };
  if (result.fatal !== undefined) throw new Error(`harvest.pl: ${verb}: ${result.fatal}`);
  // HTTP::OAI gives most protocol errors the status 500 itself (the reply was 200); anything else is a failure.
  if (result.errors.length === 0 && result.http !== 200 && result.http !== 401)
    throw new Error(`${verb}: HTTP ${result.http} ${result.httpMessage}`);
  return result;
}

/** Folders and assets the given tags may read, live; optionally changed at or after `from`. */
function visible(tags: string[], where = "1=1", params: unknown[] = []): string[] {
  return (
    repo.svc.db
      .prepare(
        `SELECT type, ref FROM entities e WHERE type IN ('SO','IO') AND deleted = 0
          AND security_tag IN (${tags.map(() => "?").join(",")}) AND ${where} ORDER BY id`,
      )
      .all(...tags, ...params) as { type: string; ref: string }[]
  ).map((r) => `oai:${r.type.toLowerCase()}:${r.ref}`);
}

const ALL_TAGS = ["open", "closed", "staff"];

describe.skipIf(!HAS_HARVESTER)("OAI-PMH with HTTP::OAI (libhttp-oai-perl)", () => {
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    managerToken = (await login(repo.url, "manager")).token;
  }, 60_000);
  afterAll(async () => {
    await stopHarvester();
    await repo?.close();
  });

  it("Identify: granularity to the second, transient deletions, the base URL, an administrator's address", async () => {
    const r = await harvest(READER_BASIC, "force", "Identify");
    expect(r.errors).toEqual([]);
    expect(r.identify).toMatchObject({
      granularity: "YYYY-MM-DDThh:mm:ssZ",
      deletedRecord: "transient",
      baseURL: `${repo.url}/OAI-PMH`,
      earliestDatestamp: "2023-03-14T09:30:00Z",
    });
    expect(r.identify?.adminEmail).toEqual([expect.stringMatching(/^\S+@\S+\.\S+$/)]);
  });

  it("harvests the whole demo collection with resumption tokens: each user gets exactly what they may read", async () => {
    const manager = await harvest(`token:${managerToken}`, "resume", "ListRecords", {
      metadataPrefix: "oai_dc",
    });
    expect(manager.errors).toEqual([]);
    const ids = manager.items.map((i) => i.identifier);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(visible(ALL_TAGS).sort());
    expect(ids.length).toBe(145);
    for (const i of manager.items) {
      expect(i.datestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(i.titles?.length, i.identifier).toBeGreaterThan(0);
    }

    const reader = await harvest(READER_BASIC, "resume", "ListRecords", { metadataPrefix: "oai_dc" });
    expect(reader.items.map((i) => i.identifier).sort()).toEqual(visible(["open"]).sort());
    expect(reader.items.length).toBe(120);

    // The same as the Entity API lets the reader see: a closed asset is 403 there and absent here.
    const closed = repo.svc.db
      .prepare("SELECT ref FROM entities WHERE type = 'IO' AND security_tag = 'closed' LIMIT 1")
      .get() as { ref: string };
    const readerToken = (await login(repo.url, "reader")).token;
    const direct = await fetch(`${repo.url}/api/entity/information-objects/${closed.ref}`, {
      headers: { "Preservica-Access-Token": readerToken },
    });
    expect(direct.status).toBe(403);
    expect(reader.items.some((i) => i.identifier === `oai:io:${closed.ref}`)).toBe(false);
  }, 60_000);

  it("pages of 50 say completeListSize and cursor, and the last page ends with an empty token", async () => {
    const r = await harvest(READER_BASIC, "pages", "ListIdentifiers", { metadataPrefix: "oai_dc" });
    expect(r.pages.map((p) => p.count)).toEqual([50, 50, 20]);
    expect(r.pages.map((p) => p.completeListSize).slice(0, 2)).toEqual(["120", "120"]);
    expect(r.pages.map((p) => p.cursor).slice(0, 2)).toEqual(["0", "50"]);
    expect(r.pages[2]?.token).toBeFalsy();
    // HTTP::OAI drops the empty token that ends a paged list; its attributes, read from the reply itself:
    const readerToken = (await login(repo.url, "reader")).token;
    const last = await (
      await fetch(
        `${repo.url}/OAI-PMH?verb=ListIdentifiers&resumptionToken=${encodeURIComponent(r.pages[1]?.token as string)}`,
        { headers: { "Preservica-Access-Token": readerToken } },
      )
    ).text();
    expect(last).toContain('<resumptionToken completeListSize="120" cursor="100"/>');
    expect(r.items.map((i) => i.identifier).sort()).toEqual(visible(["open"]).sort());
  }, 60_000);

  it("selects by date, in day and second forms, by last change", async () => {
    const byDay = await harvest(`token:${managerToken}`, "resume", "ListIdentifiers", {
      metadataPrefix: "oai_dc",
      from: "2025-01-01",
    });
    const expected = visible(ALL_TAGS, "modified >= ?", ["2025-01-01T00:00:00.000Z"]);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(145);
    expect(byDay.items.map((i) => i.identifier).sort()).toEqual(expected.sort());

    // until a second includes records whose datestamp is that very second.
    const one = repo.svc.db
      .prepare("SELECT modified FROM entities WHERE type = 'IO' ORDER BY modified LIMIT 1 OFFSET 40")
      .get() as { modified: string };
    const second = `${one.modified.slice(0, 19)}Z`;
    const until = await harvest(`token:${managerToken}`, "resume", "ListIdentifiers", {
      metadataPrefix: "oai_dc",
      until: second,
    });
    expect(until.items.map((i) => i.identifier).sort()).toEqual(
      visible(ALL_TAGS, "modified < ?", [new Date(Date.parse(second) + 1000).toISOString()]).sort(),
    );
    const exact = await harvest(`token:${managerToken}`, "resume", "ListIdentifiers", {
      metadataPrefix: "oai_dc",
      from: second,
      until: second,
    });
    expect(exact.items.length).toBeGreaterThan(0);
    for (const i of exact.items) expect(i.datestamp).toBe(second);
  }, 60_000);

  it("lists the folders as hierarchical sets and harvests one set: everything below the folder", async () => {
    const sets = await harvest(READER_BASIC, "resume", "ListSets");
    expect(sets.errors).toEqual([]);
    const openFolders = repo.svc.db
      .prepare(
        "SELECT ref, parent_ref FROM entities WHERE type = 'SO' AND deleted = 0 AND security_tag = 'open'",
      )
      .all() as { ref: string; parent_ref: string | null }[];
    expect(sets.items.length).toBe(openFolders.length);
    const nested = openFolders.find((f) => f.parent_ref !== null) as { ref: string; parent_ref: string };
    expect(sets.items.map((s) => s.setSpec)).toContain(`${nested.parent_ref}:${nested.ref}`);

    const top = repo.svc.db
      .prepare(
        "SELECT ref FROM entities e WHERE type = 'SO' AND parent_ref IS NULL AND security_tag = 'open' AND EXISTS (SELECT 1 FROM entities c WHERE c.parent_ref = e.ref AND c.type = 'SO') LIMIT 1",
      )
      .get() as { ref: string };
    const below = (
      repo.svc.db
        .prepare(
          `WITH RECURSIVE sub(ref) AS (SELECT ref FROM entities WHERE parent_ref = ? UNION SELECT c.ref FROM sub JOIN entities c ON c.parent_ref = sub.ref)
           SELECT e.type, e.ref FROM entities e JOIN sub ON sub.ref = e.ref WHERE e.type IN ('SO','IO') AND e.deleted = 0 AND e.security_tag = 'open'`,
        )
        .all(top.ref) as { type: string; ref: string }[]
    ).map((r) => `oai:${r.type.toLowerCase()}:${r.ref}`);
    const r = await harvest(READER_BASIC, "resume", "ListRecords", {
      metadataPrefix: "oai_dc",
      set: top.ref,
    });
    expect(r.errors).toEqual([]);
    expect(r.items.map((i) => i.identifier).sort()).toEqual(below.sort());
    for (const i of r.items) expect(i.setSpecs?.[0]?.startsWith(top.ref)).toBe(true);
  }, 60_000);

  it("GetRecord and ListMetadataFormats for a folder and an asset; oai_dc from the Dublin Core fragment", async () => {
    const withDc = repo.svc.db
      .prepare(
        "SELECT e.ref, e.type FROM entities e JOIN metadata_fragments f ON f.entity_ref = e.ref WHERE f.schema_uri LIKE '%oai_dc%' AND e.type = 'SO' AND e.security_tag = 'open' LIMIT 1",
      )
      .get() as { ref: string };
    const r = await harvest(READER_BASIC, "force", "GetRecord", {
      identifier: `oai:so:${withDc.ref}`,
      metadataPrefix: "oai_dc",
    });
    expect(r.errors).toEqual([]);
    expect(r.items[0]?.identifier).toBe(`oai:so:${withDc.ref}`);
    const raw = await (
      await fetch(
        `${repo.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:so:${withDc.ref}`,
        {
          headers: { "Preservica-Access-Token": managerToken },
        },
      )
    ).text();
    expect(raw).toContain("<dc:creator>Harbour Town Borough Council</dc:creator>");

    const formats = await harvest(READER_BASIC, "force", "ListMetadataFormats", {
      identifier: `oai:so:${withDc.ref}`,
    });
    expect(formats.items).toEqual([{ metadataPrefix: "oai_dc" }]);
  });

  it("reports each protocol error with its code", async () => {
    const auth = `token:${managerToken}`;
    const closed = repo.svc.db
      .prepare("SELECT ref FROM entities WHERE type = 'IO' AND security_tag = 'closed' LIMIT 1")
      .get() as { ref: string };
    // HTTP::OAI cannot read a reply to a verb it does not know (it makes a class of the verb's name):
    // badVerb is read from the reply itself.
    for (const q of ["verb=Bogus", "", "verb=Identify&verb=ListSets"]) {
      const text = await (
        await fetch(`${repo.url}/OAI-PMH?${q}`, { headers: { "Preservica-Access-Token": managerToken } })
      ).text();
      expect(text, q).toContain('<error code="badVerb">');
    }
    const cases: [string, Record<string, string>, string][] = [
      ["ListRecords", {}, "badArgument"],
      ["ListRecords", { metadataPrefix: "oai_dc", from: "2024-13-01" }, "badArgument"],
      [
        "ListRecords",
        { metadataPrefix: "oai_dc", from: "2024-01-01", until: "2024-02-01T00:00:00Z" },
        "badArgument",
      ],
      ["ListRecords", { metadataPrefix: "oai_dc", from: "2025-01-01", until: "2024-01-01" }, "badArgument"],
      ["Identify", { extra: "1" }, "badArgument"],
      ["ListRecords", { metadataPrefix: "oai_dc", resumptionToken: "x" }, "badArgument"],
      ["ListRecords", { metadataPrefix: "marc21" }, "cannotDisseminateFormat"],
      ["GetRecord", { identifier: `oai:io:${closed.ref}`, metadataPrefix: "oai_dc" }, "idDoesNotExist"],
      ["GetRecord", { identifier: "oai:io:not-a-ref", metadataPrefix: "oai_dc" }, "idDoesNotExist"],
      [
        "ListMetadataFormats",
        { identifier: "oai:so:00000000-0000-4000-8000-000000000000" },
        "idDoesNotExist",
      ],
      ["ListIdentifiers", { metadataPrefix: "oai_dc", from: "2099-01-01" }, "noRecordsMatch"],
      [
        "ListIdentifiers",
        { metadataPrefix: "oai_dc", set: "00000000-0000-4000-8000-000000000000" },
        "noRecordsMatch",
      ],
      ["ListRecords", { resumptionToken: "v1.bm90LWEtdG9rZW4" }, "badResumptionToken"],
      ["ListSets", { resumptionToken: "garbage" }, "badResumptionToken"],
    ];
    for (const [verb, args, code] of cases) {
      const user = verb === "GetRecord" && code === "idDoesNotExist" ? READER_BASIC : auth;
      const r = await harvest(user, "force", verb, args);
      expect(
        r.errors.map((e) => e.code),
        `${verb} ${JSON.stringify(args)}`,
      ).toEqual([code]);
      expect(r.errors[0]?.message.length).toBeGreaterThan(10);
    }
    // A token of ListIdentifiers is not one of ListRecords.
    const first = await harvest(auth, "pages", "ListIdentifiers", { metadataPrefix: "oai_dc" });
    const token = first.pages[0]?.token as string;
    const wrongVerb = await harvest(auth, "force", "ListRecords", { resumptionToken: token });
    expect(wrongVerb.errors.map((e) => e.code)).toEqual(["badResumptionToken"]);
  }, 60_000);

  it("noSetHierarchy and noRecordsMatch on an empty repository", async () => {
    const empty = await startTestRepository();
    try {
      const token = (await login(empty.url, "manager")).token;
      const sets = await harvest(`token:${token}`, "force", "ListSets", {}, empty.url);
      expect(sets.errors.map((e) => e.code)).toEqual(["noSetHierarchy"]);
      const bySet = await harvest(
        `token:${token}`,
        "force",
        "ListRecords",
        { metadataPrefix: "oai_dc", set: "a" },
        empty.url,
      );
      expect(bySet.errors.map((e) => e.code)).toEqual(["noSetHierarchy"]);
      const records = await harvest(
        `token:${token}`,
        "force",
        "ListRecords",
        { metadataPrefix: "oai_dc" },
        empty.url,
      );
      expect(records.errors.map((e) => e.code)).toEqual(["noRecordsMatch"]);
    } finally {
      await empty.close();
    }
  }, 60_000);

  it("refuses a harvester without valid credentials (401), and Basic for a two-step account", async () => {
    expect((await harvest("none", "force", "Identify")).http).toBe(401);
    expect((await harvest("basic:reader:wrong", "force", "Identify")).http).toBe(401);
    expect((await harvest("basic:twofactor:twofactor-demo-pw", "force", "Identify")).http).toBe(401);
    expect((await harvest("token:not-a-token", "force", "Identify")).http).toBe(401);
    const res = await fetch(`${repo.url}/OAI-PMH?verb=Identify`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm="OAI-PMH"/);
  }, 60_000);

  it("a token stays valid while the store changes; a changed record shows at the next harvest by date", async () => {
    const auth = `token:${managerToken}`;
    const first = await harvest(auth, "force", "ListIdentifiers", { metadataPrefix: "oai_dc" });
    const page1 = first.items.map((i) => i.identifier as string);
    const raw = await (
      await fetch(`${repo.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=oai_dc`, {
        headers: { "Preservica-Access-Token": managerToken },
      })
    ).text();
    const token = /<resumptionToken[^>]*>([^<]+)</.exec(raw)?.[1] as string;
    // Change an entity already sent and one still to come.
    const sent = (page1[0] as string).split(":")[2] as string;
    const later = repo.svc.db
      .prepare("SELECT ref FROM entities WHERE type = 'IO' ORDER BY id DESC LIMIT 1")
      .get() as { ref: string };
    const at = new Date(repo.svc.now()).toISOString();
    repo.svc.db.transaction(() =>
      recordChange(repo.svc.db, {
        username: "manager",
        date: at,
        type: "Modified",
        commandType: "UpdateMetadata",
        entityRefs: [sent, later.ref],
      }),
    )();
    const rest: string[] = [];
    let next: string | undefined = token;
    while (next) {
      const r = await harvest(auth, "force", "ListIdentifiers", { resumptionToken: next });
      expect(r.errors).toEqual([]);
      rest.push(...r.items.map((i) => i.identifier as string));
      const text = await (
        await fetch(`${repo.url}/OAI-PMH?verb=ListIdentifiers&resumptionToken=${encodeURIComponent(next)}`, {
          headers: { "Preservica-Access-Token": managerToken },
        })
      ).text();
      next = /<resumptionToken[^>]*>([^<]+)</.exec(text)?.[1];
    }
    expect(new Set([...page1, ...rest]).size).toBe(145);
    expect(page1.length + rest.length).toBe(145);
    const since = await harvest(auth, "resume", "ListIdentifiers", {
      metadataPrefix: "oai_dc",
      from: `${at.slice(0, 19)}Z`,
    });
    expect(since.items.map((i) => i.identifier).sort()).toEqual(
      [`oai:io:${later.ref}`, page1[0] as string].sort(),
    );
  }, 60_000);

  it("reports an entity in the recycle bin as a deleted record, and forgets it once deleted for good", async () => {
    const victim = repo.svc.db
      .prepare(
        "SELECT ref FROM entities e WHERE type = 'IO' AND security_tag = 'open' AND NOT EXISTS (SELECT 1 FROM entities c WHERE c.parent_ref = e.ref AND c.type <> 'CO') ORDER BY id DESC LIMIT 1",
      )
      .get() as { ref: string };
    const at = new Date(repo.svc.now() + 5000).toISOString();
    repo.svc.db.transaction(() =>
      markDeleted(repo.svc.db, victim.ref, "00000000-0000-4000-8000-0000000000d1", at),
    )();
    const id = `oai:io:${victim.ref}`;
    const got = await harvest(READER_BASIC, "force", "GetRecord", {
      identifier: id,
      metadataPrefix: "oai_dc",
    });
    expect(got.items[0]).toMatchObject({ identifier: id, deleted: true, datestamp: `${at.slice(0, 19)}Z` });
    const since = await harvest(READER_BASIC, "resume", "ListRecords", {
      metadataPrefix: "oai_dc",
      from: `${at.slice(0, 19)}Z`,
    });
    expect(since.items).toEqual([expect.objectContaining({ identifier: id, deleted: true })]);
    // Still one record: the reader harvests 119 live records and this deleted one.
    const all = await harvest(READER_BASIC, "resume", "ListIdentifiers", { metadataPrefix: "oai_dc" });
    expect(all.items.length).toBe(120);
    expect(all.items.filter((i) => i.deleted).map((i) => i.identifier)).toEqual([id]);

    repo.svc.db.transaction(() => {
      const refs = (
        repo.svc.db
          .prepare("SELECT ref FROM entities WHERE deletion_id = ?")
          .all("00000000-0000-4000-8000-0000000000d1") as { ref: string }[]
      ).map((r) => r.ref);
      removeEntities(repo.svc.db, refs);
    })();
    const gone = await harvest(READER_BASIC, "force", "GetRecord", {
      identifier: id,
      metadataPrefix: "oai_dc",
    });
    expect(gone.errors.map((e) => e.code)).toEqual(["idDoesNotExist"]);
  }, 60_000);
});

describe("OAI-PMH documents", () => {
  let svc: RunningRepository;
  let token: string;
  beforeAll(async () => {
    svc = await startTestRepository({ seed: "demo" });
    token = (await login(svc.url, "manager")).token;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });
  const get = (query: string) =>
    fetch(`${svc.url}/OAI-PMH?${query}`, { headers: { "Preservica-Access-Token": token } }).then(
      async (r) => ({
        status: r.status,
        type: r.headers.get("content-type"),
        text: await r.text(),
      }),
    );

  it("escapes stored text and echoed arguments", async () => {
    const e = svc.svc.db
      .prepare(
        "SELECT ref FROM entities e WHERE type = 'IO' AND NOT EXISTS (SELECT 1 FROM metadata_fragments f WHERE f.entity_ref = e.ref) LIMIT 1",
      )
      .get() as { ref: string };
    svc.svc.db.prepare("UPDATE entities SET title = ? WHERE ref = ?").run('A < B & "C" \u0001]]>', e.ref);
    const r = await get(`verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:io:${e.ref}`);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/xml/);
    expect(XMLValidator.validate(r.text)).toBe(true);
    expect(r.text).toContain('<dc:title>A &lt; B &amp; "C" ]]&gt;</dc:title>');
    const junk = await get(`verb=ListRecords&metadataPrefix=${encodeURIComponent('<x a="&">')}`);
    expect(XMLValidator.validate(junk.text)).toBe(true);
    expect(junk.text).toContain('code="cannotDisseminateFormat"');
    // Named (escaped) in the message, but not echoed as an attribute the schema's type would refuse.
    expect(junk.text).toContain('not "&lt;x a="&amp;"&gt;"');
    expect(junk.text).toMatch(/<request verb="ListRecords">/);
    const echoed = await get("verb=ListRecords&metadataPrefix=marc21&from=2024-01-01");
    expect(echoed.text).toMatch(/<request verb="ListRecords" metadataPrefix="marc21" from="2024-01-01">/);
  });

  it("badVerb and badArgument leave the request element without attributes", async () => {
    for (const q of ["verb=Nope", "", "verb=Identify&verb=Identify", "verb=GetRecord&identifier=x"]) {
      const r = await get(q);
      expect(r.text).toMatch(new RegExp(`<request>${svc.url}/OAI-PMH</request>`));
      expect(r.text).toMatch(/<error code="bad(Verb|Argument)">/);
    }
  });

  it("answers POST with a form body like GET", async () => {
    const r = await fetch(`${svc.url}/OAI-PMH`, {
      method: "POST",
      headers: { "Preservica-Access-Token": token, "Content-Type": "application/x-www-form-urlencoded" },
      body: "verb=ListIdentifiers&metadataPrefix=oai_dc&from=2025-01-01",
    });
    const text = await r.text();
    expect(r.status).toBe(200);
    expect(text).toContain("<ListIdentifiers>");
    const wrongType = await fetch(`${svc.url}/OAI-PMH`, {
      method: "POST",
      headers: { "Preservica-Access-Token": token, "Content-Type": "application/json" },
      body: "{}",
    });
    expect(await wrongType.text()).toContain('code="badArgument"');
  });

  // The OAI-PMH 2.0 schema (and oai_dc's) are not shipped by Debian or this machine; when a copy is named by
  // OAI_PMH_XSD (with OAI_DC_XSD beside it as the schema imports it), every kind of reply is validated with
  // libxml2 (XML::LibXML). Otherwise this check is skipped, and the well-formedness checks above remain.
  const XSD = process.env.OAI_PMH_XSD;
  it.skipIf(!XSD || !existsSync(XSD))(
    "replies are valid against the OAI-PMH 2.0 schema (OAI_PMH_XSD)",
    async () => {
      const folder = svc.svc.db.prepare("SELECT ref FROM entities WHERE type = 'SO' LIMIT 1").get() as {
        ref: string;
      };
      const queries = [
        "verb=Identify",
        "verb=ListMetadataFormats",
        "verb=ListSets",
        "verb=ListIdentifiers&metadataPrefix=oai_dc",
        "verb=ListRecords&metadataPrefix=oai_dc",
        `verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:so:${folder.ref}`,
        "verb=Bogus",
        "verb=ListRecords&metadataPrefix=oai_dc&from=2099-01-01",
      ];
      for (const q of queries) {
        const { text } = await get(q);
        const { stdout } = await run("/usr/bin/perl", [
          "-MXML::LibXML",
          "-e",
          'my $s = XML::LibXML::Schema->new(location => $ARGV[0]); my $d = XML::LibXML->load_xml(string => do { local $/; <STDIN> }); eval { $s->validate($d) }; print $@ ? "invalid: $@" : "valid"',
          XSD as string,
        ]).catch((e) => ({ stdout: String(e) }));
        expect(stdout, `${q}\n${text.slice(0, 500)}`).toBe("valid");
      }
    },
  );
});
