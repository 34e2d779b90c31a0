#!/usr/bin/env node
// Runs pyPreservica's own test suite (tests/ of a carj/pyPreservica checkout, unmodified) against the
// repository service, and prints how many tests passed and why the others failed.
//
// What it does, in order:
//  1. starts the repository service from this checkout's build (npm run build first) on a loopback port,
//     with an empty collection (--seed none: the demo users only) in a temporary data directory;
//  2. builds the test tenant that pyPreservica's tests read (the refs, titles, files, metadata, identifiers,
//     retention policies and metadata groups they name) through public APIs only: folders by the Entity API
//     (a client's Ref is kept), everything else in one XIP package ingested into the top folder (an XIP
//     package keeps its refs), then retention policies and an assignment, metadata groups and four
//     Integrity Check runs through their APIs;
//  3. runs the suite with the environment pyPreservica reads (PRESERVICA_SERVER, _USERNAME, _PASSWORD,
//     _TENANT) from a scratch directory that links the checkout's tests/, test_data/ and pyPreservica/ and
//     holds the credentials.properties its deletion tests read (manager.username / manager.password);
//  4. prints passed / failed / skipped, and the failures grouped by cause.
//
// Two things are adjusted around the suite, never in it: pyPreservica's clients default to https, and the
// service speaks plain http on loopback, so a pytest plugin makes http the default protocol; and
// test_users.py waits 60 s before each test (a real server's rate limit), which the plugin skips.
//
// Needs /usr/bin/python3 with pytest and what pyPreservica imports (Debian: python3-pytest python3-requests
// python3-dateutil python3-tqdm python3-pyotp python3-boto3 python3-s3transfer python3-xmlschema).
// Get pyPreservica without committing it: git --git-dir=<mirror> archive HEAD | tar -x -C /tmp/pypreservica
//
// Usage: node scripts/pypreservica-suite.mjs --pypreservica /tmp/pypreservica [--python /usr/bin/python3]
//        [--keep] [--cli <another build's dist/src/cli.js>] [-- <extra pytest arguments, e.g. -k test_entity>]
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import yazl from "yazl";
import { startRepository, stop } from "../bench/spawn.mjs";

const { values, positionals } = parseArgs({
  options: {
    pypreservica: { type: "string" },
    python: { type: "string", default: "/usr/bin/python3" },
    keep: { type: "boolean", default: false },
    // Another build of the service (e.g. an older checkout's dist/src/cli.js), to compare figures.
    cli: { type: "string" },
  },
  allowPositionals: true,
});
if (!values.pypreservica) {
  console.error("Usage: node scripts/pypreservica-suite.mjs --pypreservica <carj/pyPreservica checkout>");
  process.exit(2);
}
const PYP = resolve(values.pypreservica);
for (const p of ["pyPreservica/entityAPI.py", "tests", "test_data/LC-USZ62-20901.tiff"]) {
  if (!existsSync(join(PYP, p))) {
    console.error(`${PYP} is not a pyPreservica checkout: ${p} is missing`);
    process.exit(2);
  }
}
const CLI = values.cli ? resolve(values.cli) : fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
if (!existsSync(CLI)) {
  console.error(`${CLI} is missing: run npm run build first`);
  process.exit(2);
}
const MANAGER = { username: "manager", password: "manager-demo-pw", tenant: "DEMO" };
const XIP = "http://preservica.com/XIP/v6.0";
const RM = "http://preservica.com/RetentionManagement/v6.2";
const WF = "http://workflow.preservica.com";
const DC = "http://purl.org/dc/elements/1.1/";
const ADMIN = "http://preservica.com/AdminAPI/v7.7";

