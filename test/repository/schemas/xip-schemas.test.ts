import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { download, runExport, unzip } from "../export/export-helpers.js";
import { loadOpexSchema, loadXipSchema, validate, type XipSchema, xipParts } from "./xsd.js";

/**
 * Every XIP document the Entity API emits, per API version, validated against the official XIP schema of
 * that version (test/fixtures/schemas, provenance in PROVENANCE.md there), and every OPEX manifest of an
 * export against the OPEX 1.2 schema. The Entity API wraps XIP parts in its own response documents
 * (EntityResponse, GenerationResponse, IdentifiersResponse, …), for which no schema is published: each
 * outermost XIP element is validated on its own, as the XIP schema defines it.
 *
 * The walk follows only URLs the service hands out, from the root's children down to bitstreams, with a
 * cap per kind of document so it stays fast; writes (an identifier, a link) add the reply kinds a walk
 * cannot reach. Versions: those with a published schema in their own namespace (6.1 answers in the 6.0
 * namespaces and is covered by it; 6.3–6.8, 6.10–6.12 and 7.1–7.6 have no published schema).
 */

const VERSIONS = ["6.0", "6.2", "6.9", "7.0", "7.7"] as const;
/** Documents fetched per kind (entity, children, generation, …) and version. */
const PER_KIND = 5;

/**
 * Where the real service itself departs from its schema: seen in real replies, so the service does the
 * same and a client must cope. A part whose only complaints are these counts as "valid with an allowed
 * departure"; anything else is invalid.
 */
const ALLOWED_DEPARTURES: { name: string; why: string; part: string; complaint: RegExp }[] = [
  {
    name: "EventAction without SerialisedCommand",
    why: "real event actions often carry no SerialisedCommand (the schema requires one; nationalarchives/dr2-preservica-client made it optional in its copy for this reason)",
    part: "EventAction",
    complaint:
      /Element '\{[^}]+\}EventAction': Missing child element\(s\)\. Expected is \( \{[^}]+\}SerialisedCommand \)/,
  },
  {
    name: "Bitstream without PhysicalLocation",
    why: "real 6.3 BitstreamResponses carry no PhysicalLocation (the 6.0 and 6.2 schemas require it; 6.9 on make it optional)",
    part: "Bitstream",
    complaint:
      /Element '\{[^}]+\}Bitstream': Missing child element\(s\)\. Expected is .*\{[^}]+\}PhysicalLocation/,
  },
  {
    name: "Bitstream with OriginalName",
    why: "the interface specification (service-spec.md) names Bitstream/OriginalName from 6.3 on, where the schemas name the field OriginalFilename; the service keeps the specification's element and sends it only where it says something (issue 19, item 10)",
    part: "Bitstream",
    complaint: /Element '\{[^}]+\}OriginalName': This element is not expected\.$/,
  },
];

function allowed(part: string, complaint: string): string | undefined {
  return ALLOWED_DEPARTURES.find((d) => d.part === part && d.complaint.test(complaint))?.name;
}

interface Tally {
  parts: number;
  valid: number;
  departures: Map<string, number>;
  invalid: { kind: string; part: string; url: string; complaints: string[] }[];
  kinds: Map<string, number>;
}

let repo: RunningRepository;
let get: ReturnType<typeof authed>;
const tallies = new Map<string, Tally>();

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  get = authed(repo.url, (await login(repo.url, "manager")).token);
}, 60_000);

afterAll(async () => {
  await repo?.close();
});

/** The kind of Entity API document a URL the service handed out names. */
function kindOf(url: string): string | undefined {
  const path = new URL(url).pathname.replace(/^\/api\/entity\/v\d+\.\d+/, "");
  if (/\/content$/.test(path)) return undefined; // bytes, not XML
  if (/\/children$/.test(path)) return "children";
  if (/\/representations$/.test(path)) return "representations";
  if (/\/representations\/[^/]+\/\d+$/.test(path)) return "representation";
  if (/\/generations$/.test(path)) return "generations";
  if (/\/generations\/\d+$/.test(path)) return "generation";
  if (/\/bitstreams\/\d+$/.test(path)) return "bitstream";
  if (/\/identifiers$/.test(path)) return "identifiers";
  if (/\/links$/.test(path)) return "links";
  if (/\/event-actions$/.test(path)) return "event-actions";
  if (/\/metadata\/[^/]+$/.test(path)) return "metadata";
  const entity = /^\/(structural|information|content)-objects\/[0-9a-f-]{36}$/.exec(path)?.[1];
  if (entity) return { structural: "folder", information: "asset", content: "content object" }[entity];
  return undefined;
}

/** URLs a reply hands out: children, sub-resources, fragments, representations, generations, bitstreams. */
function urlsIn(reply: string, base: string): string[] {
  return [...reply.matchAll(/>(https?:\/\/[^<]+)</g)]
    .map((m) => (m[1] as string).replaceAll("&amp;", "&"))
    .filter((u) => u.startsWith(base));
}

function record(schema: XipSchema, kind: string, url: string, reply: string): void {
  const t = tallies.get(schema.version) as Tally;
  t.kinds.set(kind, (t.kinds.get(kind) ?? 0) + 1);
  for (const part of xipParts(reply, schema.ns)) {
    t.parts++;
    const complaints = validate(schema.validator, part.document);
    if (complaints.length === 0) {
      t.valid++;
      continue;
    }
    const names = complaints.map((c) => allowed(part.name, c));
    if (names.every((n) => n !== undefined)) {
      for (const n of new Set(names)) t.departures.set(n as string, (t.departures.get(n as string) ?? 0) + 1);
      continue;
    }
    t.invalid.push({ kind, part: part.name, url, complaints });
  }
}

async function send(method: string, path: string, body: string): Promise<string> {
  const res = await get(path, { method, body, headers: { "Content-Type": "application/xml;charset=UTF-8" } });
  const text = await res.text();
  expect(res.status, `${method} ${path}: ${text}`).toBe(200);
  return text;
}

async function walkVersion(schema: XipSchema): Promise<void> {
  const base = `${repo.url}/api/entity/v${schema.version}`;
  const fetched = new Map<string, number>();
  const seen = new Set<string>();
  // Depth first, so the caps still leave room for the content chain below the first assets.
  const stack = [`${base}/root/children?max=${PER_KIND}`];
  while (stack.length > 0) {
    const url = stack.pop() as string;
    const kind = url.includes("/root/children") ? "children" : kindOf(url);
    if (!kind || seen.has(url) || (fetched.get(kind) ?? 0) >= PER_KIND) continue;
    seen.add(url);
    fetched.set(kind, (fetched.get(kind) ?? 0) + 1);
    const res = await get(url.slice(repo.url.length));
    const reply = await res.text();
    expect(res.status, `${url}: ${reply}`).toBe(200);
    record(schema, kind, url, reply);
    stack.push(...urlsIn(reply, base).reverse());
  }
}

/** `nth`: which version this is, so each links the first asset to another one. */
async function writeReplies(schema: XipSchema, nth: number): Promise<void> {
  const E = `/api/entity/v${schema.version}`;
  const assets = repo.svc.db
    .prepare("SELECT ref FROM entities WHERE type = 'IO' AND deleted = 0 ORDER BY id LIMIT ?")
    .pluck()
    .all(VERSIONS.length + 1) as string[];
  const a = assets[0] as string;
  const b = assets[nth + 1] as string;
  const ns = schema.ns;
  record(
    schema,
    "identifier (added)",
    `${E}/information-objects/${a}/identifiers`,
    await send(
      "POST",
      `${E}/information-objects/${a}/identifiers`,
      `<Identifier xmlns="${ns}"><Type>schema-check</Type><Value>v${schema.version}</Value><Entity>${a}</Entity></Identifier>`,
    ),
  );
  record(
    schema,
    "link (added)",
    `${E}/information-objects/${a}/links`,
    await send(
      "POST",
      `${E}/information-objects/${a}/links`,
      `<Link xmlns="${ns}"><Type>http://purl.org/dc/terms/references</Type><FromEntity>${a}</FromEntity><ToEntity>${b}</ToEntity></Link>`,
    ),
  );
  for (const path of [
    `${E}/information-objects/${a}/identifiers`,
    `${E}/information-objects/${a}/event-actions?max=${PER_KIND}`,
    `${E}/events?max=${PER_KIND}`,
  ]) {
    const res = await get(path);
    const reply = await res.text();
    expect(res.status, `${path}: ${reply}`).toBe(200);
    record(
      schema,
      path.includes("/events?") ? "events" : (kindOf(`${repo.url}${path.split("?")[0]}`) ?? path),
      path,
      reply,
    );
  }
}