// ---- the test tenant -----------------------------------------------------------------------------------
// Refs and facts named by pyPreservica's tests (tests/*.py); everything else gets a ref derived from a name.
const REF = {
  top: "9fd239eb-19a3-4a46-9495-40fd9a5d8f93", // parent of "Amelia Earhart"; where ingest tests put assets
  amelia: "ebd977f6-bebd-4ecf-99be-e054989f9af4", // "Amelia Earhart": 171 assets
  asset: "683f9db7-ff81-4859-9c03-f68cfa5d9c3d", // LC-USZ62-20901, one TIFF of 1,790,114 bytes
  co: "0f2997f7-728c-4e55-9f92-381ed1260d70",
  moved: "05e2750d-bd68-41a0-af25-31cb3498cc2d", // LC-USZ62-79099
  linked: "de1c32a3-bd9f-4843-a5f1-46df080f83d2",
  bitstreams: "b14848b5-4c4d-4d8a-b394-3b764069ee93", // TIFF 1,942,466 bytes + "Access Copy" JPEG; HR Records
  replaced: "2b769cf6-f56e-4474-9604-1f3bf7588278", // a content object whose content is replaced
  download: "799b467f-050d-415f-b8ec-7c74b343f628", // a file of 1,864,130 bytes
  thumbs: [
    "464444f7-8a6e-40f3-86c3-1dd2a51cfeeb",
    "8d268bed-93d7-449b-91e4-2e7e86562a07",
    "d5048e76-79c5-4ca7-99c9-a202c8f6dc8b",
  ],
  searchFolder: "ce3895dc-adec-4e20-9326-e1b36ffb60df", // open and closed assets, and folders, below it
  crawl: "daa88307-4a0b-4962-a5a9-6a1387f9f876", // test_crawl_fs uploads below it
};
const AMELIA_CHILDREN = 171;