describe("the Entity API's XIP, per version, against the official XIP schemas", () => {
  for (const version of VERSIONS) {
    it(`v${version}: every XIP part of the walked and written replies is valid`, async () => {
      const schema = loadXipSchema(version);
      tallies.set(version, { parts: 0, valid: 0, departures: new Map(), invalid: [], kinds: new Map() });
      await writeReplies(schema, VERSIONS.indexOf(version));
      await walkVersion(schema);
      const t = tallies.get(version) as Tally;
      const departures = [...t.departures].map(([n, c]) => `${c} ${n}`).join(", ") || "none";
      console.log(
        `XIP v${version}: ${t.parts - t.invalid.length}/${t.parts} parts valid (${t.valid} as they stand, departures allowed: ${departures}); documents: ${[
          ...t.kinds,
        ]
          .map(([k, c]) => `${k} ${c}`)
          .join(", ")}`,
      );
      // Every kind of document the walk is meant to reach was reached.
      for (const kind of [
        "folder",
        "asset",
        "content object",
        "children",
        "representation",
        "generation",
        "bitstream",
        "identifiers",
        "event-actions",
        "metadata",
        "events",
      ]) {
        expect(t.kinds.get(kind) ?? 0, `${kind} documents at v${version}`).toBeGreaterThan(0);
      }
      const byComplaint = new Map<string, number>();
      for (const i of t.invalid) {
        const key = `${i.kind} ${i.part}: ${i.complaints.join(" | ").replace(/\{[^}]+\}/g, "")}`;
        byComplaint.set(key, (byComplaint.get(key) ?? 0) + 1);
      }
      const summary = [...byComplaint].map(([k, c]) => `${c} × ${k}`).join("\n");
      if (summary) console.log(summary);
      expect(t.invalid.length, summary).toBe(0);
    }, 60_000);
  }

  it("the validator is strict: an element a version does not define, or a missing required one, is refused", () => {
    const v60 = loadXipSchema("6.0");
    const link = (extra: string) =>
      `<XIP xmlns="${v60.ns}"><Link><Type>t</Type><FromEntity>a</FromEntity><ToEntity>b</ToEntity>${extra}</Link></XIP>`;
    expect(validate(v60.validator, link(""))).toEqual([]);
    expect(validate(v60.validator, link("<ApiId>x</ApiId>")).join()).toMatch(/ApiId.*not expected/);
    expect(
      validate(
        v60.validator,
        `<XIP xmlns="${v60.ns}"><Identifier><Type>t</Type><Value>v</Value></Identifier></XIP>`,
      ).join(),
    ).toMatch(/Missing child element.*Entity/);
  });
});

describe("OPEX manifests of an export, against the OPEX 1.2 schema", () => {
  it("every .opex file of a folder's export with its parent hierarchy is valid", async () => {
    const opex = loadOpexSchema();
    const folder = repo.svc.db
      .prepare(
        "SELECT ref FROM entities WHERE type = 'SO' AND deleted = 0 AND parent_ref IS NOT NULL ORDER BY id LIMIT 1",
      )
      .pluck()
      .get() as string;
    const done = await runExport(get, "structural-objects", folder, {
      hierarchy: "true",
      metadata: "MetadataWithEvents",
    });
    expect(done.status).toBe("COMPLETED");
    const zip = await unzip(await download(get, done.id));
    const manifests = [...zip.files].filter(([name]) => name.endsWith(".opex"));
    const invalid = manifests
      .map(([name, bytes]) => ({ name, complaints: validate(opex, bytes.toString("utf8")) }))
      .filter((m) => m.complaints.length > 0);
    console.log(`OPEX 1.2: ${manifests.length - invalid.length}/${manifests.length} manifests valid`);
    expect(manifests.length).toBeGreaterThan(2);
    expect(invalid, JSON.stringify(invalid.slice(0, 5), null, 1)).toEqual([]);
  }, 60_000);
});