/** A UUID derived from a name, so every run builds the same tenant. */
function uuidFrom(name) {
  const h = createHash("sha256").update(`pypreservica-suite:${name}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A file whose first bytes are a TIFF header (identified as TIFF by signature), padded to `size`. */
function tiffOfSize(size) {
  const b = Buffer.alloc(size, 0x20);
  Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]).copy(b);
  return b;
}

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const dcDoc = (fields) =>
  `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="${DC}">${Object.entries(fields)
    .map(([k, v]) => `<dc:${k}>${esc(v)}</dc:${k}>`)
    .join("")}</oai_dc:dc>`;

/** The tenant as one XIP document and the files it names (under content/{coRef}/). */
function tenantPackage() {
  const testTiff = readFileSync(join(PYP, "test_data/LC-USZ62-20901.tiff"));
  const testJpeg = readFileSync(join(PYP, "test_data/LC-USZ62-20901.jpg"));
  const parts = [];
  const files = [];
  const folder = (ref, title, parent, { description = title, tag = "open" } = {}) =>
    parts.push(
      `<StructuralObject><Ref>${ref}</Ref><Title>${esc(title)}</Title><Description>${esc(description)}</Description><SecurityTag>${tag}</SecurityTag><Parent>${parent}</Parent></StructuralObject>`,
    );
  const metadata = (entity, schemaUri, doc) =>
    parts.push(
      `<Metadata schemaUri="${schemaUri}"><Ref>${uuidFrom(`md:${entity}:${schemaUri}`)}</Ref><Entity>${entity}</Entity><Content>${doc}</Content></Metadata>`,
    );
  /** An asset with one content object per file, each in its own representation of the given type. */
  const asset = (ref, title, parent, { description, tag = "open", reps = [] } = {}) => {
    parts.push(
      `<InformationObject><Ref>${ref}</Ref><Title>${esc(title)}</Title>${description ? `<Description>${esc(description)}</Description>` : ""}<SecurityTag>${tag}</SecurityTag><Parent>${parent}</Parent></InformationObject>`,
    );
    for (const rep of reps) {
      const coRef = rep.co ?? uuidFrom(`co:${ref}:${rep.type}`);
      parts.push(
        `<Representation><InformationObject>${ref}</InformationObject>${rep.name ? `<Name>${esc(rep.name)}</Name>` : ""}<Type>${rep.type}</Type><ContentObjects><ContentObject>${coRef}</ContentObject></ContentObjects></Representation>`,
      );
      parts.push(
        `<ContentObject><Ref>${coRef}</Ref><Title>${esc(rep.coTitle ?? title)}</Title><Description>${esc(rep.coTitle ?? title)}</Description><SecurityTag>${tag}</SecurityTag><Parent>${ref}</Parent></ContentObject>`,
      );
      parts.push(
        `<Generation original="${rep.type === "Preservation"}" active="true"><ContentObject>${coRef}</ContentObject><Bitstreams><Bitstream>${coRef}/${esc(rep.filename)}</Bitstream></Bitstreams></Generation>`,
      );
      const sha1 = createHash("sha1").update(rep.bytes).digest("hex");
      parts.push(
        `<Bitstream><Filename>${esc(rep.filename)}</Filename><FileSize>${rep.bytes.length}</FileSize><PhysicalLocation>${coRef}</PhysicalLocation><Fixities><Fixity><FixityAlgorithmRef>SHA1</FixityAlgorithmRef><FixityValue>${sha1}</FixityValue></Fixity></Fixities></Bitstream>`,
      );
      files.push({ path: `content/${coRef}/${rep.filename}`, bytes: rep.bytes });
    }
  };

  folder(REF.amelia, "Amelia Earhart", REF.top);
  metadata(REF.amelia, DC, dcDoc({ identifier: "LC-USZ62-43601", description: "a", title: "Amelia Earhart" }));
  metadata(REF.amelia, "http://www.loc.gov/mods/v3", `<mods xmlns="http://www.loc.gov/mods/v3"><titleInfo><title>Amelia Earhart</title></titleInfo></mods>`);
  metadata(REF.amelia, "https://www.example.org/collection", `<collection xmlns="https://www.example.org/collection"><name>pyPreservica test data</name></collection>`);
  asset(REF.asset, "LC-USZ62-20901", REF.amelia, {
    reps: [{ type: "Preservation", co: REF.co, filename: "LC-USZ62-20901.tiff", bytes: testTiff }],
  });
  metadata(REF.asset, DC, dcDoc({ title: "LC-USZ62-20901", filename: "LC-USZ62-20901.tiff" }));
  metadata(REF.asset, "http://www.loc.gov/mods/v3", `<mods xmlns="http://www.loc.gov/mods/v3"><titleInfo><title>LC-USZ62-20901</title></titleInfo></mods>`);
  // An asset is ingested with its content: each of the others holds one small text file.
  const small = (title) => ({
    reps: [{ type: "Preservation", filename: `${title}.txt`, bytes: Buffer.from(`${title}\n`) }],
  });
  asset(REF.moved, "LC-USZ62-79099", REF.amelia, small("LC-USZ62-79099"));
  asset(REF.linked, "LC-USZ62-60001", REF.amelia, small("LC-USZ62-60001"));
  for (let i = 3; i < AMELIA_CHILDREN; i++) {
    const title = `LC-USZ62-${String(70000 + i)}`;
    asset(uuidFrom(`amelia:${i}`), title, REF.amelia, small(title));
  }

  const files2 = uuidFrom("folder:files");
  folder(files2, "pyPreservica files", REF.top);
  asset(REF.bitstreams, "LC-USZ62-51820", files2, {
    reps: [
      { type: "Preservation", filename: "LC-USZ62-51820.tiff", bytes: tiffOfSize(1942466) },
      { type: "Access", name: "Access Copy", filename: "LC-USZ62-51820.jpg", bytes: testJpeg },
    ],
  });
  asset(uuidFrom("asset:replaced"), "LC-USZ62-20902", files2, {
    reps: [{ type: "Preservation", co: REF.replaced, filename: "LC-USZ62-20902.tiff", bytes: tiffOfSize(4096) }],
  });
  asset(REF.download, "LC-USZ62-99999", files2, {
    reps: [{ type: "Preservation", filename: "LC-USZ62-99999.jpg", bytes: jpegOfSize(testJpeg, 1864130) }],
  });
  REF.thumbs.forEach((ref, i) =>
    asset(ref, `Thumbnail ${i + 1}`, files2, {
      reps: [{ type: "Preservation", filename: `thumbnail-${i + 1}.jpg`, bytes: testJpeg }],
    }),
  );

  folder(REF.searchFolder, "pyPreservica search", REF.top);
  folder(REF.crawl, "pyPreservica crawl", REF.top);
  for (const [i, tag] of ["open", "open", "closed"].entries()) {
    const sub = uuidFrom(`search:folder:${i}`);
    folder(sub, `Search folder ${i + 1}`, REF.searchFolder, { tag });
    asset(uuidFrom(`search:asset:${i}`), `Search asset ${i + 1}`, sub, { tag, ...small(`search-asset-${i + 1}`) });
    asset(uuidFrom(`search:top-asset:${i}`), `Search item ${i + 1}`, REF.searchFolder, {
      tag,
      ...small(`search-item-${i + 1}`),
    });
  }

  const xip = `<?xml version="1.0" encoding="UTF-8"?><XIP xmlns="${XIP}">${parts.join("")}</XIP>`;
  return { xip, files };
}

/** A JPEG of `size` bytes: the test image, padded after its end marker (readers stop there). */
function jpegOfSize(jpeg, size) {
  const b = Buffer.alloc(size, 0);
  jpeg.copy(b, 0, 0, Math.min(jpeg.length, size));
  return b;
}

function zipOf(entries) {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(e.bytes, e.path);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks = [];
    zip.outputStream.on("data", (c) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
}

// ---- the service ---------------------------------------------------------------------------------------

async function signIn(url) {
  const res = await fetch(`${url}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams(MANAGER),
  });
  if (!res.ok) throw new Error(`login: ${res.status} ${await res.text()}`);
  const token = (await res.json()).token;
  return async (path, init = {}, expect = [200, 201, 202, 204]) => {
    const r = await fetch(`${url}${path}`, {
      ...init,
      headers: { "Preservica-Access-Token": token, ...(init.headers ?? {}) },
    });
    const body = await r.text();
    if (!expect.includes(r.status)) throw new Error(`${init.method ?? "GET"} ${path}: ${r.status} ${body}`);
    return body;
  };
}

const XML_TYPE = { "Content-Type": "application/xml;charset=UTF-8" };

async function waitFor(call, token) {
  for (let i = 0; i < 6000; i++) {
    const status = /<Status>([^<]+)<\/Status>/.exec(await call(`/api/entity/progress/${token}`))?.[1];
    if (status && status !== "ACTIVE" && status !== "PENDING") return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`action ${token} did not finish`);
}

async function buildTenant(call) {
  await call("/api/entity/structural-objects", {
    method: "POST",
    headers: XML_TYPE,
    body: `<StructuralObject xmlns="${XIP}"><Ref>${REF.top}</Ref><Title>pyPreservica</Title><Description>pyPreservica test data</Description><SecurityTag>open</SecurityTag></StructuralObject>`,
  });
  const { xip, files } = tenantPackage();
  const zip = await zipOf([{ path: "metadata.xml", bytes: Buffer.from(xip) }, ...files]);
  const token = await call(`/api/entity/structural-objects/${REF.top}`, {
    method: "POST",
    headers: { "Content-Type": "application/octet-stream" },
    body: zip,
  });
  const status = await waitFor(call, token.trim());
  if (status !== "COMPLETED") throw new Error(`the tenant package ended ${status}`);

  const policy = (name, assignable) =>
    call("/api/entity/retention-policies", {
      method: "POST",
      headers: XML_TYPE,
      body: `<RetentionPolicy xmlns="${RM}"><Name>${name}</Name><Description>${name}</Description><SecurityTag>open</SecurityTag><StartDateField>xip.created</StartDateField><Period>7</Period><PeriodUnit>YEAR</PeriodUnit><ExpiryAction>REVIEW</ExpiryAction><Restriction>DELETE</Restriction><Assignable>${assignable}</Assignable></RetentionPolicy>`,
    });
  await policy("Standard Policy", "False");
  const hr = await policy("HR Records", "True");
  const hrRef = /<(?:\w+:)?Ref>([^<]+)</.exec(hr)?.[1];
  await call(`/api/entity/information-objects/${REF.bitstreams}/retention-assignments`, {
    method: "POST",
    headers: XML_TYPE,
    body: `<RetentionAssignment xmlns="${RM}"><RetentionPolicy>${hrRef}</RetentionPolicy></RetentionAssignment>`,
  });

  const group = (name, n) =>
    call("/api/metadata/groups", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        name,
        description: name,
        fields: Array.from({ length: n }, (_, i) => ({ id: `field_${i + 1}`, name: `Field ${i + 1}`, type: "STRING" })),
      }),
    });
  await group("digiteek", 19);
  await group("McD Metadata", 3);

  // The role test_users gives new users, the adapter name test_bitstream looks for among a bitstream's
  // storage locations, and more than ten schemas, documents and transforms (test_schema), Dublin Core's
  // among them.
  await call("/api/admin/security/roles", { method: "POST", headers: XML_TYPE, body: `<Role xmlns="${ADMIN}">SDB_INGEST_USER</Role>` });
  const adapters = JSON.parse(await call("/api/storage/adapters")).value;
  const builtIn = (adapters.adapters ?? adapters).find((a) => a.builtIn);
  await call(`/api/storage/adapters/${builtIn.id}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Primary Adapter" }),
  });
  const namespaces = [DC, ...Array.from({ length: 11 }, (_, i) => `https://example.org/pypreservica/ns${i + 1}`)];
  for (const [i, ns] of namespaces.entries()) {
    const q = (o) => new URLSearchParams(o).toString();
    if (ns !== DC || !(await call("/api/admin/schemas")).includes(`<SchemaUri>${DC}</SchemaUri>`)) {
      await call(`/api/admin/schemas?${q({ name: `Schema ${i + 1}`, description: ns })}`, {
        method: "POST",
        headers: XML_TYPE,
        body: `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${ns}"><xs:element name="record"/></xs:schema>`,
      });
    }
    await call(`/api/admin/documents?${q({ name: `Template ${i + 1}`, type: "MetadataTemplate" })}`, {
      method: "POST",
      headers: XML_TYPE,
      body: `<record xmlns="${ns}"/>`,
    });
    await call(`/api/admin/transforms?${q({ name: `View ${i + 1}`, from: ns, to: "http://www.w3.org/1999/xhtml", purpose: "view" })}`, {
      method: "POST",
      headers: XML_TYPE,
      body: `<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0"><xsl:template match="/"><html xmlns="http://www.w3.org/1999/xhtml"/></xsl:template></xsl:stylesheet>`,
    });
  }

  // The transforms test_schema reads by their URIs (and deletes and adds back, for UNOG's).
  for (const [name, from] of [
    ["MODS to CMIS", "http://www.loc.gov/mods/v3"],
    ["UNOG CMIS", "https://archive.unog.ch"],
  ]) {
    const q = new URLSearchParams({ name, from, to: "http://www.tessella.com/sdb/cmis/metadata", purpose: "cmis" });
    await call(`/api/admin/transforms?${q}`, {
      method: "POST",
      headers: XML_TYPE,
      body: `<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0"><xsl:template match="/"/></xsl:stylesheet>`,
    });
  }

  // Four Integrity Check runs over the folder holding the asset whose history test_integrity_check reads.
  for (let i = 0; i < 4; i++) {
    const started = await call("/sdb/rest/workflow/instances", {
      method: "POST",
      headers: XML_TYPE,
      body: `<StartWorkflowRequest xmlns="${WF}"><WorkflowContextId>11</WorkflowContextId><WorkflowContextName>Integrity Check</WorkflowContextName><Parameter><Key>folder</Key><Value>${uuidFrom("folder:files")}</Value></Parameter></StartWorkflowRequest>`,
    });
    const id = /<Id>(\d+)<\/Id>/.exec(started)?.[1];
    for (let t = 0; t < 6000; t++) {
      const state = /<State>([^<]+)<\/State>/.exec(await call(`/sdb/rest/workflow/instances/${id}`))?.[1];
      if (state && state !== "Active") break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// ---- the suite -----------------------------------------------------------------------------------------

const PLUGIN = `
# Loaded with -p: adjusts the harness around pyPreservica's suite, never the suite itself.
import pyPreservica.common as common

_init = common.AuthenticatedAPI.__init__

def _over_http(self, *args, **kwargs):
    # The service speaks plain http on loopback; pyPreservica's clients default to https, and every API
    # class passes its protocol on positionally (the 7th parameter).
    args = list(args)
    if len(args) > 6:
        args[6] = "http"
    else:
        kwargs["protocol"] = "http"
    _init(self, *args, **kwargs)

common.AuthenticatedAPI.__init__ = _over_http

def pytest_collection_modifyitems(session, config, items):
    for item in items:
        # test_users.py sleeps 60 s before each test (a real server's rate limit): not needed here.
        if getattr(item.module, "__name__", "").endswith("test_users") and hasattr(item.module, "sleep"):
            item.module.sleep = lambda seconds: None
`;

function runPytest(url, work) {
  const { host } = new URL(url);
  const env = {
    ...process.env,
    PRESERVICA_SERVER: host,
    PRESERVICA_USERNAME: MANAGER.username,
    PRESERVICA_PASSWORD: MANAGER.password,
    PRESERVICA_TENANT: MANAGER.tenant,
    PYTHONPATH: work,
    PYTHONDONTWRITEBYTECODE: "1",
  };
  const args = ["-m", "pytest", "tests", "-p", "pyp_suite_plugin", "-p", "no:cacheprovider", "-q", "-rN"];
  args.push(`--junitxml=${join(work, "report.xml")}`, ...positionals);
  return new Promise((resolve) => {
    const child = spawn(values.python, args, { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      out += d;
    });
    child.once("exit", (code) => resolve({ code, out }));
  });
}

/** Tests whose data no public API can make, or that need the internet: named so their failures are told apart. */
const NOT_MAKEABLE = [
  [/test_get_workflow_instances|test_get_workflow_contexts_type/, "needs the real server's workflow history and contexts"],
  [/test_can_get_(small|med|large)_thumbnail/, "needs the real thumbnailer's exact image sizes"],
];
/** Tests that read the live preservation registry's contents (hundreds of records, their GUIDs): not built here. */
const LIVE_REGISTRY = /test_par::test_(format_famil(y|ies)|format|preservation_action_types?|propert(y|ies))$/;

function causeOf(name, message, detail) {
  for (const [re, why] of NOT_MAKEABLE) if (re.test(name)) return `data that cannot be made here: ${why}`;
  if (LIVE_REGISTRY.test(name)) return "data not built here: the live PAR registry's records and GUIDs";
  const text = `${message}\n${detail}`;
  if (/advisory_timeout/.test(text)) {
    return "environment: Debian's boto3 is older than the one pyPreservica needs (>= 1.38) for its S3 upload";
  }
  if (/ConnectionError|NameResolution|Max retries exceeded with url: .*https|SSLError|getaddrinfo|amazonaws|youtube/i.test(text)) {
    return "needs the internet (or https to a real server)";
  }
  const line = (message || detail.split("\n").find((l) => /^E\s/.test(l)) || "").replace(/^E\s+/, "");
  return `service: ${line.slice(0, 160)}`;
}

function report(xml) {
  const cases = [...xml.matchAll(/<testcase ([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => {
    const attr = (k) => new RegExp(`(?:^|\\s)${k}="([^"]*)"`).exec(m[1])?.[1] ?? "";
    const body = m[3] ?? "";
    const failure = /<(failure|error)(?: message="([^"]*)")?[^>]*>([\s\S]*?)<\/\1>|<(failure|error)(?: message="([^"]*)")?[^>]*\/>/.exec(body);
    const unescape = (s) => (s ?? "").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&apos;/g, "'").replace(/&#10;/g, "\n").replace(/&amp;/g, "&");
    return {
      name: `${attr("classname").replace(/^tests\./, "")}::${attr("name")}`,
      skipped: /<skipped/.test(body),
      failed: Boolean(failure),
      message: unescape(failure?.[2] ?? failure?.[5]),
      detail: unescape(failure?.[3]),
    };
  });
  const failed = cases.filter((c) => c.failed);
  const skipped = cases.filter((c) => c.skipped);
  const passed = cases.length - failed.length - skipped.length;
  console.log(`\npyPreservica's suite against the repository service: ${cases.length} tests`);
  console.log(`  passed ${passed}, failed ${failed.length}, skipped ${skipped.length}`);
  const byCause = new Map();
  for (const c of failed) {
    const cause = causeOf(c.name, c.message, c.detail);
    byCause.set(cause, [...(byCause.get(cause) ?? []), c.name]);
  }
  const groups = [...byCause.entries()].sort((a, b) => b[1].length - a[1].length);
  const kind = (cause) => cause.split(":")[0];
  const totals = new Map();
  for (const [cause, names] of groups) totals.set(kind(cause), (totals.get(kind(cause)) ?? 0) + names.length);
  console.log(`  failed by cause: ${[...totals.entries()].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);
  for (const [cause, names] of groups) {
    console.log(`\n  ${names.length} × ${cause}`);
    for (const n of names) console.log(`      ${n}`);
  }
  return { passed, failed: failed.length };
}

const dataDir = mkdtempSync(join(tmpdir(), "pypreservica-suite-data-"));
const work = mkdtempSync(join(tmpdir(), "pypreservica-suite-run-"));
const { child, url } = await startRepository(CLI, ["--data", dataDir, "--seed", "none"]);
try {
  const call = await signIn(url);
  const t0 = performance.now();
  await buildTenant(call);
  console.log(`service ${url}; test tenant built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const p of ["tests", "test_data", "pyPreservica"]) symlinkSync(join(PYP, p), join(work, p));
  writeFileSync(join(work, "pyp_suite_plugin.py"), PLUGIN);
  writeFileSync(
    join(work, "credentials.properties"),
    `[credentials]\nusername=${MANAGER.username}\npassword=${MANAGER.password}\ntenant=${MANAGER.tenant}\nserver=${new URL(url).host}\nmanager.username=${MANAGER.username}\nmanager.password=${MANAGER.password}\n`,
  );
  mkdirSync(join(work, "out"), { recursive: true });
  const { out } = await runPytest(url, work);
  const reportPath = join(work, "report.xml");
  if (!existsSync(reportPath)) {
    console.error(out.slice(-4000));
    throw new Error("pytest wrote no report");
  }
  report(readFileSync(reportPath, "utf8"));
} finally {
  await stop(child);
  if (!values.keep) {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  } else {
    console.log(`\nkept: service data ${dataDir}, run directory ${work}`);
  }
}
