import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { type IncomingHttpHeaders, request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import { createApp } from "../../repository/app.js";
import { appRoutes, patternRegex } from "../../repository/http/allowed-methods.js";
import { ensureFileText } from "../../repository/search/file-text.js";
import type { RunningRepository } from "../../repository/server.js";
import { addSecurityTag } from "../../repository/store/auth.js";
import { login, startTestRepository } from "../helpers/repository.js";
import type { Body, Case, CaseModule } from "./robustness-cases/case.js";
import { comparedColumns, READ_SET_TABLES, storeHash } from "./writes/store-hash.js";

/**
 * Junk at every route of the repository service, reads and writes. Whatever arrives, the answer is
 * below 500, an error is JSON `{success:false, message}` without stack frames or file paths (and without
 * megabytes of the junk echoed back), XML replies stay well-formed, the service still answers a normal
 * request afterwards, logs no internal error, and nothing stored changes: the write-side tables are
 * compared after every case, and every table and the content store at the end.
 *
 * Cases are generated from tables: routes (from repository/routes/*.ts and app.ts) crossed with junk
 * values. Which routes exist comes from the app itself: a route that no case reaches fails the test
 * "sends junk to every route the app serves". Paths, header values and bodies may hold placeholders
 * ({so}, {io}, {co}, {token} …) that are filled from the demo collection and the fixtures made on it
 * once it is running. Requests go through node:http, which sends the path exactly as written (fetch
 * would normalise `..` and re-encode). The manager's token is used throughout: it holds every right, so
 * each refusal is due to the junk, not to a permission.
 */

/**
 * Placeholder values: demo entities (so, io, co, otherSo, otherIo), fragments (soMref, ioMref), an
 * event, identifiers (soId, ioId, coId) and a link (ioLink, from io to so), retention policies (policy
 * and policy2 assigned to io as assignment and assignment2, policy2 since made unassignable; spare
 * unassigned), metadata groups (group, group2; groupColumn is a CSV column of group) and forms (form of
 * group; form2 of none), a folder awaiting deletion (pendingFolder, deletion pending) and one in the
 * recycle bin (binned, deletion done); the manager's token, the time for external auth (now) and a
 * pending 2FA continuation token of the `twofactor` user.
 */
type Fixtures = Record<string, string>;

/**
 * APIs added since keep their junk in robustness-cases/<area>.cases.ts (see case.ts): loaded here, in
 * name order, into the one table.
 */
const CASE_DIR = fileURLToPath(new URL("./robustness-cases/", import.meta.url));
const CASE_MODULES: CaseModule[] = await Promise.all(
  readdirSync(CASE_DIR)
    .filter((f) => f.endsWith(".cases.ts"))
    .sort()
    .map((f) => import(pathToFileURL(join(CASE_DIR, f)).href) as Promise<CaseModule>),
);

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let repo: RunningRepository;
let fx: Fixtures;
/** The service logs every 500 it answers (and every one it could not deliver) with console.error. */
let errorLog: MockInstance<typeof console.error>;

function fill(text: string): string {
  return text.replace(/\{(\w+)\}/g, (whole, k: string) => fx[k] ?? whole);
}

function send(c: Case): Promise<Reply> {
  const url = new URL(repo.url);
  const headers: Record<string, string> = {};
  if (c.auth !== false) headers["Preservica-Access-Token"] = fx.token as string;
  for (const [k, v] of Object.entries(c.headers ?? {})) headers[k] = fill(v);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method: c.method ?? "GET", path: fill(c.path), headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on("error", reject);
      },
    );
    // "Never a hang": no answer within 3 s fails the case (the slowest answer takes a tenth of that).
    const timer = setTimeout(() => req.destroy(new Error(`no answer within 3 s: ${c.name}`)), 3000);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    const body = c.body;
    if (body === undefined) req.end();
    else if (typeof body === "object" && "chunks" in body) {
      for (const chunk of body.chunks) req.write(chunk);
      req.end();
    } else {
      const whole =
        typeof body === "string"
          ? Buffer.from(fill(body))
          : Buffer.isBuffer(body)
            ? body
            : Buffer.from(fill(body.latin1), "latin1");
      // node:http declares no length of its own on a DELETE with a body, so the body would be read as
      // the next request. Clients declare it; so does this one, for every whole body.
      const declared = Object.keys(headers).some((h) => h.toLowerCase() === "content-length");
      if (!declared && !["GET", "HEAD"].includes(c.method ?? "GET"))
        req.setHeader("Content-Length", whole.length);
      req.end(whole);
    }
  });
}

/** The first HTTP response in `raw`: status, headers, and its body (by Content-Length when given). */
function firstResponse(raw: Buffer): Reply & { complete: boolean } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, split < 0 ? raw.length : split).toString("latin1");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  const headers: IncomingHttpHeaders = {};
  for (const line of head.split("\r\n").slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = split < 0 ? Buffer.alloc(0) : raw.subarray(split + 4);
  const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  const body = length === undefined ? rest : rest.subarray(0, length);
  return { status, headers, body, complete: split >= 0 && length !== undefined && rest.length >= length };
}

/**
 * Bytes straight onto a socket, for requests no HTTP client would send. By default the client then
 * half-closes (nothing more comes); with `waitForAnswer` it keeps sending side open until the first
 * answer is in, as a client whose request the server has taken whole would.
 */
function sendRaw(text: string, timeoutMs = 10_000, waitForAnswer = false): Promise<Reply> {
  const url = new URL(repo.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on("data", (d) => {
      chunks.push(d);
      if (waitForAnswer && firstResponse(Buffer.concat(chunks)).complete) socket.end();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const { status, headers, body } = firstResponse(Buffer.concat(chunks));
      resolve({ status, headers, body });
    });
    const bytes = Buffer.from(fill(text), "latin1");
    if (waitForAnswer) socket.write(bytes);
    else socket.end(bytes);
  });
}

/**
 * A stack frame: `at fn (where:line:col)` (a message's "at once (…)" is no frame), or a file position.
 */
const STACK_FRAME = /\n\s+at |\bat (?:async )?[\w.<>[\]]+ \([^()\n]*:\d+(?::\d+)?\)|\.(?:ts|js|mjs|cjs):\d+/;
/**
 * A server-side file path: an absolute path starting a word (URL paths follow a host), a tell-tale
 * name, or a Windows path (a drive letter, one backslash or two as JSON escapes it, then a name; not
 * the `x:\"` of a quoted XML prefix).
 */
const FILE_PATH =
  /(?:^|[\s"'(=])\/(?:work|tmp|home|usr|var|opt|private|root)\/|node_modules|preservation-repo-|\b[A-Za-z]:(?:\\){1,2}\w/;

/**
 * The S3-compatible upload answers as S3 does: errors are `<Error>` documents with a Code and a
 * Message, and what S3 does not offer is 501 NotImplemented (S3's own answer), not an internal error.
 */
const isS3 = (path: string) => /^\/api\/s3(?:[/?]|$)/.test(path);

function checkReply(name: string, method: string, r: Reply, path = ""): void {
  const where = `${name} → ${r.status} ${r.body.toString("utf8").slice(0, 300)}`;
  expect(r.status, where).toBeGreaterThanOrEqual(200);
  if (!(isS3(path) && r.status === 501)) expect(r.status, where).toBeLessThan(500);
  const type = String(r.headers["content-type"] ?? "");
  const readable = r.status >= 400 || /json|xml/.test(type);
  if (!readable) return; // a stored file's bytes
  const text = r.body.toString("utf8");
  expect(text, where).not.toMatch(STACK_FRAME);
  expect(text, where).not.toMatch(FILE_PATH);
  // An external entity is never expanded: no file's content comes back.
  expect(text, where).not.toMatch(/root:x?:0:0/);
  if (r.status >= 400 && isS3(path)) {
    expect(type, where).toMatch(/^application\/xml/);
    if (method === "HEAD") return;
    expect(XMLValidator.validate(text), where).toBe(true);
    const m = /<Error><Code>(\w+)<\/Code><Message>([^<]*)<\/Message>/.exec(text);
    expect(m, where).not.toBeNull();
    expect(String(m?.[2]).length, where).toBeGreaterThan(10);
    expect(text.length, `${where}: the message echoes the junk`).toBeLessThan(MAX_MESSAGE);
  } else if (r.status >= 400) {
    expect(type, where).toMatch(/^application\/json/);
    if (method === "HEAD") return;
    const body = JSON.parse(text) as { success?: unknown; message?: unknown };
    expect(body.success, where).toBe(false);
    expect(typeof body.message, where).toBe("string");
    expect(String(body.message).length, where).toBeGreaterThan(10);
    expect(String(body.message).length, `${where}: the message echoes the junk`).toBeLessThan(MAX_MESSAGE);
  } else if (method !== "HEAD" && /xml/.test(type)) {
    expect(XMLValidator.validate(text), where).toBe(true);
  } else if (method !== "HEAD" && /json/.test(type)) {
    expect(() => JSON.parse(text), where).not.toThrow();
  }
}

/** The message of an error reply: JSON's `message`, or the `<Message>` of S3's `<Error>`. */
function errorMessage(r: Reply, path: string): string {
  const text = r.body.toString("utf8");
  if (!isS3(path)) return String((JSON.parse(text) as { message?: unknown }).message);
  const m = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? "";
  return m
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
}

/** After a case: the service answers a normal request, and logged no internal error meanwhile. */
async function stillServing(name: string, loggedBefore: number): Promise<void> {
  const r = await send({ name: "health", path: "/api/entity/information-objects/{io}" });
  expect(r.status, `a normal request after ${name}`).toBe(200);
  const logged = errorLog.mock.calls
    .slice(loggedBefore)
    .map((args) => args.map(String).join(" ").slice(0, 300));
  expect(logged, `internal errors logged during ${name}`).toEqual([]);
}

/** A small seeded PRNG (mulberry32) so property loops reproduce. */
function prng(seed: number) {
  let s = seed | 0;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
  };
}

// ---------------------------------------------------------------------------------------------------
// Routes

const E = "/api/entity";
const C = "/api/content";
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const JSON_TYPE = { "Content-Type": "application/json" };

interface Route {
  path: string;
  /** Takes start/max. */
  paged?: boolean;
  /** Placeholders in the path that name an entity, fragment or event. */
  refs: string[];
}

const TYPE_PATHS = { so: "structural-objects", io: "information-objects", co: "content-objects" } as const;
const refsIn = (path: string) =>
  [...path.matchAll(/\{(so|io|co|soMref|ioMref|event)\}/g)].map((m) => m[1] as string);
const route = (path: string, paged = false): Route => ({ path, paged, refs: refsIn(path) });

/** Every Entity API route (entity.ts, entity-files.ts, entity-events.ts), relative to a version prefix. */
const ENTITY_ROUTES: Route[] = [
  route("/versiondetails/version"),
  route("/root/children", true),
  route("/structural-objects/{so}/children", true),
  ...Object.entries(TYPE_PATHS).flatMap(([ph, p]) => [
    route(`/${p}/{${ph}}`),
    route(`/${p}/{${ph}}/metadata`, true),
    route(`/${p}/{${ph}}/identifiers`, true),
    route(`/${p}/{${ph}}/links`, true),
    route(`/${p}/{${ph}}/event-actions`, true),
  ]),
  route("/structural-objects/{so}/metadata/{soMref}"),
  route("/information-objects/{io}/metadata/{ioMref}"),
  route("/information-objects/{io}/representations", true),
  route("/information-objects/{io}/representations/Preservation"),
  route("/information-objects/{io}/representations/Preservation/1"),
  route("/content-objects/{co}/generations", true),
  route("/content-objects/{co}/generations/1"),
  route("/content-objects/{co}/generations/1/bitstreams/1"),
  route("/content-objects/{co}/generations/1/bitstreams/1/content"),
  route("/content-objects/{co}/generations/1/bitstreams/1/integrity-check-history", true),
  route("/events", true),
  route("/events/{event}/event-actions", true),
  route("/entities/updated-since?date=2000-01-01", true),
  route("/entities/by-identifier?type=code&value=x", true),
];

/** Content API listings (content.ts): GET or POST, parameters in the query or the body. */
const LISTINGS = [
  "/search?q=maps",
  "/search-within?parenthierarchy=sdb:SO|{so}&q=",
  "/top-level-list?q=",
  "/object-children?id=sdb:SO|{so}",
];
/** Content API id routes and the rest of the read routes. */
const OTHER_ROUTES = [
  `${C}/object-details?id=sdb:IO|{io}`,
  `${C}/indexed-fields`,
  `${C}/download?id=sdb:IO|{io}`,
  `${C}/thumbnail?id=sdb:IO|{io}`,
  "/api/user/details",
];
const AUTH_ROUTES = [
  "login",
  "acquire-temp-user",
  "complete-challenge",
  "complete-2fa",
  "refresh",
  "acquire-external",
].map((r) => `/api/accesstoken/${r}`);

const withParam = (path: string, param: string) => `${path}${path.includes("?") ? "&" : "?"}${param}`;
const READ_PATHS = [
  ...ENTITY_ROUTES.map((r) => E + r.path),
  ...ENTITY_ROUTES.slice(0, 8).map((r) => `${E}/v6.0${r.path}`),
  ...LISTINGS.map((l) => C + l),
  ...OTHER_ROUTES,
];

// ---------------------------------------------------------------------------------------------------
// Junk

const BAD_NUMBERS = [
  "-5",
  "-1",
  "1.5",
  "0.0",
  "1e3",
  "1e309",
  "NaN",
  "Infinity",
  "-Infinity",
  "0x10",
  "9".repeat(400),
  "9007199254740993",
  "%2B1",
  "1,2",
  "1_000",
  "abc",
  "%00",
  "%C3%28",
  "%D9%A3", // Arabic-Indic digit three
  "1%202",
];
/** Refs that are not UUIDs, as one path segment or one query value. */
const BAD_REFS = [
  "not-a-uuid",
  "123",
  "%27%20OR%201%3D1--",
  "%00",
  "%2e%2e",
  "..%2f..%2fetc%2fpasswd",
  "..%5c..%5cwindows",
  "a%2fb",
  "%C3%28",
  "%FF",
  "%",
  "%E2%80%AE",
  "{io}x",
  "x{io}",
  "%7B{io}%7D",
  "{io}%20",
  "x".repeat(5000),
];
const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";
const BAD_DATES = [
  "yesterday",
  "2024-13-45",
  "2024-1-1",
  "2024-01-01T25:61",
  "2024-01-01T00:00:00+99:99",
  "+275760-09-13",
  "1e309",
  "%00",
  "%C3%28",
  "2024-01-01%0Ax",
  "now",
  "0",
];
const BAD_VERSIONS = [
  "v99.9",
  "vX.Y",
  "v0.0",
  "v5.9",
  "v6.13",
  "v7.8",
  "v0007.7",
  "v7.7%2e1",
  `v${"9".repeat(500)}.1`,
];
const BAD_TOKENS = [
  "",
  " ",
  "%",
  "' OR '1'='1",
  "x".repeat(8000),
  "é".repeat(10),
  "00000000-0000-4000-8000-000000000000",
  "{token}x",
  " {token}x",
  "\t",
];

/**
 * The whole junk list for the first route of a group, and a rotating fifth of it for the others: every
 * route gets junk and every junk value reaches several routes, at a fraction of the requests (the
 * routes of a group share their parsing helpers).
 */
function spread<T>(items: readonly T[], routeIndex: number): T[] {
  return routeIndex === 0 ? [...items] : items.filter((_, j) => j % 5 === routeIndex % 5);
}

function entityJunk(): Case[] {
  const cases: Case[] = [];
  const paged = ENTITY_ROUTES.filter((r) => r.paged);
  for (const [i, r] of paged.entries()) {
    for (const p of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        // max=-1 means "the largest page" (some Content API clients send it); start=-1 is junk.
        const expectStatus = p === "max" && v === "-1" ? [200] : [400];
        cases.push({
          name: `${p}=${v.slice(0, 20)} on ${r.path}`,
          path: withParam(E + r.path, `${p}=${v}`),
          expect: expectStatus,
        });
      }
    }
    for (const ok of spread(
      ["max=-1", "max=1000000", "max=0", "start=9007199254740991", "start=0001&max=0002"],
      i,
    )) {
      cases.push({ name: `${ok} on ${r.path}`, path: withParam(E + r.path, ok), expect: [200] });
    }
  }
  for (const [i, r] of ENTITY_ROUTES.entries()) {
    for (const ref of r.refs) {
      // Each handler reads its refs through one helper; the first route of each kind gets everything.
      const first = ENTITY_ROUTES.findIndex((o) => o.refs.includes(ref)) === i;
      for (const bad of spread(BAD_REFS, first ? 0 : i)) {
        const path = E + r.path.replace(`{${ref}}`, bad);
        // A ref that is not a UUID names nothing: 404, as the real service answers (pyPreservica maps only
        // 404 to ReferenceNotFoundException), saying why. `%2e%2e` is a dot segment: the URL resolves it
        // away, so the path names no route (404 too).
        cases.push({
          name: `${ref}=${bad.slice(0, 24)} in ${r.path}`,
          path,
          expect: [404],
          ...(bad === "not-a-uuid" ? { message: /is not a UUID/ } : {}),
        });
      }
      const unknown = E + r.path.replace(`{${ref}}`, UNKNOWN_UUID);
      cases.push({ name: `unknown ${ref} in ${r.path}`, path: unknown, expect: [404] });
      // The same ref as another kind of thing: an entity of another type, a fragment as an entity …
      const others = ["so", "io", "co", "ioMref", "event"].filter(
        (o) => o !== ref && !(ref === "io" && o === "ioMref"),
      );
      for (const other of first ? others : [others[i % others.length] as string]) {
        const path = E + r.path.replace(`{${ref}}`, `{${other}}`);
        cases.push({ name: `{${other}} as ${ref} in ${r.path}`, path, expect: [404] });
      }
    }
  }
  for (const r of [
    "/information-objects/{io}/representations/Preservation/",
    "/content-objects/{co}/generations/",
  ]) {
    for (const n of ["0", "-1", "1.5", "1e3", "9999999999", "%31%30", "x", "%00"]) {
      cases.push({ name: `index ${n} in ${r}`, path: E + r + n, expect: n === "%31%30" ? [404] : [400] });
    }
  }
  for (const v of BAD_VERSIONS) {
    for (const r of ["/versiondetails/version", "/root/children", "/information-objects/{io}"]) {
      cases.push({ name: `version ${v.slice(0, 12)} ${r}`, path: `${E}/${v}${r}`, expect: [404] });
    }
  }
  for (const d of BAD_DATES) {
    for (const p of [
      "/events?from=",
      "/events?to=",
      "/entities/updated-since?date=",
      "/entities/updated-since?date=2000-01-01&endDate=",
    ]) {
      cases.push({ name: `date ${d} at ${p}`, path: `${E}${p}${d}`, expect: [400] });
    }
  }
  cases.push({ name: "updated-since without date", path: `${E}/entities/updated-since`, expect: [400] });
  cases.push({
    name: "by-identifier without value",
    path: `${E}/entities/by-identifier?type=x`,
    expect: [400],
  });
  cases.push({
    name: "events types junk",
    path: `${E}/events?types=%00,%C3%28,${"x".repeat(3000)}&username=%25`,
    expect: [200],
  });
  return cases;
}

const RANGES: [string, number[]][] = [
  ["bytes=0-9", [206]],
  ["bytes=5-2", [200]],
  ["bytes=abc", [200]],
  ["bytes=0-1,3-4", [200]],
  ["bytes=0-1, 3-4", [200]],
  ["bytes=", [200]],
  ["bytes=-", [200]],
  ["bytes=-0", [416]],
  ["bytes=1e3-", [200]],
  ["bytes=--1", [200]],
  ["items=0-1", [200]],
  ["bytes=99999999999999999999999-", [416]],
  ["bytes=-99999999999999999999999", [206]],
  ["bytes=0-99999999999999999999999", [206]],
  [`bytes=${"1".repeat(8000)}-`, [416]],
  ["bytes=9007199254740993-9007199254740999", [416]],
];

function contentJunk(): Case[] {
  const cases: Case[] = [];
  for (const [i, l] of LISTINGS.entries()) {
    const [path = "", query = ""] = l.split("?");
    for (const p of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        const expectStatus = p === "max" && v === "-1" ? [200] : [400];
        cases.push({
          name: `GET ${p}=${v.slice(0, 20)} ${path}`,
          path: withParam(C + l, `${p}=${v}`),
          expect: expectStatus,
        });
        cases.push({
          name: `POST ${p}=${v.slice(0, 20)} ${path}`,
          method: "POST",
          path: C + path,
          headers: FORM,
          body: `${query}&${p}=${v}`,
          expect: expectStatus,
        });
      }
    }
    cases.push({
      name: `POST JSON max=1.5 ${path}`,
      method: "POST",
      path: `${C}${path}?${query}`,
      headers: JSON_TYPE,
      body: '{"max":1.5}',
      expect: [400],
    });
    cases.push({
      name: `POST JSON max=[] ${path}`,
      method: "POST",
      path: `${C}${path}?${query}`,
      headers: JSON_TYPE,
      body: '{"max":[]}',
      expect: [200],
    });
    cases.push({
      name: `POST JSON array ${path}`,
      method: "POST",
      path: `${C}${path}?${query}`,
      headers: JSON_TYPE,
      body: "[1,2]",
      expect: [400],
    });
  }
  const idRoutes = [
    ["/object-details?id=", "io"],
    ["/download?id=", "io"],
    ["/thumbnail?id=", "io"],
    ["/object-children?id=", "so"],
    ["/search-within?parenthierarchy=", "so"],
  ] as const;
  for (const [r] of idRoutes) {
    // Surrounding whitespace is forgiven here (parseObjectId trims), unlike in a path segment.
    for (const bad of [
      ...BAD_REFS.filter((b) => b !== "{io}%20"),
      "sdb:XX|{io}",
      "sdb:IO|",
      "sdb:IO%7C{io}%00",
      "sdb:io|{io}x",
      "",
    ]) {
      cases.push({ name: `id ${bad.slice(0, 24)} at ${r}`, path: `${C}${r}${bad}`, expect: [400] });
    }
    cases.push({ name: `unknown id at ${r}`, path: `${C}${r}${UNKNOWN_UUID}`, expect: [404] });
  }
  cases.push({ name: "folder id typed as asset", path: `${C}/object-details?id=sdb:IO|{so}`, expect: [404] });
  cases.push({
    name: "asset as parenthierarchy",
    path: `${C}/search-within?parenthierarchy=sdb:IO|{io}`,
    expect: [404],
  });
  cases.push({ name: "fragment ref as id", path: `${C}/object-details?id={ioMref}`, expect: [404] });
  cases.push({ name: "event ref as id", path: `${C}/download?id={event}`, expect: [404] });
  for (const [range, expectStatus] of RANGES) {
    for (const p of [
      `${E}/content-objects/{co}/generations/1/bitstreams/1/content`,
      `${C}/download?id=sdb:IO|{io}`,
    ]) {
      cases.push({
        name: `Range ${range.slice(0, 30)} ${p.slice(0, 30)}`,
        path: p,
        headers: { Range: range },
        expect: expectStatus,
      });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Content API `q`

const DEEP = 10_000;
const nest = (open: string, inner: string, close: string, n = DEEP) =>
  open.repeat(n) + inner + close.repeat(n);
const FILTER = (o: string) => `{"q":"","fields":[${o}]}`;
const Q_400: [string, string][] = [
  ["truncated object", '{"q":"maps"'],
  ["truncated key", '{"q":'],
  ["lone brace", "{"],
  ["truncated fields", '{"fields":[{"name":"xip.title","values":["a"]}'],
  ["trailing junk", '{"q":"x"} x'],
  ["single quotes", "{'q':'x'}"],
  ["nested array q", `{"q":${nest("[", "", "]")}}`],
  ["nested array fields", `{"fields":${nest("[", "", "]")}}`],
  ["nested object q", `{"q":${nest('{"q":', "1", "}")}}`],
  ["q array", '{"q":[]}'],
  ["q object", '{"q":{}}'],
  ["fields string", '{"fields":"xip.title"}'],
  ["fields number", '{"fields":5}'],
  ["fields object", '{"fields":{}}'],
  ["fields [5]", '{"fields":[5]}'],
  ["fields [null]", '{"fields":[null]}'],
  ["field name number", FILTER('{"name":5,"values":["x"]}')],
  ["field name object", FILTER('{"name":{},"values":["x"]}')],
  ["field name missing", FILTER('{"values":["x"]}')],
  ["unknown field", FILTER('{"name":"nope.nope","values":["x"]}')],
  ["__proto__ field", FILTER('{"name":"__proto__","values":["x"]}')],
  ["values object", FILTER('{"name":"xip.title","values":{}}')],
  ["values number", FILTER('{"name":"xip.title","values":5}')],
  ["values [{}]", FILTER('{"name":"xip.title","values":[{}]}')],
  ["values [null]", FILTER('{"name":"xip.title","values":[null]}')],
  ["operator number", FILTER('{"name":"xip.title","values":["x"],"operator":5}')],
  ["operator MAYBE", FILTER('{"name":"xip.title","values":["x"],"operator":"MAYBE"}')],
  ["operator array", FILTER('{"name":"xip.title","values":["x"],"operator":[]}')],
  ["full_text filter", FILTER('{"name":"xip.full_text","values":["x"]}')],
  ["created yesterday", FILTER('{"name":"xip.created","values":["yesterday"]}')],
  ["created half range", FILTER('{"name":"xip.created","values":["[2020 TO]"]}')],
  ["created word range", FILTER('{"name":"xip.created","values":["[yesterday TO *]"]}')],
  ["created huge year", FILTER('{"name":"xip.created","values":["[* TO 275760-09-13]"]}')],
  ["sort string", '{"sort":"xip.title"}'],
  ["sort [5]", '{"sort":[5]}'],
  ["sortFields number", '{"sort":[{"sortFields":5}]}'],
  ["sortFields [{}]", '{"sort":[{"sortFields":[{}]}]}'],
  ["sortOrder up", '{"sort":[{"sortFields":["xip.title"],"sortOrder":"up"}]}'],
  ["sortOrder object", '{"sort":[{"sortFields":["xip.title"],"sortOrder":{}}]}'],
  ["sort unknown", '{"sort":[{"sortFields":["nope"]}]}'],
  ["facets object", '{"facets":{}}'],
  ["facets [5]", '{"facets":[5]}'],
  ["facets [{}]", '{"facets":[{}]}'],
  ["facets [[]]", '{"facets":[["xip.title"]]}'],
  ["facets unknown", '{"facets":["nope"]}'],
  ["braces are JSON", "{maps}"],
];
const FTS_SYNTAX = [
  '"',
  '""',
  '"""',
  "*",
  "**",
  "(",
  ")",
  "()",
  ":",
  "^",
  "^maps",
  "NEAR",
  "NEAR(maps charts)",
  "NEAR/3",
  "maps NEAR charts",
  "AND",
  "OR",
  "NOT",
  "maps AND",
  "OR maps",
  "maps OR OR charts",
  "NOT maps",
  "maps NOT charts",
  "-",
  "--",
  "- -maps",
  '-"',
  "maps -",
  '"unterminated',
  "title:maps",
  ":maps",
  "[maps]",
  "+maps",
  "'",
  "\\",
  "%",
  "%%",
  "%maps%",
  "a%b%c",
  "*maps*",
  '"*"',
  '"%"',
  'ma"ps',
  '-"maps charts" plans',
  "maps) OR (charts",
  "x".repeat(10_000),
  "a%".repeat(3000),
  "a%b ".repeat(100),
  "\u0000",
  "maps\u0000charts",
  "\u0001\u001f\u007f",
  "\u200b",
  "\ud800",
  "\ufeff",
  "🗺️ maps",
  "ÄÖÜ",
  "xip.title:",
  'xip.title:"',
  "-xip.title:x",
  "id:",
  'id:"',
  "id:nope",
  "id:{io}",
  'oai_dc.subject:"',
  "nonsense.field:x",
  "null",
  "[1,2]",
  nest("[", "", "]"),
];
/** Long values, with their status: percent-encoded, a million quotes exceed the 1 MiB body limit. */
const Q_HUGE: [string, number][] = [
  ["a".repeat(1_000_000), 200],
  ["a ".repeat(400_000), 200],
  ['"'.repeat(1_000_000), 413],
  ["(".repeat(300_000), 200],
];
const values = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `v${i}`));
const filters = (n: number, field: string, perFilter: number) =>
  Array.from({ length: n }, () => `{"name":"${field}","values":${values(perFilter)}}`).join(",");
const fieldTerms = (n: number) => Array.from({ length: n }, (_, i) => `xip.title:t${i}`).join(" ");
/** Past the limit of 100 filter values in all: SQLite's caps made the larger ones 500s, and slow before. */
const Q_LIMITS: [string, string][] = [
  ["101 values in one filter", FILTER(`{"name":"xip.title","values":${values(101)}}`)],
  ["2,000 values in one filter", FILTER(`{"name":"xip.title","values":${values(2000)}}`)],
  ["40,000 values in one filter", FILTER(`{"name":"xip.identifier","values":${values(40_000)}}`)],
  ["101 filters", `{"fields":[${filters(101, "xip.title", 1)}]}`],
  ["1,500 filters", `{"fields":[${filters(1500, "xip.title", 1)}]}`],
  ["101 field terms", fieldTerms(101)],
  ["1,500 field terms", fieldTerms(1500)],
  ["51 values and 50 field terms", `{"q":"${fieldTerms(50)}","fields":[${filters(1, "xip.title", 51)}]}`],
];
const Q_200: [string, string][] = [
  [
    "100 identifier values (the limit)",
    `{"fields":[${filters(4, "xip.identifier", 25)}],"sort":[{"sortFields":["xip.title","xip.identifier","oai_dc.subject"]}],"facets":["xip.format_group","oai_dc.subject"]}`,
  ],
  ["100 dc values", FILTER(`{"name":"oai_dc.subject","values":${values(100)}}`)],
  ["100 filters of one value", `{"fields":[${filters(100, "xip.title", 1)}]}`],
  ["50 values and 50 field terms", `{"q":"${fieldTerms(50)}","fields":[${filters(1, "xip.title", 50)}]}`],
  ["unknown top-level keys", nest('{"a":', "1", "}")],
  ["q number", '{"q":5}'],
  ["q true", '{"q":true}'],
  ["q null", '{"q":null}'],
  ["empty values", FILTER('{"name":"xip.title","values":[]}')],
  ["blank values", FILTER('{"name":"xip.title","values":["", " "]}')],
  ["created impossible day", FILTER('{"name":"xip.created","values":["2024-13-45"]}')],
  ["created open range", FILTER('{"name":"xip.created","values":["[* TO 9999-12-31]"]}')],
  ["lone surrogate escape", '{"q":"\\ud800"}'],
  ["NUL escape", '{"q":"\\u0000maps"}'],
  [
    "1,500 sorts",
    `{"sort":[${Array.from({ length: 1500 }, () => '{"sortFields":["xip.title"]}').join(",")}]}`,
  ],
  ["3,000 id terms", Array.from({ length: 3000 }, (_, i) => `id:${i}`).join(" ")],
  ["100 field terms", fieldTerms(100)],
];

function qJunk(): Case[] {
  const cases: Case[] = [];
  const variants = (name: string, q: string, expectStatus: number[], message?: RegExp) => {
    const form = new URLSearchParams({ q }).toString();
    const path = `${C}/search`;
    if (form.length < 6000)
      cases.push({ name: `GET q ${name}`, path: `${path}?${form}`, expect: expectStatus, message });
    cases.push({
      name: `POST form q ${name}`,
      method: "POST",
      path,
      headers: FORM,
      body: form,
      expect: expectStatus,
      message,
    });
    cases.push({
      name: `POST JSON q ${name}`,
      method: "POST",
      path,
      headers: JSON_TYPE,
      body: JSON.stringify({ q }),
      expect: expectStatus,
      message,
    });
  };
  for (const [name, q] of Q_400) variants(name, q, [400]);
  for (const [name, q] of Q_LIMITS) variants(name, q, [400], /at most 100 are allowed/);
  for (const [name, q] of Q_200) variants(name, q, [200]);
  // The FTS translation does not depend on how q arrived: one transport each, the URL when it fits.
  for (const q of FTS_SYNTAX) {
    const form = new URLSearchParams({ q }).toString();
    const name = `q ${JSON.stringify(q.slice(0, 24))}`;
    cases.push(
      form.length < 6000
        ? { name: `GET ${name}`, path: `${C}/search?${form}`, expect: [200] }
        : {
            name: `POST ${name}`,
            method: "POST",
            path: `${C}/search`,
            headers: FORM,
            body: form,
            expect: [200],
          },
    );
  }
  for (const q of FTS_SYNTAX.slice(0, 12)) {
    for (const l of ["/search-within?parenthierarchy={so}", "/top-level-list", "/object-children?id={so}"]) {
      cases.push({
        name: `q ${q} at ${l}`,
        path: withParam(C + l, new URLSearchParams({ q }).toString()),
        expect: [200],
      });
    }
  }
  for (const [q, status] of Q_HUGE) {
    cases.push({
      name: `POST form 1 MB q ${q.slice(0, 4)}`,
      method: "POST",
      path: `${C}/search`,
      headers: FORM,
      body: new URLSearchParams({ q }).toString(),
      expect: [status],
    });
  }
  // Raw percent-escapes that are not UTF-8, and a NUL, in the query string itself.
  for (const raw of ["%C3%28", "%FF", "%", "%E0%A4%A", "%00", "%ZZ", "maps%", "%C0%AE%C0%AE%2F"]) {
    cases.push({ name: `raw q=${raw}`, path: `${C}/search?q=${raw}`, expect: [200] });
    cases.push({
      name: `raw body q=${raw}`,
      method: "POST",
      path: `${C}/search`,
      headers: FORM,
      body: `q=${raw}`,
      expect: [200],
    });
  }
  cases.push({ name: "facets param unknown", path: `${C}/search?facets=nope`, expect: [400] });
  cases.push({ name: "facets param NUL", path: `${C}/search?facets=%00`, expect: [400] });
  cases.push({
    name: "metadata param junk",
    path: `${C}/search?metadata=%00,nope,,,${"x".repeat(2000)}`,
    expect: [200],
  });
  cases.push({
    name: "metadata repeated 20,000 times",
    method: "POST",
    path: `${C}/search`,
    headers: FORM,
    body: "metadata=xip.title&".repeat(20_000),
    expect: [200],
  });
  // JSON bodies nested deeper than any sane request; still under the body limit.
  const deep: [string, string][] = [
    ["array 10,000", `{"q":${nest("[", "", "]")}}`],
    ["object 10,000", `{"x":${nest('{"a":', "1", "}")}}`],
    ["array 400,000", `{"q":${nest("[", "", "]", 400_000)}}`],
    ["object 100,000", `{"x":${nest('{"a":', "1", "}", 100_000)}}`],
    ["65 levels", `{"x":${nest("[", "", "]", 64)}}`],
  ];
  for (const [name, body] of deep) {
    cases.push({
      name: `JSON body nested ${name}`,
      method: "POST",
      path: `${C}/search`,
      headers: JSON_TYPE,
      body,
      expect: [400],
      message: /deeper than 64/,
    });
  }
  cases.push({
    name: "JSON body nested 64 levels",
    method: "POST",
    path: `${C}/search`,
    headers: JSON_TYPE,
    body: `{"x":${nest("[", "", "]", 63)}}`,
    expect: [200],
  });
  cases.push({
    name: "JSON body brackets inside strings",
    method: "POST",
    path: `${C}/search`,
    headers: JSON_TYPE,
    body: `{"q":"${"[{".repeat(5000)}\\""}`,
    expect: [200],
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// HTTP-level junk: methods, headers, bodies, content types, tokens, authentication forms

const TWO_MIB = Buffer.alloc(2 * 1024 * 1024, "a");

function httpJunk(): Case[] {
  const cases: Case[] = [];
  // Two of these methods are no longer wrong: PUT of an asset is a save (refused: the form body is not
  // XML) and DELETE of a content object a deletion (refused: content objects go with their asset).
  const nowWrites: Record<string, [number, RegExp]> = {
    [`PUT ${E}/information-objects/{io}`]: [400, /not well-formed XML/],
    [`DELETE ${E}/content-objects/{co}`]: [409, /deleted with their asset/],
  };
  for (const [i, p] of READ_PATHS.entries()) {
    // One odd method per route, in turn; the 405 (naming the methods the path takes) comes from the one
    // notFound handler.
    for (const method of [["PUT", "DELETE", "PATCH", "OPTIONS"][i % 4] as string]) {
      const [status, message] = nowWrites[`${method} ${p}`] ?? [405, /use GET/];
      cases.push({
        name: `${method} ${p}`,
        method,
        path: p,
        headers: FORM,
        body: method === "PUT" ? "a=1" : undefined,
        expect: [status],
        message,
      });
    }
    cases.push({ name: `HEAD ${p}`, method: "HEAD", path: p });
  }
  for (const r of AUTH_ROUTES) {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      cases.push({
        name: `${method} ${r}`,
        method,
        path: r,
        auth: false,
        expect: [405],
        message: /take POST/,
      });
    }
    cases.push({ name: `empty body ${r}`, method: "POST", path: r, auth: false, expect: [401] });
    cases.push({
      name: `empty form ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: "",
      auth: false,
      expect: [401],
    });
    cases.push({
      name: `empty JSON ${r}`,
      method: "POST",
      path: r,
      headers: JSON_TYPE,
      body: "",
      auth: false,
      expect: [401],
    });
    cases.push({
      name: `2 MiB body ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: TWO_MIB,
      auth: false,
      expect: [413],
      message: /1 MiB/,
    });
  }
  for (const r of ["/api/accesstoken/login", `${C}/search`]) {
    const creds = "username=manager&password=manager-demo-pw";
    const types: [string, string | Buffer, number[]][] = [
      ["multipart/form-data", creds, [400]],
      ["Multipart/Form-Data", creds, [400]],
      ["multipart/form-data; boundary=xyz", creds, [400]],
      [
        "multipart/form-data; boundary=xyz",
        "--xyz\r\nContent-Disposition: form-data\r\n\r\nx\r\n--xyz--\r\n", // a part without a name
        [400],
      ],
      ["multipart/form-data; boundary=", "", [400]],
      // Only the Content API reads JSON; the login reads any other body as a form.
      ["application/json", creds, r.includes("login") ? [200] : [400]],
      [
        "application/json",
        '{"username":"manager","password":"manager-demo-pw"}',
        r.includes("login") ? [401] : [200],
      ],
      ["application/xml", "<login><username>manager</username></login>", r.includes("login") ? [401] : [200]],
      [
        "application/octet-stream",
        Buffer.from([0, 0xff, 0xfe, 0x80, 0x25, 0x3d]),
        r.includes("login") ? [401] : [200],
      ],
      ["text/plain; charset=utf-16", Buffer.from(creds, "utf16le"), r.includes("login") ? [401] : [200]],
      ["application/x-www-form-urlencoded; charset=bogus", creds, [200]],
      ["", creds, [200]],
      ["%%%", creds, [200]],
    ];
    for (const [type, body, expectStatus] of types) {
      const message = /^multipart/i.test(type)
        ? /form-encoded/
        : type === "application/json" && expectStatus[0] === 401
          ? /as form fields/
          : undefined;
      cases.push({
        name: `Content-Type "${type}" at ${r}`,
        method: "POST",
        path: r,
        headers: { "Content-Type": type },
        body,
        auth: !r.includes("login"),
        expect: expectStatus,
        message,
      });
    }
    cases.push({
      name: `2 MiB form at ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: TWO_MIB,
      expect: [413],
      message: /1 MiB/,
    });
    cases.push({
      name: `2 MiB JSON at ${r}`,
      method: "POST",
      path: r,
      headers: JSON_TYPE,
      body: TWO_MIB,
      expect: [413],
      message: /1 MiB/,
    });
    cases.push({
      name: `1 MiB form at ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: Buffer.alloc(1024 * 1024, "a"),
      expect: r.includes("login") ? [401] : [200],
    });
    cases.push({
      name: `2 MiB chunked at ${r}`,
      method: "POST",
      path: r,
      headers: FORM,
      body: { chunks: Array.from({ length: 32 }, () => Buffer.alloc(64 * 1024, "b")) },
      expect: [413],
      message: /1 MiB/,
    });
  }
  for (const t of BAD_TOKENS) {
    for (const p of ["/api/user/details", `${E}/root/children`, `${C}/search?q=maps`]) {
      cases.push({
        name: `token "${t.slice(0, 16)}" ${p}`,
        path: p,
        auth: false,
        headers: { "Preservica-Access-Token": t },
        expect: [401],
      });
    }
    cases.push({
      name: `Bearer "${t.slice(0, 16)}"`,
      path: "/api/user/details",
      auth: false,
      headers: { Authorization: `Bearer ${t}` },
      expect: [401],
    });
    cases.push({
      name: `cookie "${t.slice(0, 16)}"`,
      path: "/api/user/details",
      auth: false,
      headers: { Cookie: `Preservica-Access-Token=${t}` },
      expect: [401],
    });
  }
  for (const h of [
    "Authorization: Basic bWFuYWdlcjptYW5hZ2VyLWRlbW8tcHc=",
    "Authorization: Bearer",
    "Authorization: Bearer a b",
    "Service-Access-Token: %00",
  ]) {
    const [k = "", v = ""] = h.split(": ");
    cases.push({ name: h, path: "/api/user/details", auth: false, headers: { [k]: v }, expect: [401] });
  }
  cases.push({ name: "no token", path: `${E}/root/children`, auth: false, expect: [401] });
  const login = "/api/accesstoken/login";
  const forms: [string, string, number[]][] = [
    ["no fields", "", [401]],
    ["username only", "username=manager", [401]],
    ["password only", "password=manager-demo-pw", [401]],
    ["empty username", "username=&password=manager-demo-pw", [401]],
    ["repeated username, last wins", "username=nobody&username=manager&password=manager-demo-pw", [200]],
    ["repeated password, last wrong", "username=manager&password=manager-demo-pw&password=x", [401]],
    ["username with NUL", "username=manager%00&password=manager-demo-pw", [401]],
    ["username invalid UTF-8", "username=%C3%28&password=x", [401]],
    ["long password", `username=manager&password=${"x".repeat(500_000)}`, [401]],
    ["long username", `username=${"x".repeat(500_000)}&password=x`, [401]],
    ["tenant junk", "username=manager&password=manager-demo-pw&tenant=%00", [401]],
    ["includeUserDetails junk", "username=manager&password=manager-demo-pw&includeUserDetails=%FF", [200]],
    ["no = signs", "username&password", [401]],
    ["stray ampersands and percents", "&&=&%&username=%&password=%%", [401]],
  ];
  for (const [name, body, expectStatus] of forms) {
    cases.push({
      name: `login: ${name}`,
      method: "POST",
      path: login,
      headers: FORM,
      body,
      auth: false,
      expect: expectStatus,
    });
  }
  const other: [string, string, string, number[], RegExp?][] = [
    ["acquire-temp-user", "manager repeated", "username=manager&username=manager&password=x", [401]],
    ["complete-challenge", "code junk", "challengeToken=%00%C3%28", [401]],
    ["complete-challenge", "code empty", "challengeToken=", [401]],
    ["complete-2fa", "nothing", "", [401]],
    ["complete-2fa", "code junk", "continuationToken={continuation}&twoFactorToken=%C3%28", [401]],
    [
      "complete-2fa",
      "long code",
      `continuationToken={continuation}&twoFactorToken=${"9".repeat(100_000)}`,
      [401],
    ],
    [
      "complete-2fa",
      "other user",
      "continuationToken={continuation}&twoFactorToken=1&username=manager",
      [401],
    ],
    ["refresh", "junk refresh token", "refreshToken=%C3%28", [401]],
    ["refresh", "multibyte refresh token", `refreshToken=${"é".repeat(36)}`, [401]],
    [
      "acquire-external",
      "multibyte hash",
      `username=manager&timestamp={now}&hash=${"é".repeat(40)}`,
      [401],
      /hash does not match/,
    ],
    ["acquire-external", "short hash", "username=manager&timestamp={now}&hash=00", [401]],
    ["acquire-external", "huge timestamp", `username=manager&timestamp=${"9".repeat(400)}&hash=00`, [401]],
    ["acquire-external", "timestamp 1e309", "username=manager&timestamp=1e309&hash=00", [401]],
    [
      "acquire-external",
      "repeated username",
      "username=nobody&username=manager&timestamp={now}&hash=x",
      [401],
    ],
  ];
  for (const [r, name, body, expectStatus, message] of other) {
    const withToken = r === "refresh";
    cases.push({
      name: `${r}: ${name}`,
      method: "POST",
      path: `/api/accesstoken/${r}`,
      headers: FORM,
      body,
      auth: withToken,
      expect: expectStatus,
      message,
    });
  }
  // Huge headers and URLs: Node's parser refuses them before the app sees them.
  const big = { expect: [431], message: /POST body/ };
  cases.push({
    name: "20 KB header",
    path: `${E}/root/children`,
    headers: { "X-Junk": "x".repeat(20_000) },
    ...big,
  });
  cases.push({
    name: "20 KB cookie",
    path: `${E}/root/children`,
    headers: { Cookie: `a=${"x".repeat(20_000)}` },
    ...big,
  });
  cases.push({ name: "1 MB URL", path: `${C}/search?q=${"a".repeat(1_000_000)}`, ...big });
  cases.push({
    name: "200 headers",
    path: `${E}/root/children`,
    headers: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`X-H${i}`, "x".repeat(50)])),
    expect: [200],
  });
  cases.push({
    name: "8 KB header",
    path: `${E}/root/children`,
    headers: { "X-Junk": "x".repeat(8000) },
    expect: [200],
  });
  // Places that are not routes, traversal included.
  const nowhere = [
    "/",
    "/api",
    "/api/entity",
    "/api/entity/",
    "/api/content",
    "/api/content/nope",
    "/api/user",
    "/api/entity/../../etc/passwd",
    "/api/entity/..%2f..%2fpackage.json",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/api/content/download/..%2f..%2f..%2fetc%2fpasswd",
    "//api//entity//root//children",
    "/api/entity/root/children/extra",
    "/api/entity/information-objects/{io}/representations/Preservation/1/extra",
    "/api/entity/v7.7",
    "/api/entity/%",
    "/api/entity/%C3%28",
    // Not /api/entity/information-objects any more: it takes POST (a new asset), so GET is a 405 (WRONG_METHODS).
  ];
  for (const p of nowhere)
    cases.push({ name: `nowhere ${p}`, path: p, expect: [404], message: /look like|are under/ });
  cases.push({ name: "nowhere, no token", path: "/api/entity/nope", auth: false, expect: [401] });
  return cases;
}

/** Requests no HTTP client would send; Node's parser answers them itself. */
const RAW_REQUESTS: [string, string, number][] = [
  ["space in the path", "GET /api/entity/root children HTTP/1.1\r\nHost: x\r\n\r\n", 400],
  ["bad header name", "GET /api/entity/root/children HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n", 400],
  [
    "Content-Length not a number",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    400,
  ],
  [
    "two Content-Lengths",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    400,
  ],
  [
    "chunked and Content-Length",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
  ],
  [
    "bad chunk size",
    "POST /api/accesstoken/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    400,
  ],
  ["not HTTP", "HELLO\r\n\r\n", 400],
  ["huge header", `GET / HTTP/1.1\r\nHost: x\r\nX: ${"x".repeat(20_000)}\r\n\r\n`, 431],
  // These two pass Node's parser; the Hono adapter cannot build a URL from them.
  ["backslash in the path", "GET /api\\entity\\root HTTP/1.1\r\nHost: x\r\n\r\n", 400],
  ["bad Host header", "GET /api/user/details HTTP/1.1\r\nHost: a b@c\r\n\r\n", 400],
];

// ---------------------------------------------------------------------------------------------------
// Write routes. Each case below is a request the route would take but for one thing wrong with it, so
// a case the service let through would change the store: the check after each case names it, and the
// final check fails.

const XIP7 = "http://preservica.com/XIP/v7.7";
const ENT7 = "http://preservica.com/EntityAPI/v7.7";
const RM = "http://preservica.com/RetentionManagement/v6.2";
const DC = "http://purl.org/dc/elements/1.1/";
const XML_TYPE = { "Content-Type": "application/xml;charset=UTF-8" };
const TEXT_TYPE = { "Content-Type": "text/plain;charset=UTF-8" };
const CSV_TYPE = { "Content-Type": "text/csv;charset=UTF-8" };
const OCTET = { "Content-Type": "application/octet-stream" };

/** A body to refuse: a name, the body, the statuses allowed, and what the message must say. */
type Junk = [name: string, body: Body, expect: number[], message?: RegExp];

const el = (name: string, ns: string, inner: string) => `<${name} xmlns="${ns}">${inner}</${name}>`;
const LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from(
  { length: 9 },
  (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
).join("")}]>`;
/** The junk message must not echo megabytes of what was sent. */
const MAX_MESSAGE = 10_000;

/**
 * Junk any XML body route must refuse, around `inner`, content the route would accept in its root
 * element. `always` goes to every route (each reads its own root and required children); `shared` is
 * spread over the routes, since they all parse through one function (http/xml-body.ts).
 */
function xmlJunk(root: string, ns: string, inner: string): { always: Junk[]; shared: Junk[] } {
  const doc = (body: string) => el(root, ns, body);
  return {
    always: [
      ["empty body", "", [400], /body is empty/],
      ["a form, not XML", "Title=Minutes&SecurityTag=open", [400], /not well-formed/],
      ["wrong root", el("Wrong", ns, inner), [400], /Wrong/],
    ],
    shared: [
      ["blank body", " \r\n\t ", [400], /body is empty/],
      ["JSON", '{"Title":"Minutes"}', [400], /not well-formed/],
      ["truncated", `<${root} xmlns="${ns}">${inner}`, [400], /not well-formed/],
      ["mismatched end tag", `<${root} xmlns="${ns}">${inner}</${root}x>`, [400], /not well-formed/],
      ["DOCTYPE", `<!DOCTYPE ${root}>${doc(inner)}`, [400], /DOCTYPE/],
      [
        "external entity (XXE)",
        `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${doc(`${inner}<Note>&e;</Note>`)}`,
        [400],
        /DOCTYPE/,
      ],
      ["billion laughs", `${LAUGHS}${doc(`${inner}<Note>&lol9;</Note>`)}`, [400], /DOCTYPE/],
      ["undefined entity", doc(`${inner}<Note>a&nbsp;b</Note>`), [400], /&nbsp;/],
      ["bare ampersand", doc(`${inner}<Note>a & b</Note>`), [400], /not well-formed|&amp;/],
      ["two roots", doc(inner) + doc(inner), [400], /not well-formed|exactly one root/],
      ["text after the root", `${doc(inner)} junk`, [400]],
      [
        "undeclared prefix on the root",
        `<x:${root} xmlns="${ns}">${inner}</x:${root}>`,
        [400],
        /prefix "x:"/,
      ],
      ["undeclared prefix inside", doc(`${inner}<y:Note>x</y:Note>`), [400], /prefix "y:"/],
      [
        "100,000 nested elements",
        doc(`${inner}${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}`),
        [400],
        /nests elements more than/,
      ],
      ["101 nested elements", doc(`${inner}${"<a>".repeat(101)}${"</a>".repeat(101)}`), [400], /nests/],
      ["control character", doc(`${inner}<Note>a\u0001b</Note>`), [400], /not allow/],
      ["NUL character", doc(`${inner}<Note>a\u0000b</Note>`), [400], /not allow/],
      ["character reference to a control character", doc(`${inner}<Note>a&#1;b</Note>`), [400], /not allow/],
      // A body that is not UTF-8 is read as ISO-8859-1 (pyPreservica sends some so, see
      // http/request-text.ts): read that way, junk stays junk.
      [
        "not UTF-8, wrong root",
        { latin1: el("Wrong", ns, `${inner}<Note>caf\xe9 \xff</Note>`) },
        [400],
        /Wrong/,
      ],
      [
        "Latin-1 declared, wrong root",
        { latin1: `<?xml version="1.0" encoding="ISO-8859-1"?>${el("Wrong", ns, `${inner}<N>\xe9</N>`)}` },
        [400],
        /Wrong/,
      ],
      [
        "UTF-16 with a BOM",
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc(inner), "utf16le")]),
        [400],
        /not allow/,
      ],
      ["900 KB in the wrong root", el("Wrong", ns, "x".repeat(900_000)), [400]],
      ["2 MiB body", `${doc(inner)}${" ".repeat(2 * 1024 * 1024)}`, [413], /1 MiB/],
    ],
  };
}

interface XmlRoute {
  method: string;
  path: string;
  root: string;
  ns: string;
  /** What the route would accept inside its root element (the generic junk goes around it). */
  inner: string;
  /** Route-specific bodies, each with one defect. */
  specific: Junk[];
}

const TYPES = [
  ["so", "structural-objects", "StructuralObject"],
  ["io", "information-objects", "InformationObject"],
  ["co", "content-objects", "ContentObject"],
] as const;

const FOLDER = "<Title>Junk folder</Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>";
const ASSET = "<Title>Junk asset</Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>";
const PHYSICAL = "<Representation><Type>Physical</Type></Representation>";
const DC_DOC = `<dc xmlns="${DC}"><title>Junk</title></dc>`;
const container = (ref: string, extra = "") =>
  el("MetadataContainer", XIP7, `${extra}<Entity>${ref}</Entity><Content>${DC_DOC}</Content>`);
const DELETION = "<Submission><Comment>junk</Comment></Submission>";
const APPROVAL = "<Approval><Approved>false</Approved><Comment>junk</Comment></Approval>";
const POLICY =
  "<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>7</Period><PeriodUnit>YEARS</PeriodUnit>";

const XML_ROUTES: XmlRoute[] = [
  {
    method: "POST",
    path: `${E}/structural-objects`,
    root: "StructuralObject",
    ns: XIP7,
    inner: FOLDER,
    specific: [
      [
        "no Title",
        el("StructuralObject", XIP7, "<SecurityTag>open</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /<Title> is missing/,
      ],
      [
        "blank Title",
        el("StructuralObject", XIP7, "<Title> </Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /<Title> is empty/,
      ],
      [
        "no SecurityTag",
        el("StructuralObject", XIP7, "<Title>x</Title><Parent>{so}</Parent>"),
        [400],
        /<SecurityTag> is missing/,
      ],
      [
        "unknown tag",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>nope</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /does not exist/,
      ],
      [
        "tag in the wrong case",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>OPEN</SecurityTag><Parent>{so}</Parent>"),
        [400],
        /does not exist/,
      ],
      [
        "Ref not a UUID",
        el("StructuralObject", XIP7, `<Ref>x</Ref>${FOLDER}`),
        [400],
        /not an entity reference/,
      ],
      [
        "Ref in Latin-1",
        { latin1: el("StructuralObject", XIP7, `<Ref>caf\xe9</Ref>${FOLDER}`) },
        [400],
        /"café" is not an entity reference/,
      ],
      [
        "900 KB Ref",
        el("StructuralObject", XIP7, `<Ref>${"x".repeat(900_000)}</Ref>${FOLDER}`),
        [400],
        /not an entity reference/,
      ],
      ["Ref in use", el("StructuralObject", XIP7, `<Ref>{io}</Ref>${FOLDER}`), [409], /already in use/],
      [
        "Ref of a deleted folder",
        el("StructuralObject", XIP7, `<Ref>{binned}</Ref>${FOLDER}`),
        [409],
        /already in use/,
      ],
      [
        "Parent not a UUID",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>open</SecurityTag><Parent>{so}x</Parent>"),
        [400],
        /not an entity reference/,
      ],
      [
        "unknown Parent",
        el(
          "StructuralObject",
          XIP7,
          `<Title>x</Title><SecurityTag>open</SecurityTag><Parent>${UNKNOWN_UUID}</Parent>`,
        ),
        [404],
        /not found/,
      ],
      [
        "deleted Parent",
        el(
          "StructuralObject",
          XIP7,
          "<Title>x</Title><SecurityTag>open</SecurityTag><Parent>{binned}</Parent>",
        ),
        [404],
        /not found/,
      ],
      [
        "asset as Parent",
        el("StructuralObject", XIP7, "<Title>x</Title><SecurityTag>open</SecurityTag><Parent>{io}</Parent>"),
        [400],
        /not a folder/,
      ],
      [
        "two objects in XIP",
        el(
          "XIP",
          XIP7,
          `<StructuralObject>${FOLDER}</StructuralObject><StructuralObject>${FOLDER}</StructuralObject>`,
        ),
        [400],
        /exactly one/,
      ],
      ["no namespace", `<StructuralObject>${FOLDER}</StructuralObject>`, [400], /no namespace/],
      [
        "another namespace",
        el("StructuralObject", "http://example.com/XIP/v7.7", FOLDER),
        [400],
        /example\.com/,
      ],
      ["an InformationObject", el("InformationObject", XIP7, FOLDER), [400], /InformationObject/],
      [
        "control character in the Title",
        el("StructuralObject", XIP7, FOLDER.replace("Junk", "Ju\u0007nk")),
        [400],
        /not allow/,
      ],
    ],
  },
  {
    method: "POST",
    path: `${E}/information-objects`,
    root: "XIP",
    ns: XIP7,
    inner: `<InformationObject>${ASSET}</InformationObject>${PHYSICAL}`,
    specific: [
      [
        "no Parent",
        el(
          "XIP",
          XIP7,
          `<InformationObject><Title>x</Title><SecurityTag>open</SecurityTag></InformationObject>`,
        ),
        [400],
        /created in a folder/,
      ],
      [
        "bare object without Parent",
        el("InformationObject", XIP7, "<Title>x</Title><SecurityTag>open</SecurityTag>"),
        [400],
        /created in a folder/,
      ],
      [
        "content object as Parent",
        el(
          "XIP",
          XIP7,
          `<InformationObject><Title>x</Title><SecurityTag>open</SecurityTag><Parent>{co}</Parent></InformationObject>`,
        ),
        [400],
        /not a folder/,
      ],
      [
        "Preservation representation",
        el(
          "XIP",
          XIP7,
          `<InformationObject>${ASSET}</InformationObject><Representation><Type>Preservation</Type></Representation>`,
        ),
        [400],
        /Preservation/,
      ],
      [
        "Representation without Type",
        el("XIP", XIP7, `<InformationObject>${ASSET}</InformationObject><Representation/>`),
        [400],
        /Physical/,
      ],
      [
        "with a ContentObject",
        el(
          "XIP",
          XIP7,
          `<InformationObject>${ASSET}</InformationObject><ContentObject><Title>x</Title></ContentObject>`,
        ),
        [400],
        /ingest/,
      ],
      [
        "with a Bitstream",
        el("XIP", XIP7, `<InformationObject>${ASSET}</InformationObject><Bitstream/>`),
        [400],
        /ingest/,
      ],
      [
        "two objects",
        el(
          "XIP",
          XIP7,
          `<InformationObject>${ASSET}</InformationObject><InformationObject>${ASSET}</InformationObject>`,
        ),
        [400],
        /exactly one/,
      ],
      ["no object", el("XIP", XIP7, PHYSICAL), [400], /exactly one/],
      [
        "a StructuralObject",
        el("XIP", XIP7, `<StructuralObject>${ASSET}</StructuralObject>`),
        [400],
        /exactly one/,
      ],
      [
        "Ref in use",
        el("XIP", XIP7, `<InformationObject><Ref>{so}</Ref>${ASSET}</InformationObject>`),
        [409],
        /already in use/,
      ],
    ],
  },
  ...TYPES.map(([ph, path, root]): XmlRoute => {
    const other = ph === "io" ? "so" : "io";
    return {
      method: "PUT",
      path: `${E}/${path}/{${ph}}`,
      root,
      ns: XIP7,
      inner: `<Ref>{${ph}}</Ref><Title>Junk title</Title>`,
      specific: [
        ["empty Title", el(root, XIP7, "<Title/><Description>x</Description>"), [400], /<Title> is empty/],
        [
          "Ref of another entity",
          el(root, XIP7, `<Ref>{${other}}</Ref><Title>Junk title</Title>`),
          [400],
          /differs/,
        ],
        [
          "Ref not a UUID",
          el(root, XIP7, "<Ref>nope</Ref><Title>Junk title</Title>"),
          [400],
          /not an entity reference/,
        ],
        [
          "900 KB Ref",
          el(root, XIP7, `<Ref>${"y".repeat(900_000)}</Ref><Title>Junk title</Title>`),
          [400],
          /not an entity reference/,
        ],
        [
          "root of another type",
          el(ph === "so" ? "InformationObject" : "StructuralObject", XIP7, "<Title>Junk title</Title>"),
          [400],
          /expected </,
        ],
        ["XIP without the object", el("XIP", XIP7, "<Title>Junk title</Title>"), [400], /exactly one/],
        [
          "Ref in Latin-1",
          { latin1: el(root, XIP7, "<Ref>r\xe9f</Ref><Title>Junk title</Title>") },
          [400],
          /"réf" is not an entity reference/,
        ],
      ],
    };
  }),
  ...TYPES.map(([ph, path]): XmlRoute => {
    const other = ph === "io" ? "so" : "io";
    return {
      method: "POST",
      path: `${E}/${path}/{${ph}}/metadata`,
      root: "MetadataContainer",
      ns: XIP7,
      inner: `<Entity>{${ph}}</Entity><Content>${DC_DOC}</Content>`,
      specific: [
        ["no Content", el("MetadataContainer", XIP7, `<Entity>{${ph}}</Entity>`), [400], /has no <Content>/],
        ["empty Content", el("MetadataContainer", XIP7, "<Content/>"), [400], /exactly one XML element/],
        [
          "two documents",
          el("MetadataContainer", XIP7, `<Content>${DC_DOC}${DC_DOC}</Content>`),
          [400],
          /holds 2/,
        ],
        [
          "text beside the document",
          el("MetadataContainer", XIP7, `<Content>x${DC_DOC}</Content>`),
          [400],
          /and text/,
        ],
        [
          "document without a schema",
          el("MetadataContainer", XIP7, '<Content><dc xmlns=""><title>x</title></dc></Content>'),
          [400],
          /no schema/,
        ],
        ["Entity of another entity", container(`{${other}}`), [400], /differs/],
        ["Entity not a UUID", container("{co}{co}"), [400], /not an entity reference/],
        [
          "undeclared prefix in the document",
          el("MetadataContainer", XIP7, "<Content><dc:dc><dc:title>x</dc:title></dc:dc></Content>"),
          [400],
          /prefix "dc:"/,
        ],
      ],
    };
  }),
  ...(
    [
      ["so", "structural-objects", "soMref"],
      ["io", "information-objects", "ioMref"],
      // Content objects have no fragments: pathJunk sends theirs junk and others' fragment refs.
    ] as const
  ).map(
    ([ph, path, mref]): XmlRoute => ({
      method: "PUT",
      path: `${E}/${path}/{${ph}}/metadata/{${mref}}`,
      root: "MetadataContainer",
      ns: XIP7,
      inner: `<Ref>{${mref}}</Ref><Entity>{${ph}}</Entity><Content>${DC_DOC}</Content>`,
      specific: [
        [
          "Ref of another fragment",
          container(`{${ph}}`, `<Ref>{${ph === "so" ? "ioMref" : "soMref"}}</Ref>`),
          [400],
          /differs from the fragment/,
        ],
        ["no Content", el("MetadataContainer", XIP7, `<Ref>{${mref}}</Ref>`), [400], /has no <Content>/],
      ],
    }),
  ),
  ...TYPES.map(
    ([ph, path]): XmlRoute => ({
      method: "POST",
      path: `${E}/${path}/{${ph}}/identifiers`,
      root: "Identifier",
      ns: XIP7,
      inner: "<Type>junk</Type><Value>J-1</Value>",
      specific: [
        ["no Type", el("Identifier", XIP7, "<Value>J-1</Value>"), [400], /<Type> is missing/],
        [
          "empty Value",
          el("Identifier", XIP7, "<Type>junk</Type><Value>  </Value>"),
          [400],
          /<Value> is empty/,
        ],
        [
          "Entity of another entity",
          el("Identifier", XIP7, `<Type>junk</Type><Value>J-1</Value><Entity>${UNKNOWN_UUID}</Entity>`),
          [400],
          /differs/,
        ],
        ["a Link", el("Link", XIP7, "<Type>junk</Type><Value>J-1</Value>"), [400], /expected <Identifier>/],
      ],
    }),
  ),
  ...TYPES.map(
    ([ph, path]): XmlRoute => ({
      method: "PUT",
      path: `${E}/${path}/{${ph}}/identifiers/{${ph}Id}`,
      root: "Identifier",
      ns: XIP7,
      inner: "<Type>junk</Type><Value>J-2</Value>",
      specific: [
        ["no Value", el("Identifier", XIP7, "<Type>junk</Type>"), [400], /<Value> is missing/],
        [
          "Entity not a UUID",
          el("Identifier", XIP7, "<Type>junk</Type><Value>J-2</Value><Entity>x</Entity>"),
          [400],
          /not an entity reference/,
        ],
      ],
    }),
  ),
  ...TYPES.map(([ph, path]): XmlRoute => {
    const to = ph === "so" ? "io" : "so";
    const link = (inner: string) => el("Link", XIP7, inner);
    return {
      method: "POST",
      path: `${E}/${path}/{${ph}}/links`,
      root: "Link",
      ns: XIP7,
      inner: `<Type>http://purl.org/dc/terms/requires</Type><ToEntity>{${to}}</ToEntity>`,
      specific: [
        ["no Type", link(`<ToEntity>{${to}}</ToEntity>`), [400], /<Type> is missing/],
        [
          "no ToEntity",
          link("<Type>http://purl.org/dc/terms/requires</Type>"),
          [400],
          /<ToEntity> is missing/,
        ],
        ["ToEntity itself", link(`<Type>x</Type><ToEntity>{${ph}}</ToEntity>`), [400], /the entity itself/],
        ["unknown ToEntity", link(`<Type>x</Type><ToEntity>${UNKNOWN_UUID}</ToEntity>`), [404], /not found/],
        ["deleted ToEntity", link("<Type>x</Type><ToEntity>{binned}</ToEntity>"), [404], /not found/],
        [
          "ToEntity not a UUID",
          link("<Type>x</Type><ToEntity>{so}{so}</ToEntity>"),
          [400],
          /not an entity reference/,
        ],
        [
          "FromEntity of another entity",
          link(`<Type>x</Type><FromEntity>${UNKNOWN_UUID}</FromEntity><ToEntity>{${to}}</ToEntity>`),
          [400],
          /differs/,
        ],
        ...(ph === "io"
          ? ([
              [
                "the same link again",
                link("<Type>http://purl.org/dc/terms/references</Type><ToEntity>{so}</ToEntity>"),
                [409],
                /already has/,
              ],
            ] as Junk[])
          : []),
      ],
    };
  }),
  ...(
    [
      ["so", "structural-objects"],
      ["io", "information-objects"],
    ] as const
  ).map(
    ([ph, path]): XmlRoute => ({
      method: "DELETE",
      path: `${E}/${path}/{${ph}}`,
      root: "DeletionAction",
      ns: ENT7,
      inner: DELETION,
      specific: [
        ["no Submission", el("DeletionAction", ENT7, "<Comment>junk</Comment>"), [400], /needs a Submission/],
        ["an Approval", el("DeletionAction", ENT7, APPROVAL), [400], /needs a Submission/],
        ["a RecoveryAction", el("RecoveryAction", ENT7, DELETION), [400], /must be DeletionAction/],
        ...(ph === "io"
          ? ([
              ["an asset under retention", el("DeletionAction", ENT7, DELETION), [409], /retention/i],
            ] as Junk[])
          : []),
      ],
    }),
  ),
  {
    method: "DELETE",
    path: `${E}/structural-objects/{pendingFolder}`,
    root: "DeletionAction",
    ns: ENT7,
    inner: DELETION,
    specific: [
      [
        "a folder already awaiting deletion",
        el("DeletionAction", ENT7, DELETION),
        [409],
        /awaiting approval/,
      ],
    ],
  },
  {
    method: "PUT",
    path: `${E}/actions/deletions/{pending}`,
    root: "DeletionAction",
    ns: ENT7,
    inner: APPROVAL,
    specific: [
      ["no Approval", el("DeletionAction", ENT7, DELETION), [400], /Approval\/Approved/],
      [
        "no Approved",
        el("DeletionAction", ENT7, "<Approval><Comment>x</Comment></Approval>"),
        [400],
        /Approval\/Approved/,
      ],
      [
        "Approved yes",
        el("DeletionAction", ENT7, "<Approval><Approved>yes</Approved></Approval>"),
        [400],
        /true or false/,
      ],
      [
        "Approved 900 KB",
        el("DeletionAction", ENT7, `<Approval><Approved>${"t".repeat(900_000)}</Approved></Approval>`),
        [400],
        /true or false/,
      ],
    ],
  },
  ...["recoveries", "recoveries/", "final-deletions", "final-deletions/"].map((kind): XmlRoute => {
    const root = kind.startsWith("recoveries") ? "RecoveryAction" : "FinalDeletionAction";
    const other = root === "RecoveryAction" ? "FinalDeletionAction" : "RecoveryAction";
    const body = (inner: string) => el(root, ENT7, inner);
    return {
      method: "POST",
      path: `${E}/actions/${kind}`,
      root,
      ns: ENT7,
      inner: "<Deletion>{done}</Deletion>",
      specific: [
        ["names nothing", body("<Comment>x</Comment>"), [400], /names no Deletion/],
        [
          `a valid ${other}`,
          el(other, ENT7, "<Deletion>{done}</Deletion>"),
          [400],
          new RegExp(`must be ${root}`),
        ],
        ["Deletion not a UUID", body("<Deletion>x</Deletion>"), [400], /not a deletion action id/],
        ["unknown Deletion", body(`<Deletion>${UNKNOWN_UUID}</Deletion>`), [404], /No deletion/],
        ["a pending Deletion", body("<Deletion>{pending}</Deletion>"), [409], /PENDING/],
        ["an entity ref as Deletion", body("<Deletion>{binned}</Deletion>"), [404], /No deletion/],
        ["a live Entity", body("<Entity>{io}</Entity>"), [409], /not in the recycle bin/],
        ["unknown Entity", body(`<Entity>${UNKNOWN_UUID}</Entity>`), [404], /not found/],
        ["Entity not a UUID", body("<Entity>{binned}x</Entity>"), [400], /not a UUID/],
        ["900 KB Entity", body(`<Entity>${"e".repeat(900_000)}</Entity>`), [400], /not a UUID/],
        [
          "a good Deletion and a live Entity",
          body("<Deletion>{done}</Deletion><Entity>{so}</Entity>"),
          [409],
          /not in the recycle bin/,
        ],
        [
          "a good Deletion and an unknown one",
          body(`<Deletion>{done}</Deletion><Deletion>${UNKNOWN_UUID}</Deletion>`),
          [404],
          /No deletion/,
        ],
        ["1,001 Entities", body("<Entity>{binned}</Entity>".repeat(1001)), [400], /at most 1000/],
      ],
    };
  }),
  {
    method: "POST",
    path: `${E}/retention-policies`,
    root: "RetentionPolicy",
    ns: RM,
    inner: POLICY,
    specific: [
      ["no Name", el("RetentionPolicy", RM, "<SecurityTag>open</SecurityTag>"), [400], /Name is required/],
      [
        "Name of 256 characters",
        el("RetentionPolicy", RM, `<Name>${"n".repeat(256)}</Name><SecurityTag>open</SecurityTag>`),
        [400],
        /longer than 255/,
      ],
      [
        "Name taken",
        el("RetentionPolicy", RM, "<Name>Junk fixture policy</Name><SecurityTag>open</SecurityTag>"),
        [409],
        /already exists/,
      ],
      [
        "no SecurityTag",
        el("RetentionPolicy", RM, "<Name>Junk policy</Name>"),
        [400],
        /SecurityTag is required/,
      ],
      [
        "unknown SecurityTag",
        el("RetentionPolicy", RM, "<Name>Junk policy</Name><SecurityTag>nope</SecurityTag>"),
        [400],
        /does not exist/,
      ],
      ...["0", "-1", "1.5", "1e3", "1000000", "seven", "9".repeat(300)].map(
        (p): Junk => [
          `Period ${p.slice(0, 12)}`,
          el(
            "RetentionPolicy",
            RM,
            `<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>${p}</Period><PeriodUnit>YEARS</PeriodUnit>`,
          ),
          [400],
          /Period/,
        ],
      ),
      [
        "PeriodUnit FORTNIGHTS",
        el(
          "RetentionPolicy",
          RM,
          "<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>7</Period><PeriodUnit>FORTNIGHTS</PeriodUnit>",
        ),
        [400],
        /PeriodUnit must be/,
      ],
      [
        "Period without PeriodUnit",
        el(
          "RetentionPolicy",
          RM,
          "<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>7</Period>",
        ),
        [400],
        /PeriodUnit is required/,
      ],
      [
        "Assignable maybe",
        el("RetentionPolicy", RM, `${POLICY}<Assignable>maybe</Assignable>`),
        [400],
        /True or False/,
      ],
      [
        "Description over 10,000 characters",
        el("RetentionPolicy", RM, `${POLICY}<Description>${"d".repeat(10_001)}</Description>`),
        [400],
        /longer than 10000/,
      ],
      ["a RetentionAssignment", el("RetentionAssignment", RM, POLICY), [400], /not <RetentionPolicy>/],
    ],
  },
  {
    method: "PUT",
    path: `${E}/retention-policies/{policy}`,
    root: "RetentionPolicy",
    ns: RM,
    inner: "<Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag>",
    specific: [
      [
        "Ref of another policy",
        el(
          "RetentionPolicy",
          RM,
          "<Ref>{policy2}</Ref><Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag>",
        ),
        [400],
        /differs/,
      ],
      [
        "Name of another policy",
        el("RetentionPolicy", RM, "<Name>Junk fixture policy 2</Name><SecurityTag>closed</SecurityTag>"),
        [409],
        /already exists/,
      ],
      [
        "Period junk",
        el(
          "RetentionPolicy",
          RM,
          "<Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag><Period>x</Period><PeriodUnit>DAYS</PeriodUnit>",
        ),
        [400],
        /Period must be/,
      ],
    ],
  },
  {
    method: "POST",
    path: `${E}/information-objects/{io}/retention-assignments`,
    root: "RetentionAssignment",
    ns: RM,
    inner: "<RetentionPolicy>{spare}</RetentionPolicy>",
    specific: [
      ["no RetentionPolicy", el("RetentionAssignment", RM, "<Policy>{spare}</Policy>"), [400], /is required/],
      [
        "RetentionPolicy not a UUID",
        el("RetentionAssignment", RM, "<RetentionPolicy>{spare}x</RetentionPolicy>"),
        [400],
        /not a UUID/,
      ],
      [
        "900 KB RetentionPolicy",
        el("RetentionAssignment", RM, `<RetentionPolicy>${"p".repeat(900_000)}</RetentionPolicy>`),
        [400],
        /not a UUID/,
      ],
      [
        "unknown policy",
        el("RetentionAssignment", RM, `<RetentionPolicy>${UNKNOWN_UUID}</RetentionPolicy>`),
        [404],
        /not found/,
      ],
      [
        "policy already assigned",
        el("RetentionAssignment", RM, "<RetentionPolicy>{policy}</RetentionPolicy>"),
        [409],
        /already assigned/,
      ],
      [
        "policy not assignable",
        el("RetentionAssignment", RM, "<RetentionPolicy>{policy2}</RetentionPolicy>"),
        [409],
        /not assignable/,
      ],
      [
        "an entity as the policy",
        el("RetentionAssignment", RM, "<RetentionPolicy>{io}</RetentionPolicy>"),
        [404],
        /not found/,
      ],
    ],
  },
];

function xmlWriteJunk(): Case[] {
  const cases: Case[] = [];
  for (const [i, r] of XML_ROUTES.entries()) {
    const { always, shared } = xmlJunk(r.root, r.ns, r.inner);
    for (const [name, body, expectStatus, message] of [...always, ...spread(shared, i), ...r.specific]) {
      cases.push({
        name: `${r.method} ${r.path.slice(E.length)}: ${name}`,
        method: r.method,
        path: r.path,
        headers: XML_TYPE,
        body,
        expect: expectStatus,
        message,
      });
    }
    // The body in the type the Content-Type names, not XML: one kind per route, in turn. (The declared
    // type of an XML body is not checked: a right body under a wrong type is taken, as clients differ.)
    const doc = el(r.root, r.ns, r.inner);
    const typed: [string, Record<string, string>, Body][] = [
      ["JSON", JSON_TYPE, '{"Title":"Junk title"}'],
      ["a form", FORM, "Title=Junk+title&SecurityTag=open"],
      ["multipart", { "Content-Type": "multipart/form-data; boundary=xyz" }, multipart(Buffer.from(doc))],
      ["UTF-16", { "Content-Type": "application/xml; charset=utf-16" }, Buffer.from(doc, "utf16le")],
    ];
    const [kind, headers, body] = typed[i % typed.length] as [string, Record<string, string>, Body];
    cases.push({
      name: `${r.method} ${r.path.slice(E.length)}: ${kind} under its own Content-Type`,
      method: r.method,
      path: r.path,
      headers,
      body,
      expect: [400],
    });
    // The same through a versioned path: the sub-app is the same, its examples in that version's namespaces.
    cases.push({
      name: `${r.method} v6.0${r.path.slice(E.length)}: wrong root`,
      method: r.method,
      path: r.path.replace(E, `${E}/v6.0`),
      headers: XML_TYPE,
      body: el("Wrong", r.ns, r.inner),
      expect: [400],
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Write routes: refs, ApiIds and fragment refs in the path, with a body the route would take

/** Refs for write paths: a selection of BAD_REFS (the read junk covers the rest through the same helper). */
const WRITE_BAD_REFS = ["not-a-uuid", "%00", "..%2f..%2fetc%2fpasswd", "%C3%28", "{io}x", "x".repeat(5000)];
const BAD_API_IDS = ["a%20b", "%00", "a%2fb", "x".repeat(101), "%C3%28", "'%20OR%201%3D1"];

function pathJunk(): Case[] {
  const cases: Case[] = [];
  const add = (
    name: string,
    method: string,
    path: string,
    expectStatus: number[],
    body?: Body,
    headers = XML_TYPE,
  ) => cases.push({ name, method, path, headers, body, expect: expectStatus });
  for (const [ph, path, root] of TYPES) {
    const others = TYPES.filter(([o]) => o !== ph).map(([o]) => o);
    const save = el(root, XIP7, "<Title>Junk title</Title>");
    const writes: [string, string, Body | undefined][] = [
      ["PUT", `${E}/${path}/{ref}`, save],
      ["POST", `${E}/${path}/{ref}/metadata`, el("MetadataContainer", XIP7, `<Content>${DC_DOC}</Content>`)],
      [
        "POST",
        `${E}/${path}/{ref}/identifiers`,
        el("Identifier", XIP7, "<Type>junk</Type><Value>J-3</Value>"),
      ],
      ["POST", `${E}/${path}/{ref}/links`, el("Link", XIP7, "<Type>junk</Type><ToEntity>{so}</ToEntity>")],
      ["PUT", `${E}/${path}/{ref}/parent-ref`, "@root@"],
      ["PUT", `${E}/${path}/{ref}/security-descriptor`, "closed"],
      ["DELETE", `${E}/${path}/{ref}`, el("DeletionAction", ENT7, DELETION)],
      [
        "POST",
        `${E}/${path}/{ref}/retention-assignments`,
        el("RetentionAssignment", RM, "<RetentionPolicy>{spare}</RetentionPolicy>"),
      ],
    ];
    if (ph !== "co")
      writes.push(
        ["PUT", `${E}/${path}/{ref}/preview`, PNG],
        ["DELETE", `${E}/${path}/{ref}/preview`, undefined],
      );
    for (const [j, [method, p, body]] of writes.entries()) {
      const headers = p.endsWith("preview")
        ? OCTET
        : p.endsWith("-ref") || p.endsWith("descriptor")
          ? TEXT_TYPE
          : XML_TYPE;
      const short = p.slice(E.length).replace(`/${path}/`, "/");
      for (const bad of spread(WRITE_BAD_REFS, ph === "so" ? 0 : j + 1)) {
        add(
          `${method} ${path} ${short} ref ${bad.slice(0, 16)}`,
          method,
          p.replace("{ref}", bad),
          [404],
          body,
          headers,
        );
      }
      add(
        `${method} ${path} ${short} unknown ref`,
        method,
        p.replace("{ref}", UNKNOWN_UUID),
        [404],
        body,
        headers,
      );
      add(
        `${method} ${path} ${short} deleted ref`,
        method,
        p.replace("{ref}", "{binned}"),
        [404],
        body,
        headers,
      );
      const other = others[j % others.length] as string;
      add(
        `${method} ${path} ${short} {${other}} as ref`,
        method,
        p.replace("{ref}", `{${other}}`),
        [404],
        body,
        headers,
      );
    }
    // Fragment refs and ApiIds: malformed, unknown, another entity's.
    const mine = ph === "so" ? "soMref" : "ioMref";
    const fragmentBody = container(`{${ph}}`);
    for (const method of ["PUT", "DELETE"]) {
      const body = method === "PUT" ? fragmentBody : undefined;
      for (const bad of ["not-a-uuid", "%00", "x".repeat(3000)]) {
        add(
          `${method} ${path} metadata/${bad.slice(0, 12)}`,
          method,
          `${E}/${path}/{${ph}}/metadata/${bad}`,
          [404],
          body,
        );
      }
      add(
        `${method} ${path} unknown fragment`,
        method,
        `${E}/${path}/{${ph}}/metadata/${UNKNOWN_UUID}`,
        [404],
        body,
      );
      const foreign = ph === "so" ? "ioMref" : "soMref";
      add(
        `${method} ${path} another entity's fragment`,
        method,
        `${E}/${path}/{${ph}}/metadata/{${foreign}}`,
        [404],
        body,
      );
      if (ph !== "co")
        add(
          `${method} ${path} the entity ref as fragment`,
          method,
          `${E}/${path}/{${ph}}/metadata/{${ph}}`,
          [404],
          body,
        );
      if (ph === "co")
        add(
          `${method} ${path} a fragment as the entity`,
          method,
          `${E}/${path}/{${mine}}/metadata/{${mine}}`,
          [404],
          body,
        );
    }
    const idBody = el("Identifier", XIP7, "<Type>junk</Type><Value>J-4</Value>");
    for (const [method, kind] of [
      ["GET", "identifiers"],
      ["PUT", "identifiers"],
      ["DELETE", "identifiers"],
      ["GET", "links"],
      ["DELETE", "links"],
    ] as const) {
      const body = method === "PUT" ? idBody : undefined;
      for (const bad of spread(BAD_API_IDS, kind === "identifiers" && ph === "io" ? 0 : method.length)) {
        add(
          `${method} ${path} ${kind}/${bad.slice(0, 12)}`,
          method,
          `${E}/${path}/{${ph}}/${kind}/${bad}`,
          [400],
          body,
        );
      }
      add(
        `${method} ${path} ${kind} unknown ApiId`,
        method,
        `${E}/${path}/{${ph}}/${kind}/deadbeef`,
        [404],
        body,
      );
      const foreign =
        kind === "identifiers" ? (ph === "io" ? "{soId}" : "{ioId}") : ph === "co" ? "{ioLink}" : "{soId}";
      add(
        `${method} ${path} ${kind} not the entity's`,
        method,
        `${E}/${path}/{${ph}}/${kind}/${foreign}`,
        [404],
        body,
      );
    }
    // Retention assignments belong to assets.
    if (ph !== "io") {
      add(`GET ${path} retention-assignments`, "GET", `${E}/${path}/{${ph}}/retention-assignments`, [400]);
      add(
        `POST ${path} retention-assignments`,
        "POST",
        `${E}/${path}/{${ph}}/retention-assignments`,
        [400],
        el("RetentionAssignment", RM, "<RetentionPolicy>{spare}</RetentionPolicy>"),
      );
      add(
        `DELETE ${path} retention-assignments`,
        "DELETE",
        `${E}/${path}/{${ph}}/retention-assignments/{assignment}`,
        [400],
      );
    }
  }
  for (const bad of [...WRITE_BAD_REFS, "x".repeat(200)]) {
    add(
      `DELETE assignment ${bad.slice(0, 12)}`,
      "DELETE",
      `${E}/information-objects/{io}/retention-assignments/${bad}`,
      [404],
    );
  }
  add(
    "DELETE assignment of another policy's ApiId form",
    "DELETE",
    `${E}/information-objects/{io}/retention-assignments/${UNKNOWN_UUID}`,
    [404],
  );
  add(
    "DELETE assignment on another asset",
    "DELETE",
    `${E}/information-objects/{otherIo}/retention-assignments/{assignment}`,
    [404],
  );
  add(
    "DELETE assignment of a policy not assignable",
    "DELETE",
    `${E}/information-objects/{io}/retention-assignments/{assignment2}`,
    [409],
  );
  add("DELETE preview of a folder without one", "DELETE", `${E}/structural-objects/{so}/preview`, [404]);
  add("DELETE preview of an asset without one", "DELETE", `${E}/information-objects/{io}/preview`, [404]);
  add("DELETE preview of a content object", "DELETE", `${E}/content-objects/{co}/preview`, [400]);
  add(
    "DELETE a deleted folder",
    "DELETE",
    `${E}/structural-objects/{binned}`,
    [404],
    el("DeletionAction", ENT7, DELETION),
  );
  // Policies and deletion actions by ref.
  const policyBody = el(
    "RetentionPolicy",
    RM,
    "<Name>Junk fixture policy</Name><SecurityTag>closed</SecurityTag>",
  );
  for (const [method, suffix, body, headers] of [
    ["GET", "", undefined, XML_TYPE],
    ["PUT", "", policyBody, XML_TYPE],
    ["PUT", "/assignable", "False", TEXT_TYPE],
    ["DELETE", "", undefined, XML_TYPE],
  ] as const) {
    for (const bad of spread(
      WRITE_BAD_REFS,
      method === "PUT" && suffix === "" ? 0 : suffix.length + method.length,
    )) {
      add(
        `${method} policy${suffix} ${bad.slice(0, 12)}`,
        method,
        `${E}/retention-policies/${bad}${suffix}`,
        [404],
        body,
        headers,
      );
    }
    add(
      `${method} policy${suffix} unknown`,
      method,
      `${E}/retention-policies/${UNKNOWN_UUID}${suffix}`,
      [404],
      body,
      headers,
    );
    add(
      `${method} policy${suffix} an entity ref`,
      method,
      `${E}/retention-policies/{io}${suffix}`,
      [404],
      body,
      headers,
    );
  }
  add("DELETE a policy in use", "DELETE", `${E}/retention-policies/{policy}`, [409]);
  add("DELETE a policy in use, not assignable", "DELETE", `${E}/retention-policies/{policy2}`, [409]);
  const approve = el("DeletionAction", ENT7, "<Approval><Approved>true</Approved></Approval>");
  for (const bad of WRITE_BAD_REFS) {
    add(`approve deletion ${bad.slice(0, 12)}`, "PUT", `${E}/actions/deletions/${bad}`, [404], approve);
  }
  add("approve an unknown deletion", "PUT", `${E}/actions/deletions/${UNKNOWN_UUID}`, [404], approve);
  add("approve an entity ref", "PUT", `${E}/actions/deletions/{io}`, [404], approve);
  add("approve a completed deletion", "PUT", `${E}/actions/deletions/{done}`, [409], approve);
  add(
    "reject a completed deletion",
    "PUT",
    `${E}/actions/deletions/{done}`,
    [409],
    el("DeletionAction", ENT7, APPROVAL),
  );
  add("approve through v7.7", "PUT", `${E}/v7.7/actions/deletions/{done}`, [409], approve);
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Write routes: text/plain bodies (move, security tag, assignable)

function textWriteJunk(): Case[] {
  const cases: Case[] = [];
  const add = (
    name: string,
    path: string,
    body: Body,
    expectStatus: number[],
    message?: RegExp,
    headers: Record<string, string> = TEXT_TYPE,
  ) => cases.push({ name, method: "PUT", path, headers, body, expect: expectStatus, message });
  const LONG = "x".repeat(100_000);
  const notRef = /not a folder reference|body is empty/;
  const move = `${E}/structural-objects/{so}/parent-ref`;
  for (const [name, body, status, message] of [
    ["empty", "", [400], /body is empty/],
    ["blank", " \n\t ", [400], /body is empty/],
    ["not a UUID", "not-a-folder", [400], notRef],
    ["ref with junk after it", "{otherSo}x", [400], notRef],
    ["two refs", "{otherSo}\n{otherSo}", [400], notRef],
    ["ref with a NUL", "{otherSo}\u0000", [400], notRef],
    ["@ROOT@", "@ROOT@", [400], notRef],
    ["@root", "@root", [400], notRef],
    ["root", "root", [400], notRef],
    ["@root@@root@", "@root@@root@", [400], notRef],
    ["@root@ and a ref", "@root@ {otherSo}", [400], notRef],
    ["JSON", '{"destination":"{otherSo}"}', [400], notRef],
    ["XML", "<Parent>{otherSo}</Parent>", [400], notRef],
    ["a form", "parentRef={otherSo}", [400], notRef],
    ["100,000 characters", LONG, [400], notRef],
    ["not UTF-8", { latin1: "\xff\xfe{otherSo}" }, [400], notRef],
    ["unknown folder", UNKNOWN_UUID, [404], /not found/],
    ["deleted folder", "{binned}", [404], /not found/],
    ["itself", "{so}", [409], /into itself/],
    ["its own subfolder", "{pendingFolder}", [409], /own subtree/],
    ["an asset", "{io}", [409], /folders and assets can only be moved into a folder/],
    ["a content object", "{co}", [409], /only be moved into a folder/],
    ["a fragment ref", "{soMref}", [404], /not found/],
  ] as [string, Body, number[], RegExp][]) {
    add(`move folder: ${name}`, move, body, status, message);
  }
  for (const [name, body, status, message] of [
    ["@root@", "@root@", [409], /Only folders can be at the top level/],
    [" @root@ ", "  @root@\n", [409], /Only folders/],
    ["itself", "{io}", [409], /Asset .* cannot be moved into itself/],
    ["a content object", "{co}", [409], /only be moved into a folder/],
    ["empty", "", [400], /body is empty/],
    ["not a UUID", "{otherSo}{otherSo}", [400], notRef],
  ] as [string, Body, number[], RegExp][]) {
    add(`move asset: ${name}`, `${E}/information-objects/{io}/parent-ref`, body, status, message);
  }
  add(
    "move content object",
    `${E}/content-objects/{co}/parent-ref`,
    "{otherSo}",
    [409],
    /Content objects stay with their asset/,
  );
  add(
    "move content object to @root@",
    `${E}/content-objects/{co}/parent-ref`,
    "@root@",
    [409],
    /stay with their asset/,
  );
  add("move folder sent as JSON", move, '"{otherSo}"', [400], notRef, JSON_TYPE);
  add("move through v6.0", `${E}/v6.0/structural-objects/{so}/parent-ref`, "@root", [400], notRef);

  const tag = (ph: string, path: string) => `${E}/${path}/{${ph}}/security-descriptor`;
  const noTag = /does not exist|body is empty/;
  for (const [i, [ph, path]] of TYPES.entries()) {
    const tags: [string, Body, number[], RegExp][] = [
      ["empty", "", [400], /body is empty/],
      ["unknown tag", "secret", [400], /does not exist/],
      ["tag in the wrong case", "CLOSED", [400], /does not exist/],
      ["tag with a NUL", "closed\u0000", [400], noTag],
      ["two tags", "closed\nopen", [400], noTag],
      ["tag in quotes", '"closed"', [400], noTag],
      ["XML", "<SecurityTag>closed</SecurityTag>", [400], noTag],
      ["100,000 characters", LONG, [400], noTag],
      ["not UTF-8", { latin1: "clos\xe9d" }, [400], noTag],
    ];
    for (const [name, body, status, message] of spread(tags, i))
      add(`${ph} security tag: ${name}`, tag(ph, path), body, status, message);
    for (const q of ["maybe", "1", "%00", "true,false", "yes"]) {
      add(
        `${ph} security tag: includeDescendants=${q}`,
        `${tag(ph, path)}?includeDescendants=${q}`,
        "closed",
        [400],
        /includeDescendants must be true or false/,
      );
    }
  }
  add(
    "security tag through v6.0",
    `${E}/v6.0/structural-objects/{so}/security-descriptor`,
    "nope",
    [400],
    /does not exist/,
  );

  const assignable = `${E}/retention-policies/{policy}/assignable`;
  for (const [name, body] of [
    ["empty", ""],
    ["maybe", "maybe"],
    ["yes", "yes"],
    ["1", "1"],
    ["both", "True False"],
    ["Tru", "Tru"],
    ["XML", "<Assignable>True</Assignable>"],
    ["JSON", "true,"],
    ["100,000 characters", LONG],
    ["not UTF-8", { latin1: "Tru\xe9" }],
  ] as [string, Body][]) {
    add(`assignable: ${name}`, assignable, body, [400], /must be True or False/);
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Write routes: files (previews, new content, new representations)

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const FILE = Buffer.from("Junk content that must never be stored.\n");
const md5 = (b: Buffer | string) => createHash("md5").update(b).digest("hex");
const sha1 = (b: Buffer | string) => createHash("sha1").update(b).digest("hex");
const multipart = (file: Buffer) =>
  Buffer.concat([
    Buffer.from(
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
    ),
    file,
    Buffer.from("\r\n--xyz--\r\n"),
  ]);

function fileWriteJunk(): Case[] {
  const cases: Case[] = [];
  for (const [ph, path] of TYPES.slice(0, 2)) {
    const p = `${E}/${path}/{${ph}}/preview`;
    for (const [name, body, headers, status, message] of [
      ["not an image", Buffer.from("hello, not a picture"), OCTET, [400], /not a PNG/],
      ["empty", Buffer.alloc(0), OCTET, [400], /body is empty/],
      ["7 bytes of a PNG", PNG.subarray(0, 7), OCTET, [400], /not a PNG/],
      [
        "a PNG in a multipart form",
        multipart(PNG),
        { "Content-Type": "multipart/form-data; boundary=xyz" },
        [400],
        /not a PNG/,
      ],
      ["a PNG as base64 text", PNG.toString("base64"), { "Content-Type": "text/plain" }, [400], /not a PNG/],
      [
        "an SVG",
        '<svg xmlns="http://www.w3.org/2000/svg"/>',
        { "Content-Type": "image/svg+xml" },
        [400],
        /not a PNG/,
      ],
    ] as [string, Body, Record<string, string>, number[], RegExp][]) {
      cases.push({
        name: `preview ${ph}: ${name}`,
        method: "PUT",
        path: p,
        headers,
        body,
        expect: status,
        message,
      });
    }
  }
  cases.push({
    name: "preview: over 10 MB",
    method: "PUT",
    path: `${E}/information-objects/{io}/preview`,
    headers: OCTET,
    body: Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]),
    expect: [413],
    message: /larger than 10 MB/,
  });
  cases.push({
    name: "preview: over 10 MB, chunked",
    method: "PUT",
    path: `${E}/structural-objects/{so}/preview`,
    headers: OCTET,
    body: { chunks: [PNG, ...Array.from({ length: 11 }, () => Buffer.alloc(1024 * 1024))] },
    expect: [413],
    message: /larger than 10 MB/,
  });
  cases.push({
    name: "preview of a content object",
    method: "PUT",
    path: `${E}/content-objects/{co}/preview`,
    headers: OCTET,
    body: PNG,
    expect: [400],
    message: /Content objects have no custom preview/,
  });
  cases.push({
    name: "preview through v6.0: not an image",
    method: "PUT",
    path: `${E}/v6.0/information-objects/{io}/preview`,
    headers: OCTET,
    body: FILE,
    expect: [400],
    message: /not a PNG/,
  });

  // Packages uploaded for ingest into a folder (entity-ingest.ts): each refused before an ingest starts.
  const pkg = `${E}/structural-objects/{so}`;
  for (const [name, path, headers, body, status, message] of [
    ["not a zip", pkg, OCTET, FILE, [400], /not a zip file/],
    ["empty", pkg, OCTET, Buffer.alloc(0), [400], /body is empty/],
    [
      "a multipart form",
      pkg,
      { "Content-Type": "multipart/form-data; boundary=xyz" },
      multipart(FILE),
      [415],
      /multipart/,
    ],
    ["into an asset", `${E}/structural-objects/{io}`, OCTET, FILE, [404], /not found/],
    ["into a deleted folder", `${E}/structural-objects/{binned}`, OCTET, FILE, [404], /not found/],
    ["into a junk ref", `${E}/structural-objects/{so}x`, OCTET, FILE, [404], /not a UUID/],
    ["into an unknown folder", `${E}/structural-objects/${UNKNOWN_UUID}`, OCTET, FILE, [404], /not found/],
    ["through v6.0, not a zip", `${E}/v6.0/structural-objects/{so}`, OCTET, FILE, [400], /not a zip file/],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({ name: `package: ${name}`, method: "POST", path, headers, body, expect: status, message });
  }

  const gen = `${E}/content-objects/{co}/generations`;
  const good = { ...OCTET, Filename: "junk.txt", "Fixity-MD5": md5(FILE) };
  const without = (k: string) => Object.fromEntries(Object.entries(good).filter(([h]) => h !== k));
  for (const [name, path, headers, body, status, message] of [
    ["no Filename", gen, without("Filename"), FILE, [400], /Filename header is required/],
    ["empty Filename", gen, { ...good, Filename: "" }, FILE, [400], /Filename header is required/],
    ["Filename with a folder", gen, { ...good, Filename: "../junk.txt" }, FILE, [400], /bare file name/],
    ["Filename with a backslash", gen, { ...good, Filename: "a\\b.txt" }, FILE, [400], /bare file name/],
    ["Filename ..", gen, { ...good, Filename: ".." }, FILE, [400], /bare file name/],
    ["Filename with a tab", gen, { ...good, Filename: "a\tb.txt" }, FILE, [400], /bare file name/],
    [
      "Filename of 300 characters",
      gen,
      { ...good, Filename: `${"f".repeat(296)}.txt` },
      FILE,
      [400],
      /longer than 255/,
    ],
    ["no Fixity", gen, without("Fixity-MD5"), FILE, [400], /checksum/],
    ["Fixity-MD5 not hex", gen, { ...good, "Fixity-MD5": "xyz" }, FILE, [400], /32 hexadecimal digits/],
    [
      "Fixity-SHA-256 too short",
      gen,
      { ...without("Fixity-MD5"), "Fixity-SHA-256": "a".repeat(63) },
      FILE,
      [400],
      /64 hexadecimal/,
    ],
    [
      "Fixity-MD5 of other bytes",
      gen,
      { ...good, "Fixity-MD5": md5("other") },
      FILE,
      [400],
      /does not match its Fixity-MD5/,
    ],
    [
      "right SHA-1, wrong MD5",
      gen,
      { ...good, "Fixity-SHA-1": sha1(FILE), "Fixity-MD5": md5("x") },
      FILE,
      [400],
      /does not match/,
    ],
    ["replaceType junk", `${gen}?replaceType=all`, good, FILE, [400], /replaceType "all" is not supported/],
    [
      "multipart form",
      gen,
      { ...good, "Content-Type": "multipart/form-data; boundary=xyz" },
      multipart(FILE),
      [415],
      /not as a multipart form/,
    ],
    ["empty body", gen, { ...good, "Fixity-MD5": md5("") }, Buffer.alloc(0), [400], /body is empty/],
    ["asset ref", `${E}/content-objects/{io}/generations`, good, FILE, [404], /not found/],
    ["unknown ref", `${E}/content-objects/${UNKNOWN_UUID}/generations`, good, FILE, [404], /not found/],
    ["bad ref", `${E}/content-objects/{co}x/generations`, good, FILE, [404], /not a UUID/],
    [
      "through v6.0, no Fixity",
      `${E}/v6.0/content-objects/{co}/generations`,
      without("Fixity-MD5"),
      FILE,
      [400],
      /checksum/,
    ],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({
      name: `new content: ${name}`,
      method: "POST",
      path,
      headers,
      body,
      expect: status,
      message,
    });
  }

  const rep = `${E}/information-objects/{io}/representations`;
  const q = "type=Access&name=Junk&filename=junk.txt";
  for (const [name, query, headers, body, status, message] of [
    ["no type", "name=Junk&filename=junk.txt", OCTET, FILE, [400], /type is required/],
    ["type Preservation", "type=Preservation&filename=junk.txt", OCTET, FILE, [400], /Only Access/],
    ["type NUL", "type=%00&filename=junk.txt", OCTET, FILE, [400], /Only Access/],
    ["no filename", "type=Access&name=Junk", OCTET, FILE, [400], /filename is required/],
    ["filename with a folder", "type=Access&filename=..%2fjunk.txt", OCTET, FILE, [400], /bare file name/],
    ["filename with a NUL", "type=Access&filename=a%00b", OCTET, FILE, [400], /bare file name/],
    [
      "name of 300 characters",
      `type=Access&filename=a.txt&name=${"n".repeat(300)}`,
      OCTET,
      FILE,
      [400],
      /at most 255/,
    ],
    [
      "name with a control character",
      "type=Access&filename=a.txt&name=a%01b",
      OCTET,
      FILE,
      [400],
      /at most 255/,
    ],
    ["Fixity-MD5 of other bytes", q, { ...OCTET, "Fixity-MD5": md5("other") }, FILE, [400], /does not match/],
    [
      "Fixity-SHA-512 not hex",
      q,
      { ...OCTET, "Fixity-SHA-512": "z".repeat(128) },
      FILE,
      [400],
      /128 hexadecimal/,
    ],
    [
      "multipart form",
      q,
      { "Content-Type": "multipart/form-data; boundary=xyz" },
      multipart(FILE),
      [415],
      /multipart/,
    ],
    ["empty body", q, OCTET, Buffer.alloc(0), [400], /body is empty/],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({
      name: `new representation: ${name}`,
      method: "POST",
      path: `${rep}?${query}`,
      headers,
      body,
      expect: status,
      message,
    });
  }
  cases.push({
    name: "new representation on a content object",
    method: "POST",
    path: `${E}/information-objects/{co}/representations?${q}`,
    headers: OCTET,
    body: FILE,
    expect: [404],
  });
  return cases;
}

/**
 * Bodies whose Content-Length lies, straight onto a socket: [name, bytes, statuses, what the first
 * answer must say]. Shorter: the service takes the declared bytes (a truncated file or document, which
 * it refuses) and what follows as the next request (here a GET without a token, answered 401 after).
 * Longer: the client stops sending and half-closes; the HTTP parser refuses the cut-off body (400).
 * Either way nothing is stored and no part-file is left behind.
 */
function lyingLengths(): [string, string, number[], RegExp?][] {
  const head = (method: string, path: string, headers: Record<string, string>, length: number) =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nPreservica-Access-Token: {token}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("")}Content-Length: ${length}\r\n\r\n`;
  const next = "GET /api/user/details HTTP/1.1\r\nHost: x\r\n\r\n";
  const shorter = (method: string, path: string, headers: Record<string, string>, body: string, n: number) =>
    head(method, path, headers, n) + body.slice(0, n) + next;
  const text = FILE.toString("latin1");
  const png = PNG.toString("latin1");
  const save = el("InformationObject", XIP7, "<Title>Junk title</Title>");
  const gen = `${E}/content-objects/{co}/generations`;
  const genHeaders = { ...OCTET, Filename: "junk.txt", "Fixity-MD5": md5(FILE) };
  const preview = `${E}/information-objects/{io}/preview`;
  const put = `${E}/information-objects/{io}`;
  const rep = `${E}/information-objects/{io}/representations?type=Access&filename=junk.txt`;
  const cutOff = /not valid HTTP/;
  return [
    [
      "new content, Content-Length shorter",
      shorter("POST", gen, genHeaders, text, 10),
      [400],
      /does not match/,
    ],
    [
      "new content, Content-Length longer",
      head("POST", gen, genHeaders, FILE.length + 50) + text,
      [400],
      cutOff,
    ],
    [
      "new content, Content-Length huge",
      head("POST", gen, genHeaders, 99_999_999_999_999) + text,
      [413],
      /larger/,
    ],
    ["preview, Content-Length shorter", shorter("PUT", preview, OCTET, png, 7), [400], /not a PNG/],
    ["preview, Content-Length longer", head("PUT", preview, OCTET, PNG.length + 100) + png, [400], cutOff],
    ["preview, Content-Length over 10 MB", head("PUT", preview, OCTET, 20_000_000) + png, [413], /10 MB/],
    [
      "save, Content-Length shorter",
      shorter("PUT", put, XML_TYPE, save, save.length - 10),
      [400],
      /not well-formed/,
    ],
    ["save, Content-Length longer", head("PUT", put, XML_TYPE, save.length + 10) + save, [400], cutOff],
    [
      "new representation, Content-Length longer",
      head("POST", rep, OCTET, FILE.length + 5) + text,
      [400],
      cutOff,
    ],
  ];
}

// ---------------------------------------------------------------------------------------------------
// Metadata CSV edits and the JSON metadata API

const REF_COL = "PRESERVICA_ENTITY_REF";

function csvJunk(): Case[] {
  const path = `${E}/actions/metadata-csv-edits`;
  const header = `${REF_COL},"{groupColumn}"\n`;
  const cases: [string, Body, number[], RegExp?, Record<string, string>?][] = [
    ["empty", "", [400], /CSV is empty/],
    ["only a BOM", "\uFEFF", [400], /CSV is empty/],
    ["only blank lines", "\n\r\n\n", [400], /CSV is empty/],
    ["no header, only a row", "{io},A-1\n", [400], /not a field of any metadata group/],
    ["header and no rows", header, [400], /no rows/],
    ["no reference column", '"{groupColumn}"\nA-1\n', [400], /no PRESERVICA_ENTITY_REF column/],
    ["only the reference column", `${REF_COL}\n{io}\n`, [400], /no metadata group field columns/],
    [
      "unknown column",
      `${REF_COL},"{groupColumn}",nope\n{io},A-1,x\n`,
      [400],
      /not a field of any metadata group: "nope"/,
    ],
    ["a column twice", `${REF_COL},"{groupColumn}","{groupColumn}"\n{io},A-1,A-2\n`, [400], /are the same/],
    ["a quote left open", `${REF_COL},"{groupColumn}\n{io},A-1\n`, [400], /could not be read/],
    ["a quote in an unquoted cell", `${REF_COL},"{groupColumn}"\n{io},A"1\n`, [400], /could not be read/],
    ["NUL in the header", `${REF_COL}\u0000,"{groupColumn}"\n{io},A-1\n`, [400], /NUL/],
    ["NUL in a value", `${header}{io},A\u00001\n`, [400], /NUL/],
    // Not UTF-8: read as ISO-8859-1 (as a spreadsheet's Windows-1252 CSV is meant), so the column is named right.
    [
      "a column in Latin-1",
      { latin1: `${REF_COL},"{groupColumn}",caf\xe9\n{io},A-1,x\n` },
      [400],
      /metadata group: "café"/,
    ],
    [
      "1 MB header cell",
      `${REF_COL},"${"h".repeat(1_000_000)}"\n{io},A-1\n`,
      [400],
      /not a field of any metadata group/,
    ],
    ["2 MiB body", `${header}{io},"${"v".repeat(2 * 1024 * 1024)}"\n`, [413], /1 MiB/],
    ["a form", `${REF_COL}={io}&x=1`, [400], /not a field|no PRESERVICA_ENTITY_REF/, FORM],
    ["JSON", `[{"${REF_COL}":"{io}"}]`, [400], /could not be read|not a field/, JSON_TYPE],
    [
      "a multipart form",
      `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n${header}{io},A-1\r\n--xyz--\r\n`,
      [400],
      /not a field|no PRESERVICA_ENTITY_REF|could not be read/,
      { "Content-Type": "multipart/form-data; boundary=xyz" },
    ],
  ];
  const out: Case[] = cases.map(([name, body, status, message, headers]) => ({
    name: `CSV edit: ${name}`,
    method: "POST",
    path,
    headers: headers ?? CSV_TYPE,
    body,
    expect: status,
    message,
  }));
  out.push({
    name: "CSV edit through v6.0: empty",
    method: "POST",
    path: `${E}/v6.0/actions/metadata-csv-edits`,
    headers: CSV_TYPE,
    body: "",
    expect: [400],
  });
  return out;
}

const M = "/api/metadata";
const field = (id: string, extra = "") => `{"id":"${id}","name":"Field ${id}"${extra}}`;
const group = (fields: string, name = "Junk new group") => `{"name":"${name}","fields":[${fields}]}`;
/** JSON bodies neither metadata route may take, whatever it reads: not an object at all. */
const NOT_AN_OBJECT: [string, Body, number[], RegExp?][] = [
  ["empty", "", [400], /not valid JSON \(the body is empty\)/],
  ["not JSON", "hello", [400], /not valid JSON/],
  ["a lone brace", "{", [400], /not valid JSON/],
  ["trailing junk", `${group(field("a"))} x`, [400], /not valid JSON/],
  ["an array", `[${group(field("a"))}]`, [400], /must be a JSON object/],
  ["null", "null", [400], /must be a JSON object/],
  ["a string", '"Junk"', [400], /must be a JSON object/],
  ["a number", "5", [400], /must be a JSON object/],
  ["only a BOM", "\uFEFF", [400], /not valid JSON/],
  ["XML", "<group><name>Junk</name></group>", [400], /not valid JSON/],
  ["a form", "name=Junk+group", [400], /not valid JSON/],
  [
    "nested 10,000 deep",
    `{"name":"Junk deep","description":${nest('{"a":', "1", "}")}}`,
    [400],
    /deeper than 64/,
  ],
  [
    "nested arrays 10,000 deep",
    `{"title":"Junk deep","fields":${nest("[", "", "]")}}`,
    [400],
    /deeper than 64/,
  ],
  // Not UTF-8: read as ISO-8859-1, so the name and title are the second fixtures', and taken.
  [
    "Latin-1, a taken name",
    { latin1: '{"name":"Junk Caf\xe9 Group","title":"Junk caf\xe9 loose form"}' },
    [409],
    /"Junk [Cc]af\u00e9 (Group|loose form)" already exists/,
  ],
  ["2 MiB", `{"name":"${"n".repeat(2 * 1024 * 1024)}"}`, [413], /1 MiB/],
];
const GROUP_JUNK: [string, Body, number[], RegExp?][] = [
  ["name an object", '{"name":{}}', [400], /must be a string/],
  ["name a list", '{"name":["Junk"]}', [400], /must be a string/],
  ["name null", '{"name":null}', [400], /name is required/],
  ["name blank", '{"name":"  "}', [400], /name is required/],
  ["name starting with a digit", '{"name":"9 lives"}', [400], /must start with a letter/],
  ["name of punctuation", '{"name":"!!!"}', [400], /must start with a letter/],
  ["name taken", '{"name":"Junk Fixture Group"}', [409], /already exists/],
  ["name taken in another case", '{"name":"JUNK fixture GROUP"}', [409], /already exists/],
  ["name giving a taken schema URI", '{"name":"Junk, fixture group!"}', [409], /schema URI/],
  ["fields a string", '{"name":"Junk new group","fields":"a"}', [400], /fields must be a list/],
  ["fields [5]", group("5"), [400], /fields\[0\] must be an object/],
  ["fields [[]]", group("[]"), [400], /fields\[0\] must be an object/],
  ["field without id", group('{"name":"x"}'), [400], /id is required/],
  ["field id with a space", group('{"id":"a b","name":"x"}'), [400], /not usable as an XML element name/],
  ["field id 1a", group('{"id":"1a","name":"x"}'), [400], /not usable/],
  ["field without name", group('{"id":"a"}'), [400], /name is required/],
  ["two fields with one id", group(`${field("a")},${field("a")}`), [400], /Two fields have the id "a"/],
  ["type BLOB", group(field("a", ',"type":"BLOB"')), [400], /type must be one of/],
  ["type a number", group(field("a", ',"type":5')), [400], /type must be one of/],
  ["minOccurs x", group(field("a", ',"minOccurs":"x"')), [400], /minOccurs must be a whole number/],
  ["minOccurs 1.5", group(field("a", ',"minOccurs":1.5')), [400], /whole number/],
  ["minOccurs -1", group(field("a", ',"minOccurs":-1')), [400], /0 or more/],
  ["maxOccurs 0", group(field("a", ',"maxOccurs":"0"')), [400], /1 or more/],
  ["maxOccurs 1e400", group(field("a", ',"maxOccurs":1e400')), [400], /whole number/],
  [
    "minOccurs over maxOccurs",
    group(field("a", ',"minOccurs":2,"maxOccurs":1')),
    [400],
    /larger than maxOccurs/,
  ],
  ["visible maybe", group(field("a", ',"visible":"maybe"')), [400], /true or false/],
  ["indexed 1", group(field("a", ',"indexed":1')), [400], /true or false/],
  ["values a string", group(field("a", ',"values":"x"')), [400], /values must be a list/],
  ["values [{}]", group(field("a", ',"values":[{}]')), [400], /must be a string/],
  ["maxLength 0", group(field("a", ',"maxLength":0')), [400], /maxLength must be 1 or more/],
  [
    "10,000 fields",
    group(Array.from({ length: 10_000 }, (_, i) => field(`f${i}`)).join(",")),
    [400],
    /at most 1000 fields/,
  ],
];
const FORM_JUNK: [string, Body, number[], RegExp?][] = [
  ["no title", '{"schemaUri":"http://example.com/x"}', [400], /title is required/],
  ["title blank", '{"title":" "}', [400], /title is required/],
  ["title an object", '{"title":{}}', [400], /must be a string/],
  ["title a list", '{"title":["Junk"]}', [400], /must be a string/],
  ["title taken", '{"title":"Junk fixture form"}', [409], /already exists/],
  ["schemaUri an object", '{"title":"Junk new form","schemaUri":{}}', [400], /schemaUri must be a string/],
  [
    "10,000 fields under a taken title",
    `{"title":"Junk fixture form","fields":[${Array.from({ length: 10_000 }, (_, i) => field(`f${i}`)).join(",")}]}`,
    [409],
    /already exists/,
  ],
];

function metadataJunk(): Case[] {
  const cases: Case[] = [];
  const add = (
    name: string,
    method: string,
    path: string,
    body: Body | undefined,
    status: number[],
    message?: RegExp,
    headers: Record<string, string> = JSON_TYPE,
  ) => cases.push({ name, method, path, headers, body, expect: status, message });
  for (const [kind, junk] of [
    ["groups", GROUP_JUNK],
    ["forms", FORM_JUNK],
  ] as const) {
    const one = kind === "groups" ? "{group}" : "{form}";
    const targets: [string, string][] = [
      ["POST", `${M}/${kind}/`],
      ["POST", `${M}/${kind}`],
      ["PUT", `${M}/${kind}/${one}`],
    ];
    for (const [i, [method, path]] of targets.entries()) {
      for (const [name, body, status, message] of [...spread(NOT_AN_OBJECT, i), ...spread(junk, i)]) {
        // A PUT may keep (or recase) its own name or title: it clashes only with another's. Its own
        // name becomes the second fixture's; a clash the rewrite does not reach is no clash for a PUT.
        const own = kind === "groups" ? "Junk Fixture Group" : "Junk fixture form";
        const others = kind === "groups" ? "Junk Café Group" : "Junk café loose form";
        let sent = body;
        if (method === "PUT" && status[0] === 409) {
          const text = typeof body === "string" ? body : "latin1" in body ? body.latin1 : "";
          if (typeof body === "string" && body.includes(own)) sent = body.replaceAll(own, others);
          else if (!/Junk [Cc]af/.test(text)) continue;
        }
        add(`${method} ${path.slice(M.length)}: ${name}`, method, path, sent, status, message);
      }
    }
    const valid = kind === "groups" ? group(field("a")) : '{"title":"Junk new form"}';
    for (const [name, id, status] of [
      ["unknown id", "deadbeef", [404]],
      ["an entity ref", "{io}", [404]],
      ["NUL", "%00", [404]],
      ["5,000 characters", "x".repeat(5000), [404]],
    ] as const) {
      add(`PUT ${kind} ${name}`, "PUT", `${M}/${kind}/${id}`, valid, [...status]);
      add(`DELETE ${kind} ${name}`, "DELETE", `${M}/${kind}/${id}`, undefined, [...status]);
      add(`GET ${kind} ${name}`, "GET", `${M}/${kind}/${id}`, undefined, [...status]);
    }
    add(
      `POST ${kind} as XML`,
      "POST",
      `${M}/${kind}/`,
      "<name>Junk</name>",
      [400],
      /not valid JSON/,
      XML_TYPE,
    );
  }
  for (const [name, query, status] of [
    ["no ids", "", [400]],
    ["blank ids", "?ids=,%20,", [400]],
    ["unknown id", "?ids=deadbeef", [404]],
    ["a good id and an unknown one", "?ids={group},deadbeef", [404]],
    ["a form of no group", "?ids={form2}", [400]],
    ["NUL", "?ids=%00", [404]],
    ["5,000 characters", `?ids=${"i".repeat(5000)}`, [404]],
  ] as const) {
    add(`CSV template: ${name}`, "GET", `${M}/csv-templates/download${query}`, undefined, [...status]);
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Read routes of the write side, and wrong methods on write routes

const NEW_READS = [
  `${E}/recycle-bin`,
  `${E}/retention-policies`,
  `${E}/retention-events`,
  `${E}/information-objects/{io}/retention-assignments`,
  `${E}/actions`,
  `${E}/actions/deletions`,
  `${E}/actions/deletions/{done}`,
];

function newReadJunk(): Case[] {
  const cases: Case[] = [];
  const baselines = [
    ...NEW_READS,
    `${E}/retention-policies/{policy}`,
    `${E}/progress/{pending}`,
    `${E}/progress/{done}`,
    `${E}/structural-objects/{so}/identifiers/{soId}`,
    `${E}/information-objects/{io}/identifiers/{ioId}`,
    `${E}/content-objects/{co}/identifiers/{coId}`,
    `${E}/information-objects/{io}/links/{ioLink}`,
    `${E}/structural-objects/{so}/links/{ioLink}`,
    `${E}/v6.0/retention-policies/{policy}`,
    `${E}/v6.0/actions/deletions/{done}`,
    `${M}/groups`,
    `${M}/groups/`,
    `${M}/groups/{group}`,
    `${M}/forms`,
    `${M}/forms/`,
    `${M}/forms/{form}`,
    `${M}/forms?schemaUri=%00`,
    `${M}/csv-templates/download?ids={group}`,
    `${M}/csv-templates/download?ids={form},{group}`,
  ];
  for (const p of baselines) cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  // A read route the read table had missed (the route coverage test found it): content objects'
  // fragments; they have none, so another entity's fragment is not found.
  cases.push({
    name: "content object fragment of another entity",
    path: `${E}/content-objects/{co}/metadata/{ioMref}`,
    expect: [404],
  });
  cases.push({
    name: "content object fragment junk",
    path: `${E}/content-objects/{co}/metadata/x{co}`,
    expect: [404],
  });
  for (const p of baselines.slice(0, 12)) cases.push({ name: `HEAD ${p}`, method: "HEAD", path: p });
  for (const [i, p] of NEW_READS.entries()) {
    for (const param of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        cases.push({
          name: `${param}=${v.slice(0, 20)} on ${p.slice(E.length)}`,
          path: withParam(p, `${param}=${v}`),
          expect: param === "max" && v === "-1" ? [200] : [400],
        });
      }
    }
  }
  for (const d of BAD_DATES.slice(0, 6)) {
    for (const param of ["from", "to"]) {
      cases.push({
        name: `retention-events ${param}=${d}`,
        path: `${E}/retention-events?${param}=${d}`,
        expect: [400],
      });
    }
  }
  // pyPreservica sends start/max as a form body on GET retention-policies.
  for (const [body, status] of [
    ["start=-1", [400]],
    ["max=abc", [400]],
    ["max=1.5&start=0", [400]],
    ["<start>1</start>", [200]],
    ['{"start":-1}', [200]],
  ] as const) {
    cases.push({
      name: `GET retention-policies with body ${body}`,
      path: `${E}/retention-policies`,
      headers: { ...FORM, "Content-Length": String(Buffer.byteLength(body)) },
      body,
      expect: [...status],
    });
  }
  for (const [name, q] of [
    ["status junk", "status=SOMETIMES"],
    ["status NUL", "status=%00"],
    ["status 5,000 characters", `status=${"s".repeat(5000)}`],
  ]) {
    cases.push({
      name: `actions ${name}`,
      path: `${E}/actions?${q}`,
      expect: [400],
      message: /status must be one of/,
    });
    cases.push({ name: `actions/deletions ${name}`, path: `${E}/actions/deletions?${q}`, expect: [400] });
  }
  cases.push({ name: "actions username junk", path: `${E}/actions?username=%00%C3%28`, expect: [200] });
  for (const kind of ["nope", "%00", "DELETIONS", "x".repeat(3000)]) {
    cases.push({
      name: `actions kind ${kind.slice(0, 12)}`,
      path: `${E}/actions/${kind}`,
      expect: [404],
      message: /No action listing/,
    });
    cases.push({
      name: `actions kind ${kind.slice(0, 12)} with an id`,
      path: `${E}/actions/${kind}/{done}`,
      expect: [404],
    });
  }
  cases.push({
    name: "a deletion among recoveries",
    path: `${E}/actions/recoveries/{done}`,
    expect: [404],
    message: /listed under/,
  });
  for (const [i, bad] of [...BAD_REFS.slice(0, 8), UNKNOWN_UUID, "{io}", "{policy}"].entries()) {
    // Malformed or unknown, a token in the path names nothing: 404 either way.
    const status = [404];
    cases.push({ name: `progress ${bad.slice(0, 16)}`, path: `${E}/progress/${bad}`, expect: status });
    if (i % 2 === 0)
      cases.push({
        name: `actions/deletions/${bad.slice(0, 16)}`,
        path: `${E}/actions/deletions/${bad}`,
        expect: status,
      });
    if (i % 2 === 1)
      cases.push({
        name: `retention policy ${bad.slice(0, 16)}`,
        path: `${E}/retention-policies/${bad}`,
        expect: bad === "{policy}" ? [200] : status,
      });
  }
  return cases;
}

/** One wrong method on each write route (and on a few read routes of the write side): 405 naming the right ones. */
const WRONG_METHODS: [string, string, RegExp][] = [
  ["PATCH", `${E}/structural-objects`, /use POST/],
  ["GET", `${E}/information-objects`, /use POST/],
  ["PATCH", `${E}/information-objects/{io}`, /use GET or PUT or DELETE/],
  ["PATCH", `${E}/information-objects/{io}/metadata/{ioMref}`, /use GET or PUT or DELETE/],
  ["POST", `${E}/structural-objects/{so}/identifiers/{soId}`, /use GET or PUT or DELETE/],
  ["PUT", `${E}/information-objects/{io}/links/{ioLink}`, /use GET or DELETE/],
  ["GET", `${E}/information-objects/{io}/preview`, /use PUT or DELETE/],
  ["POST", `${E}/content-objects/{co}/preview`, /use PUT or DELETE/],
  ["GET", `${E}/structural-objects/{so}/parent-ref`, /use PUT/],
  ["POST", `${E}/content-objects/{co}/security-descriptor`, /use PUT/],
  ["PUT", `${E}/content-objects/{co}/generations`, /use GET or POST/],
  ["DELETE", `${E}/information-objects/{io}/representations`, /use GET or POST/],
  ["GET", `${E}/actions/recoveries/`, /use POST/],
  ["GET", `${E}/actions/final-deletions/`, /use POST/],
  ["DELETE", `${E}/actions/deletions/{pending}`, /use GET or PUT/],
  ["PUT", `${E}/actions/metadata-csv-edits`, /use GET or POST/],
  ["PATCH", `${E}/retention-policies`, /use GET or POST/],
  ["POST", `${E}/retention-policies/{policy}`, /use GET or PUT or DELETE/],
  ["GET", `${E}/retention-policies/{policy}/assignable`, /use PUT/],
  ["PUT", `${E}/information-objects/{io}/retention-assignments/{assignment}`, /use DELETE/],
  ["POST", `${E}/recycle-bin`, /use GET/],
  ["POST", `${E}/progress/{done}`, /use GET/],
  ["PATCH", `${M}/groups`, /use GET or POST/],
  ["PATCH", `${M}/forms/{form}`, /use GET or PUT or DELETE/],
  ["POST", `${M}/csv-templates/download`, /use GET/],
  ["PATCH", `${E}/v6.0/structural-objects/{so}/preview`, /use PUT or DELETE/],
];

function wrongMethods(): Case[] {
  return WRONG_METHODS.map(([method, path, message]) => ({
    name: `${method} ${path}`,
    method,
    path,
    headers: XML_TYPE,
    body: method === "GET" ? undefined : el("Wrong", XIP7, "<Title>Junk</Title>"),
    expect: [405],
    message,
  }));
}

// ---------------------------------------------------------------------------------------------------
// Operations APIs: the Workflow API (XML in WF_NS; errors are the service's JSON, as everywhere), the
// Process API's ingest configurations (bare JSON) and the Process Monitor (JSON envelopes). Fixtures:
// the deletions' instance ids (pendingSeq: a human task awaiting its decision, which no junk may
// decide; doneSeq: finished), a finished Integrity Check (check, checkSeq), an uploaded definition
// (definition) with its context (uploadedContext, which cannot start here) and a folder whose tag the
// manager cannot read (hidden).

const WF = "/sdb/rest/workflow";
const WF_NS = "http://workflow.preservica.com";
const CONFIGS = "/api/process/ingest/configs";
const PM = "/api/processmonitor";
/** The ingest configurations every store starts with: the active one (package upload) and the other. */
const CONFIG_ON = "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a01";
const CONFIG_OFF = "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a02";
const INTEGRITY_CHECK = "<WorkflowContextId>11</WorkflowContextId>";
const folderParam = (value: string) => `<Parameter><Key>folder</Key><Value>${value}</Value></Parameter>`;
const startRequest = (inner: string) => el("StartWorkflowRequest", WF_NS, inner);
/** A start the service would take (an Integrity Check of an empty folder) but for the junk around it. */
const START = `${INTEGRITY_CHECK}<WorkflowContextName>Integrity Check</WorkflowContextName>${folderParam("{pendingFolder}")}`;
const NEW_CONTEXT = `<Name>Junk new context</Name><WorkflowDefinitionId>11</WorkflowDefinitionId>${folderParam("{pendingFolder}")}`;
const NEW_DEFINITION =
  "<TextId>org.example.junk.new</TextId><Name>Junk new</Name><Type>DataManagement</Type>";
const RESULT = "<Outcome>reject</Outcome><Comment>junk</Comment>";

/** Values of an enumerated parameter (type, state, status, category) that are none of its values. */
const BAD_ENUMS = ["Nope", "%00", "x".repeat(5000), "Active%00", "Ingest,Access", "%C3%28"];

/**
 * Where a reply of the operations APIs has a shape of its own: Workflow API documents in their
 * namespace, Process Monitor JSON in its envelope (its progress document is the Entity API's XML).
 */
function checkOperationsReply(c: Case, r: Reply): void {
  if (r.status >= 300 || (c.method ?? "GET") === "HEAD") return;
  const path = fill(c.path);
  const text = r.body.toString("utf8");
  const type = String(r.headers["content-type"] ?? "");
  if (path.startsWith(`${WF}/`) && !path.endsWith("/document")) {
    expect(type, c.name).toMatch(/^application\/xml/);
    expect(text, c.name).toMatch(new RegExp(`^(?:<\\?xml[^>]*\\?>\\s*)?<\\w+ xmlns="${WF_NS}"`));
  }
  if (path.startsWith(`${PM}/`) && !path.startsWith(`${PM}/progress/`)) {
    const body = JSON.parse(text) as { success?: unknown; version?: unknown; value?: unknown };
    expect([body.success, body.version, typeof body.value], c.name).toEqual([true, 1, "object"]);
  }
}

function operationsReads(): Case[] {
  const cases: Case[] = [];
  const baselines = [
    `${WF}/definitions`,
    `${WF}/definitions?type=dataManagement`,
    `${WF}/definitions/11`,
    `${WF}/definitions/com.preservica.core.workflow.integrity.check`,
    `${WF}/definitions/{definition}/document`,
    `${WF}/contexts`,
    `${WF}/contexts?workflowDefinitionId=org.example.unknown`,
    `${WF}/contexts?workflowDefinitionId=11&type=DataManagement`,
    `${WF}/contexts/11`,
    `${WF}/contexts/{uploadedContext}`,
    `${WF}/instances`,
    `${WF}/instances?state=pending&type=DataManagement&contextId=5&creator=%00`,
    // The date form clients send, with the + encoded and as it arrives unencoded (a space).
    `${WF}/instances?from=2026-11-22T21:08:37.000000%2B0000`,
    `${WF}/instances?from=2000-11-22T21:08:37.000000+0000&to=2999-01-01`,
    `${WF}/instances?max=5&max=5&start=99999999`,
    `${WF}/instances/{checkSeq}?includeErrors=true&includeParameters=true`,
    `${WF}/instances/{check}?includeErrors=maybe`,
    `${WF}/humantasks`,
    `${WF}/humantasks/{pendingSeq}`,
    CONFIGS,
    `${CONFIGS}?types=opex,nope&types=%00`,
    `${CONFIGS}/${CONFIG_ON}`,
    `${PM}/monitors`,
    `${PM}/monitors?includeAbandoned=maybe&subcategory=%00&status=running`,
    `${PM}/monitors/{check}`,
    `${PM}/monitors/{checkSeq}/timeseries`,
    `${PM}/messages?monitor={check}`,
    // pyPreservica re-sends monitor and status on the next link: the same value twice is one value.
    `${PM}/messages?monitor={check}&status=Info&monitor={check}&status=Info`,
    `${PM}/history`,
    `${PM}/history?from=2026-11-22T21:08:37.000000+0000&to=2026-11-23&category=ingest`,
    `${PM}/progress/{check}`,
  ];
  for (const p of baselines) cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  for (const p of baselines.filter((_, i) => i % 4 === 0))
    cases.push({ name: `HEAD ${p}`, method: "HEAD", path: p, expect: [200] });

  // Ids in the path: non-numeric, negative, huge, unknown, a UUID where a number is expected and the
  // other way round.
  const ids: [string, string[], number[], RegExp][] = [
    [
      `${WF}/definitions/`,
      ["0", "-1", "1.5", "9".repeat(400), "%00", "%C3%28", UNKNOWN_UUID, "99999", "org.example.unknown"],
      [404],
      /No workflow definition/,
    ],
    [
      `${WF}/contexts/`,
      ["abc", "-1", "0", "1.5", "1e3", "0x10", "%00", UNKNOWN_UUID],
      [400],
      /positive whole/,
    ],
    [`${WF}/contexts/`, ["9".repeat(400), "9999999999999", "%C3%28", "11%2012"], [400], /positive whole/],
    [`${WF}/contexts/`, ["99999"], [404], /No workflow context/],
    [
      `${WF}/instances/`,
      ["abc", "-1", "0", "1.5", "9".repeat(400), "%00", "{check}x"],
      [400],
      /positive whole/,
    ],
    [`${WF}/instances/`, [UNKNOWN_UUID, "99999"], [404], /No workflow instance/],
    [`${WF}/humantasks/`, ["0", "9".repeat(30)], [400], /positive whole/],
    [`${WF}/humantasks/`, ["99999"], [404], /No workflow instance/],
    [`${WF}/humantasks/`, ["{checkSeq}"], [404], /has no human task/],
    [`${WF}/humantasks/`, ["{doneSeq}"], [409], /no longer awaiting/],
    [`${WF}/humantasks/`, ["abc", "-1", "{pending}", "1.5"], [404], /humantask|Workflow/],
    [
      `${PM}/monitors/`,
      ["abc", "-1", "0", "9".repeat(400), "%00", UNKNOWN_UUID, "99999", "{check}x", "{checkSeq}.0"],
      [404],
      /No process monitor/,
    ],
    [
      `${PM}/progress/`,
      ["abc", "123", "{checkSeq}", UNKNOWN_UUID, "%00", "x".repeat(5000), "{check}x"],
      [404],
      /No process with progress token/,
    ],
    [`${CONFIGS}/`, ["abc", "%00", UNKNOWN_UUID, "1", "x".repeat(5000)], [404], /No ingest configuration/],
  ];
  for (const [prefix, values, status, message] of ids) {
    for (const v of values) {
      cases.push({
        name: `${prefix.slice(0, -1)} id ${v.slice(0, 20)}`,
        path: prefix + v,
        expect: status,
        message,
      });
    }
  }
  for (const v of ["0", UNKNOWN_UUID, "org.example.unknown", "x".repeat(3000)]) {
    cases.push({
      name: `definition document ${v.slice(0, 20)}`,
      path: `${WF}/definitions/${v}/document`,
      expect: [404],
      message: /No workflow definition/,
    });
  }
  cases.push({
    name: "document of a built-in definition",
    path: `${WF}/definitions/11/document`,
    expect: [404],
    message: /built into this service/,
  });
  for (const v of ["abc", "0", UNKNOWN_UUID, "{checkSeq}x"]) {
    cases.push({
      name: `timeseries of ${v}`,
      path: `${PM}/monitors/${v}/timeseries`,
      expect: [404],
      message: /No process monitor/,
    });
  }
  for (const [q, status, message] of [
    ["", [400], /monitor is required/],
    ["?monitor=", [400], /monitor is required/],
    ["?monitor=%20", [400], /monitor is required/],
    ["?status=Info", [400], /monitor is required/],
    ["?monitor=abc", [404], /No process monitor/],
    [`?monitor=${UNKNOWN_UUID}`, [404], /No process monitor/],
    ["?monitor={check}&monitor={checkSeq}", [400], /different values/],
    ["?monitor={check}&monitor=x", [400], /different values/],
  ] as const) {
    cases.push({ name: `messages${q}`, path: `${PM}/messages${q}`, expect: [...status], message });
  }

  // Paging: start/max junk (max=-1 is "all", as everywhere), max=0 refused (clients advancing by the
  // count would loop), a parameter given twice with different values.
  const paged = [`${WF}/instances`, `${WF}/humantasks`, `${PM}/monitors`, `${PM}/messages?monitor={check}`];
  for (const [i, p] of paged.entries()) {
    for (const param of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        cases.push({
          name: `${param}=${v.slice(0, 20)} on ${p}`,
          path: withParam(p, `${param}=${v}`),
          expect: param === "max" && v === "-1" ? [200] : [400],
        });
      }
    }
    cases.push({ name: `max=0 on ${p}`, path: withParam(p, "max=0"), expect: [400], message: /at least 1/ });
    cases.push({
      name: `max=00 on ${p}`,
      path: withParam(p, "max=00"),
      expect: [400],
      message: /at least 1/,
    });
    cases.push({
      name: `start twice on ${p}`,
      path: withParam(p, "start=0&start=1"),
      expect: [400],
      message: /different values/,
    });
    cases.push({
      name: `max twice on ${p}`,
      path: withParam(p, "max=1&max=-1"),
      expect: [400],
      message: /different values/,
    });
  }

  // Dates: from/to of instances and of the history.
  for (const [i, d] of [
    ...BAD_DATES,
    "2026-02-30",
    "2026-04-31T00:00:00Z",
    "2026-11-22T21:08:37.000000+2400",
  ].entries()) {
    for (const [route, message] of [
      [`${WF}/instances`, /ISO 8601/],
      [`${PM}/history`, /must be a date/],
    ] as const) {
      const param = i % 2 === 0 ? "from" : "to";
      cases.push({ name: `${route} ${param}=${d}`, path: `${route}?${param}=${d}`, expect: [400], message });
    }
  }
  for (const [q, message] of [
    ["from=2026-01-02&to=2026-01-01", /is after/],
    ["from=2020-01-01&to=2026-01-01", /At most 366 days/],
    ["from=0000-01-01", /At most 366 days/],
    ["to=2026-01-01&to=2026-01-02", /different values/],
    ["from=2026-01-01&from=2026-01-01T00:00:00Z", /different values/],
  ] as const) {
    cases.push({ name: `history ${q}`, path: `${PM}/history?${q}`, expect: [400], message });
  }
  cases.push({
    name: "instances from twice",
    path: `${WF}/instances?from=2026-01-01&from=2026-01-02`,
    expect: [400],
    message: /different values/,
  });

  // Unknown types, states, categories and statuses; contextId junk; an enum given twice.
  const enums = [
    `${WF}/definitions?type=`,
    `${WF}/contexts?type=`,
    `${WF}/instances?type=`,
    `${WF}/instances?state=`,
    `${PM}/monitors?status=`,
    `${PM}/monitors?category=`,
    `${PM}/messages?monitor={check}&status=`,
    `${PM}/history?category=`,
  ];
  for (const p of enums) {
    for (const v of BAD_ENUMS) {
      cases.push({ name: `${p}${v.slice(0, 20)}`, path: p + v, expect: [400], message: /must be one of/ });
    }
  }
  for (const [p, q] of [
    [`${WF}/instances`, "type=Ingest&type=Access"],
    [`${WF}/instances`, "state=Active&state=Completed"],
    [`${WF}/definitions`, "type=Ingest&type=ingest"],
    [`${PM}/monitors`, "status=Running&status=Failed"],
    [`${PM}/monitors`, "category=Ingest&category=Export"],
    [`${PM}/history`, "category=Ingest&category=Export"],
  ]) {
    cases.push({ name: `${p} ${q}`, path: `${p}?${q}`, expect: [400], message: /different values/ });
  }
  for (const v of ["abc", "-1", "0", "1.5", UNKNOWN_UUID, "9".repeat(400)]) {
    cases.push({
      name: `instances contextId=${v.slice(0, 20)}`,
      path: `${WF}/instances?contextId=${v}`,
      expect: [400],
      message: /contextId/,
    });
  }
  return cases;
}

/** XML bodies to POST: the generic junk around a body the route would take, then the route's own. */
function operationsXml(): Case[] {
  const cases: Case[] = [];
  const routes: XmlRoute[] = [
    {
      method: "POST",
      path: `${WF}/instances`,
      root: "StartWorkflowRequest",
      ns: WF_NS,
      inner: START,
      specific: [
        ["no context named", startRequest(folderParam("{pendingFolder}")), [400], /Name the context/],
        [
          "empty WorkflowContextId",
          startRequest(`<WorkflowContextId> </WorkflowContextId>${folderParam("{pendingFolder}")}`),
          [400],
          /Name the context/,
        ],
        ...["abc", "-1", "0", "1.5", "9".repeat(400), UNKNOWN_UUID, "11 12", "0x0B"].map(
          (v): Junk => [
            `WorkflowContextId ${v.slice(0, 20)}`,
            startRequest(`<WorkflowContextId>${v}</WorkflowContextId>${folderParam("{pendingFolder}")}`),
            [400],
            /WorkflowContextId must be a positive whole number/,
          ],
        ),
        [
          "unknown WorkflowContextId",
          startRequest(`<WorkflowContextId>99999</WorkflowContextId>${folderParam("{pendingFolder}")}`),
          [404],
          /No workflow context with id 99999/,
        ],
        [
          "unknown WorkflowContextName",
          startRequest(`<WorkflowContextName>Nope</WorkflowContextName>${folderParam("{pendingFolder}")}`),
          [404],
          /No workflow context named "Nope"/,
        ],
        [
          "Id and Name of different contexts",
          startRequest(
            `${INTEGRITY_CHECK}<WorkflowContextName>Move</WorkflowContextName>${folderParam("{pendingFolder}")}`,
          ),
          [400],
          /not "Move"/,
        ],
        [
          "a Name of 5,000 characters",
          startRequest(
            `${INTEGRITY_CHECK}<WorkflowContextName>${"n".repeat(5000)}</WorkflowContextName>${folderParam("{pendingFolder}")}`,
          ),
          [400],
          /WorkflowContextId 11 is the context/,
        ],
        ...[
          ["the Move context", "<WorkflowContextId>3</WorkflowContextId>", /PUT .*parent-ref/],
          [
            "the Ingest context by name",
            "<WorkflowContextName>Ingest</WorkflowContextName>",
            /cannot be started here/,
          ],
          ["the catch-all context", "<WorkflowContextId>12</WorkflowContextId>", /cannot be started here/],
          [
            "an uploaded definition's context",
            "<WorkflowContextId>{uploadedContext}</WorkflowContextId>",
            /no engine/,
          ],
        ].map(
          ([name, ctx, message]): Junk => [
            `${name}, not startable`,
            startRequest(`${ctx}${folderParam("{pendingFolder}")}`),
            [422],
            message as RegExp,
          ],
        ),
        ["an Integrity Check without folder", startRequest(INTEGRITY_CHECK), [400], /needs the folder/],
        ["folder empty", startRequest(`${INTEGRITY_CHECK}${folderParam("")}`), [400], /needs the folder/],
        ["folder blank", startRequest(`${INTEGRITY_CHECK}${folderParam(" \t ")}`), [400], /needs the folder/],
        [
          "folder as a self-closing Value",
          startRequest(`${INTEGRITY_CHECK}<Parameter><Key>folder</Key><Value/></Parameter>`),
          [400],
          /needs the folder/,
        ],
        [
          "folder without Value",
          startRequest(`${INTEGRITY_CHECK}<Parameter><Key>folder</Key></Parameter>`),
          [400],
          /needs the folder/,
        ],
        ...[
          "not-a-uuid",
          "../../etc/passwd",
          "x".repeat(5000),
          "@ROOT@",
          "{so}{so}",
          `${UNKNOWN_UUID}x`,
          "sdb:SO|{so}",
        ].map(
          (v): Junk => [
            `folder ${v.slice(0, 20)}`,
            startRequest(`${INTEGRITY_CHECK}${folderParam(v)}`),
            [400],
            /is not a folder reference/,
          ],
        ),
        [
          "folder an asset",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{io}")}`),
          [400],
          /is not a folder \(it is an asset/,
        ],
        [
          "folder a content object",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{co}")}`),
          [400],
          /is not a folder \(it is a content object/,
        ],
        [
          "folder unknown",
          startRequest(`${INTEGRITY_CHECK}${folderParam(UNKNOWN_UUID)}`),
          [404],
          /not found/,
        ],
        [
          "folder in the recycle bin",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{binned}")}`),
          [404],
          /not found/,
        ],
        [
          "a folder the caller cannot read",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{hidden}")}`),
          [403],
          /lacks the Read Metadata permission on security tag "junk-hidden"/,
        ],
        [
          "an unknown parameter",
          startRequest(`${START}<Parameter><Key>colour</Key><Value>red</Value></Parameter>`),
          [400],
          /does not know "colour"/,
        ],
        [
          "a Parameter without Key",
          startRequest(`${START}<Parameter><Value>red</Value></Parameter>`),
          [400],
          /needs a Key/,
        ],
        ["folder twice", startRequest(`${START}${folderParam("{so}")}`), [400], /folder is given twice/],
        [
          "101 parameters",
          startRequest(
            `${START}${Array.from({ length: 100 }, (_, i) => `<Parameter><Key>p${i}</Key><Value>v</Value></Parameter>`).join("")}`,
          ),
          [400],
          /At most 100 parameters/,
        ],
        [
          "a CorrelationId of 201 characters",
          startRequest(`${START}<CorrelationId>${"c".repeat(201)}</CorrelationId>`),
          [400],
          /CorrelationId is longer than 200/,
        ],
        ["no namespace", `<StartWorkflowRequest>${START}</StartWorkflowRequest>`, [400], /namespace/],
        [
          "another namespace",
          el("StartWorkflowRequest", "http://workflow.example.com", START),
          [400],
          /workflow\.example\.com/,
        ],
      ],
    },
    {
      method: "POST",
      path: `${WF}/contexts`,
      root: "WorkflowContext",
      ns: WF_NS,
      inner: NEW_CONTEXT,
      specific: [
        [
          "no Name",
          el("WorkflowContext", WF_NS, "<WorkflowDefinitionId>11</WorkflowDefinitionId>"),
          [400],
          /needs a Name and a WorkflowDefinitionId/,
        ],
        [
          "no definition",
          el("WorkflowContext", WF_NS, "<Name>Junk new context</Name>"),
          [400],
          /needs a Name/,
        ],
        [
          "a Name of 201 characters",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("Junk new context", "n".repeat(201))),
          [400],
          /longer than 200/,
        ],
        ...["org.example.unknown", "0", "-1", "99999", "%00", "x".repeat(5000)].map(
          (v): Junk => [
            `definition ${v.slice(0, 20)}`,
            el("WorkflowContext", WF_NS, NEW_CONTEXT.replace(">11<", `>${v}<`)),
            [404],
            /No workflow definition/,
          ],
        ),
        [
          "the name of a built-in context",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("Junk new context", "Move")),
          [409],
          /already exists/,
        ],
        [
          "the name of an uploaded context",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("Junk new context", "Junk uploaded context")),
          [409],
          /already exists/,
        ],
        [
          "a default folder that is not a UUID",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", "not-a-uuid")),
          [400],
          /not a folder reference/,
        ],
        [
          "a default folder unknown",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", UNKNOWN_UUID)),
          [404],
          /not found/,
        ],
        [
          "a default folder the caller cannot read",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", "{hidden}")),
          [403],
          /lacks the Read Metadata permission/,
        ],
        [
          "a default folder that is an asset",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", "{io}")),
          [400],
          /not a folder/,
        ],
        [
          "an unknown default parameter",
          el(
            "WorkflowContext",
            WF_NS,
            `${NEW_CONTEXT}<Parameter><Key>colour</Key><Value>red</Value></Parameter>`,
          ),
          [400],
          /does not know "colour"/,
        ],
        [
          "a default Parameter without Key",
          el("WorkflowContext", WF_NS, `${NEW_CONTEXT}<Parameter><Value>x</Value></Parameter>`),
          [400],
          /needs a Key/,
        ],
        [
          "a default parameter twice",
          el("WorkflowContext", WF_NS, `${NEW_CONTEXT}${folderParam("{so}")}`),
          [400],
          /given twice/,
        ],
        ["no namespace", `<WorkflowContext>${NEW_CONTEXT}</WorkflowContext>`, [400], /namespace/],
      ],
    },
    {
      method: "POST",
      path: `${WF}/humantasks/{pendingSeq}/result`,
      root: "HumanTaskResult",
      ns: WF_NS,
      inner: RESULT,
      specific: [
        [
          "no Outcome",
          el("HumanTaskResult", WF_NS, "<Comment>junk</Comment>"),
          [400],
          /Outcome must be approve or reject/,
        ],
        ...["", "maybe", "approved", "yes", "true", "approve reject", "approve,reject", "x".repeat(5000)].map(
          (v): Junk => [
            `Outcome ${JSON.stringify(v.slice(0, 20))}`,
            el("HumanTaskResult", WF_NS, `<Outcome>${v}</Outcome><Comment>junk</Comment>`),
            [400],
            /Outcome must be approve or reject/,
          ],
        ),
        [
          "Outcome as an attribute",
          `<HumanTaskResult xmlns="${WF_NS}" Outcome="reject"><Comment>junk</Comment></HumanTaskResult>`,
          [400],
          /Outcome must be/,
        ],
        [
          "Outcome nested deeper",
          el("HumanTaskResult", WF_NS, "<Result><Outcome>reject</Outcome></Result>"),
          [400],
          /Outcome must be/,
        ],
        [
          "a 2 MiB Comment",
          el(
            "HumanTaskResult",
            WF_NS,
            `<Outcome>reject</Outcome><Comment>${"c".repeat(2 * 1024 * 1024)}</Comment>`,
          ),
          [413],
          /1 MiB/,
        ],
        ["no namespace", `<HumanTaskResult>${RESULT}</HumanTaskResult>`, [400], /namespace/],
        ["the Entity API's approval", el("DeletionAction", ENT7, APPROVAL), [400], /HumanTaskResult/],
      ],
    },
  ];
  for (const [i, r] of routes.entries()) {
    const { always, shared } = xmlJunk(r.root, r.ns, r.inner);
    // Every generic junk goes to the start of a workflow (it would start one); a rotating share to the rest.
    const generic = i === 0 ? shared : spread(shared, i);
    for (const [name, body, expectStatus, message] of [...always, ...generic, ...r.specific]) {
      cases.push({
        name: `${r.method} ${r.path}: ${name}`,
        method: r.method,
        path: r.path,
        headers: XML_TYPE,
        body,
        expect: expectStatus,
        message,
      });
    }
    const typed: [string, Record<string, string>, Body][] = [
      ["JSON", JSON_TYPE, `{"${r.root}":{"WorkflowContextId":11}}`],
      ["a form", FORM, "WorkflowContextId=11&folder={pendingFolder}"],
      [
        "multipart",
        { "Content-Type": "multipart/form-data; boundary=xyz" },
        multipart(Buffer.from(el(r.root, r.ns, r.inner))),
      ],
    ];
    for (const [kind, headers, body] of typed) {
      cases.push({
        name: `${r.method} ${r.path}: ${kind} under its own Content-Type`,
        method: r.method,
        path: r.path,
        headers,
        body,
        expect: [400],
      });
    }
  }

  // A human task result for tasks that are not there, with a body that would decide one.
  const result = el("HumanTaskResult", WF_NS, RESULT);
  for (const [id, status, message] of [
    ["{doneSeq}", [409], /no longer awaiting a decision/],
    ["{checkSeq}", [404], /has no human task/],
    ["0", [400], /positive whole number/],
    ["9".repeat(30), [400], /positive whole number/],
    ["99999", [404], /No workflow instance/],
    ["abc", [404], /humantask|Workflow/],
    ["{pending}", [404], /humantask|Workflow/],
    ["-1", [404], /humantask|Workflow/],
  ] as const) {
    cases.push({
      name: `human task result for ${id.slice(0, 20)}`,
      method: "POST",
      path: `${WF}/humantasks/${id}/result`,
      headers: XML_TYPE,
      body: result,
      expect: [...status],
      message,
    });
  }

  // Definition uploads: any root element, with an id, name and type. The generic junk that only
  // swaps the root would be a good upload here, so it is left out.
  const definition = el("WorkflowDefinition", WF_NS, NEW_DEFINITION);
  const { always, shared } = xmlJunk("WorkflowDefinition", WF_NS, NEW_DEFINITION);
  const defJunk: Junk[] = [
    ...[...always, ...shared].filter(([name]) => !/wrong root/.test(name) || name.startsWith("900 KB")),
    ["an empty root", `<WorkflowDefinition xmlns="${WF_NS}"/>`, [400], /needs an id, a name, a type/],
    [
      "no id",
      el("WorkflowDefinition", WF_NS, "<Name>Junk</Name><Type>DataManagement</Type>"),
      [400],
      /needs an id/,
    ],
    [
      "no name",
      el("WorkflowDefinition", WF_NS, "<TextId>org.example.junk.new</TextId><Type>Access</Type>"),
      [400],
      /needs a name/,
    ],
    [
      "no type",
      el("WorkflowDefinition", WF_NS, "<TextId>org.example.junk.new</TextId><Name>J</Name>"),
      [400],
      /needs a type/,
    ],
    ...["1abc", "org example", "a/b", "../x", "x".repeat(201), "é.x", "-x", "a\u00a0b"].map(
      (v): Junk => [
        `id ${JSON.stringify(v.slice(0, 20))}`,
        el("WorkflowDefinition", WF_NS, NEW_DEFINITION.replace("org.example.junk.new", v)),
        [400],
        /must start with a letter/,
      ],
    ),
    [
      "a junk id attribute over a good TextId",
      `<WorkflowDefinition xmlns="${WF_NS}" id="1 x">${NEW_DEFINITION}</WorkflowDefinition>`,
      [400],
      /must start with a letter/,
    ],
    [
      "a name of 201 characters",
      el("WorkflowDefinition", WF_NS, NEW_DEFINITION.replace("Junk new", "n".repeat(201))),
      [400],
      /longer than 200/,
    ],
    ...["Nope", "Data Management", "x".repeat(5000)].map(
      (v): Junk => [
        `type ${v.slice(0, 20)}`,
        el("WorkflowDefinition", WF_NS, NEW_DEFINITION.replace(">DataManagement<", `>${v}<`)),
        [400],
        /must be one of/,
      ],
    ),
    [
      "a built-in definition's id",
      el(
        "WorkflowDefinition",
        WF_NS,
        NEW_DEFINITION.replace("org.example.junk.new", "com.preservica.core.workflow.integrity.check"),
      ),
      [409],
      /already exists/,
    ],
    [
      "an uploaded definition's id",
      el(
        "WorkflowDefinition",
        WF_NS,
        NEW_DEFINITION.replace("org.example.junk.new", "org.example.junk.fixture"),
      ),
      [409],
      /already exists/,
    ],
    [
      "1 MiB and one byte",
      `${definition}${" ".repeat(1024 * 1024 + 1 - Buffer.byteLength(definition))}`,
      [413],
      /1 MiB/,
    ],
  ];
  for (const [name, body, expectStatus, message] of defJunk) {
    cases.push({
      name: `POST ${WF}/definitions: ${name}`,
      method: "POST",
      path: `${WF}/definitions`,
      headers: XML_TYPE,
      body,
      expect: expectStatus,
      message,
    });
  }
  return cases;
}

/** Terminate, stop and resume: junk lists of ids (every id is checked before any instance changes). */
function operationsChanges(): Case[] {
  const cases: Case[] = [];
  const lists: [string, string, number[], RegExp?][] = [
    ["none", "", [400], /Name the instances/],
    ["empty", "?workflowInstanceIds=", [400], /Name the instances/],
    ["a comma", "?workflowInstanceIds=,", [400], /Name the instances|empty/],
    ["blank", "?workflowInstanceIds=%20", [400], /Name the instances/],
    ["an empty id between two", "?workflowInstanceIds={pendingSeq},,{doneSeq}", [400], /empty/],
    ["a trailing comma", "?workflowInstanceIds={pendingSeq},", [400], /empty/],
    ["letters after a good id", "?workflowInstanceIds={pendingSeq},x", [400], /positive whole number/],
    ["letters", "?workflowInstanceIds=a,b", [400], /positive whole number/],
    ["a UUID", "?workflowInstanceIds={pending}", [400], /positive whole number/],
    ["a decimal", "?workflowInstanceIds={pendingSeq}.0", [400], /positive whole number/],
    ["negative", "?workflowInstanceIds=-{pendingSeq}", [400], /positive whole number/],
    ["zero", "?workflowInstanceIds=0", [400], /positive whole number/],
    ["huge", `?workflowInstanceIds=${"9".repeat(400)}`, [400], /positive whole number/],
    ["NUL", "?workflowInstanceIds={pendingSeq}%00", [400], /positive whole number/],
    ["a bad id repeated", "?workflowInstanceIds={pendingSeq}&workflowInstanceIds=x", [400], /positive whole/],
    [
      "an unknown id after a good one",
      "?workflowInstanceIds={pendingSeq},99999",
      [404],
      /No workflow instance/,
    ],
    [
      "1,001 ids",
      `?workflowInstanceIds=${Array.from({ length: 1001 }, (_, i) => i + 1).join(",")}`,
      [400],
      /At most 1000/,
    ],
    // Longer than a request head may be: refused before the route.
    ["10,000 ids", `?workflowInstanceIds=${Array(10_000).fill("{pendingSeq}").join(",")}`, [431]],
  ];
  for (const verb of ["terminate", "stop", "resume"]) {
    for (const [name, q, status, message] of lists) {
      cases.push({
        name: `${verb} ${name}`,
        method: "POST",
        path: `${WF}/instances/${verb}${q}`,
        expect: status,
        message,
      });
    }
    // Instances that have ended: nothing to change, said so (Changed false), nothing changed.
    cases.push({
      name: `${verb} finished instances`,
      method: "POST",
      path: `${WF}/instances/${verb}?workflowInstanceIds={doneSeq},{checkSeq}&workflowInstanceIds={doneSeq}`,
      expect: [202],
    });
    cases.push({
      name: `${verb} with a junk body and no ids`,
      method: "POST",
      path: `${WF}/instances/${verb}`,
      headers: XML_TYPE,
      body: el("WorkflowInstanceIds", WF_NS, "<Id>{pendingSeq}</Id>"),
      expect: [400],
      message: /Name the instances/,
    });
  }
  cases.push({
    name: "stop a task awaiting its decision",
    method: "POST",
    path: `${WF}/instances/stop?workflowInstanceIds={doneSeq},{pendingSeq}`,
    expect: [409],
    message: /waiting for a manager's decision/,
  });
  cases.push({
    name: "resume a task awaiting its decision",
    method: "POST",
    path: `${WF}/instances/resume?workflowInstanceIds={pendingSeq}`,
    expect: [202],
  });
  return cases;
}

/** Activating an ingest configuration: the body is JSON true or false, or {"active": …}. */
function ingestConfigJunk(): Case[] {
  const cases: Case[] = [];
  const bodies: [string, Body][] = [
    ["not JSON", "maybe"],
    ['"maybe"', '"maybe"'],
    ["an array", "[true]"],
    ["an empty array", "[]"],
    ["an empty object", "{}"],
    ["active a string", '{"active":"true"}'],
    ["active a number", '{"active":1}'],
    ["active null", '{"active":null}'],
    ["enabled", '{"enabled":true}'],
    ["truncated object", '{"active":true'],
    ["1", "1"],
    ["0", "0"],
    ["null", "null"],
    ["empty", ""],
    ["blank", " \n "],
    ["truex", "truex"],
    ["tru", "tru"],
    ["yes", "yes"],
    ["on", "on"],
    ["true false", "true false"],
    ["an unclosed quote", '"true'],
    ["NUL then true", "\u0000true"],
    ["5,000 characters", "t".repeat(5000)],
    ["not UTF-8", { latin1: "tr\xfce" }],
  ];
  for (const [i, [name, body]] of bodies.entries()) {
    cases.push({
      name: `ingest config active: ${name}`,
      method: "PUT",
      path: `${CONFIGS}/${i % 2 === 0 ? CONFIG_ON : CONFIG_OFF}/active`,
      headers: JSON_TYPE,
      body,
      expect: [400],
      message: /must be true or false/,
    });
  }
  for (const [name, path, headers, body, status, message] of [
    ["a form", `${CONFIGS}/${CONFIG_OFF}/active`, FORM, "active=true", [400], /must be true or false/],
    ["2 MiB", `${CONFIGS}/${CONFIG_OFF}/active`, JSON_TYPE, TWO_MIB, [413], /1 MiB/],
    ["an unknown configuration", `${CONFIGS}/${UNKNOWN_UUID}/active`, JSON_TYPE, "true", [404], /No ingest/],
    ["a junk id", `${CONFIGS}/%00/active`, JSON_TYPE, "true", [404], /No ingest configuration/],
    ["a 5,000-character id", `${CONFIGS}/${"x".repeat(5000)}/active`, JSON_TYPE, "false", [404], /No ingest/],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({
      name: `ingest config active: ${name}`,
      method: "PUT",
      path,
      headers,
      body,
      expect: status,
      message,
    });
  }
  return cases;
}

/** Wrong methods and missing tokens on the operations routes. */
function operationsMisc(): Case[] {
  const wrong: [string, string, RegExp][] = [
    ["PUT", `${WF}/definitions`, /use GET or POST/],
    ["DELETE", `${WF}/definitions/11`, /use GET/],
    ["POST", `${WF}/definitions/11/document`, /use GET/],
    ["DELETE", `${WF}/contexts/11`, /use GET/],
    ["PATCH", `${WF}/instances`, /use GET or POST/],
    ["PUT", `${WF}/instances/terminate`, /use GET or POST/],
    ["DELETE", `${WF}/humantasks/{pendingSeq}`, /use GET/],
    ["GET", `${WF}/humantasks/{pendingSeq}/result`, /use POST/],
    ["POST", `${CONFIGS}`, /use GET/],
    ["POST", `${CONFIGS}/${CONFIG_ON}/active`, /use PUT/],
    ["DELETE", `${CONFIGS}/${CONFIG_ON}`, /use GET/],
    ["POST", `${PM}/monitors`, /use GET/],
    ["DELETE", `${PM}/monitors/{check}`, /use GET/],
    ["POST", `${PM}/history`, /use GET/],
    ["DELETE", `${PM}/progress/{check}`, /use GET/],
  ];
  const cases: Case[] = wrong.map(([method, path, message]) => ({
    name: `${method} ${path}`,
    method,
    path,
    headers: XML_TYPE,
    body: method === "GET" ? undefined : "true",
    expect: [405],
    message,
  }));
  // Without a token, or with a junk one: 401 before anything is read or changed.
  for (const [method, path, body, headers] of [
    ["GET", `${WF}/instances`],
    ["POST", `${WF}/instances`, startRequest(START), XML_TYPE],
    ["POST", `${WF}/instances/terminate?workflowInstanceIds={pendingSeq}`],
    ["POST", `${WF}/humantasks/{pendingSeq}/result`, el("HumanTaskResult", WF_NS, RESULT), XML_TYPE],
    ["PUT", `${CONFIGS}/${CONFIG_ON}/active`, "false", JSON_TYPE],
    ["GET", `${PM}/monitors`],
  ] as [string, string, string?, Record<string, string>?][]) {
    cases.push({
      name: `no token: ${method} ${path}`,
      method,
      path,
      body,
      headers,
      auth: false,
      expect: [401],
    });
    cases.push({
      name: `junk token: ${method} ${path}`,
      method,
      path,
      body,
      auth: false,
      headers: { ...headers, "Preservica-Access-Token": "{token}x" },
      expect: [401],
    });
  }
  return cases;
}

const operationsJunk = (): Case[] => [
  ...operationsReads(),
  ...operationsXml(),
  ...operationsChanges(),
  ...ingestConfigJunk(),
  ...operationsMisc(),
];

// ---------------------------------------------------------------------------------------------------
// Export (entity-exports.ts): an <ExportAction> body, refused before any action or file is made;
// and the package download. Fixture: a finished export of {io} (exportDone).

const EXPORT_OPTIONS =
  "<IncludeContent>NoContent</IncludeContent><IncludeMetadata>NoMetadata</IncludeMetadata><IncludedGenerations>LatestActive</IncludedGenerations><IncludeParentHierarchy>false</IncludeParentHierarchy>";
const exportAction = (inner: string) => el("ExportAction", ENT7, inner);

function exportJunk(): Case[] {
  const cases: Case[] = [];
  const paths = [`${E}/information-objects/{io}/exports`, `${E}/structural-objects/{pendingFolder}/exports`];
  const specific: Junk[] = [
    ...(
      [
        ["IncludeContent", "NoContent", ["Maybe", "Content,NoContent", "", "x".repeat(5000)]],
        ["IncludeMetadata", "NoMetadata", ["Some", "Metadata With Events", "%00"]],
        ["IncludedGenerations", "LatestActive", ["Latest", "1", "AllActive " + "x"]],
        ["IncludeParentHierarchy", "false", ["yes", "0", "maybe"]],
      ] as const
    ).flatMap(([name, good, bad]) =>
      bad.map(
        (v): Junk => [
          `${name} ${JSON.stringify(v.slice(0, 20))}`,
          exportAction(EXPORT_OPTIONS.replace(`<${name}>${good}</${name}>`, `<${name}>${v}</${name}>`)),
          [400],
          new RegExp(`${name} must be one of`),
        ],
      ),
    ),
    ["an empty root", `<Wrong xmlns="${ENT7}"/>`, [400], /ExportAction/],
    ["a DeletionAction", el("DeletionAction", ENT7, DELETION), [400], /ExportAction/],
  ];
  for (const [i, path] of paths.entries()) {
    const { always, shared } = xmlJunk("ExportAction", ENT7, EXPORT_OPTIONS);
    for (const [name, body, expectStatus, message] of [
      ...always,
      ...spread(shared, i),
      ...(i === 0 ? specific : []),
    ]) {
      cases.push({
        name: `POST ${path.slice(E.length)}: ${name}`,
        method: "POST",
        path,
        headers: XML_TYPE,
        body,
        expect: expectStatus,
        message,
      });
    }
  }
  const good = exportAction(EXPORT_OPTIONS);
  for (const [name, path, status, message] of [
    ["an asset as a folder", `${E}/structural-objects/{io}/exports`, [404], /not found|information-objects/],
    ["a folder as an asset", `${E}/information-objects/{so}/exports`, [404], /not found|structural-objects/],
    ["a junk ref", `${E}/information-objects/{io}x/exports`, [404], /not a UUID|UUID/],
    ["a 5,000-character ref", `${E}/structural-objects/${"x".repeat(5000)}/exports`, [404], /UUID/],
    ["an unknown folder", `${E}/structural-objects/${UNKNOWN_UUID}/exports`, [404], /not found/],
    ["a folder in the recycle bin", `${E}/structural-objects/{binned}/exports`, [404], /not found/],
    [
      "a folder the caller cannot read",
      `${E}/structural-objects/{hidden}/exports`,
      [403],
      /Read Metadata|READ_METADATA|permission/,
    ],
    // {so} holds {hidden}: the package would leave it out, so the whole export is refused.
    [
      "a folder holding one the caller cannot read",
      `${E}/structural-objects/{so}/exports`,
      [403],
      /\{?[0-9a-f-]{36}/,
    ],
    ["through v6.0, a junk ref", `${E}/v6.0/information-objects/x{io}/exports`, [404], /UUID/],
  ] as [string, string, number[], RegExp][]) {
    cases.push({
      name: `export ${name}`,
      method: "POST",
      path,
      headers: XML_TYPE,
      body: good,
      expect: status,
      message,
    });
  }
  cases.push({
    name: "export through v6.0: wrong root",
    method: "POST",
    path: `${E}/v6.0/information-objects/{io}/exports`,
    headers: XML_TYPE,
    body: el("Wrong", ENT7, EXPORT_OPTIONS),
    expect: [400],
    message: /ExportAction/,
  });

  // The package download.
  const content = (token: string) => `${E}/actions/exports/${token}/content`;
  cases.push({ name: "baseline export package", path: content("{exportDone}"), expect: [200] });
  cases.push({ name: "HEAD export package", method: "HEAD", path: content("{exportDone}"), expect: [200] });
  cases.push({
    name: "export package through v6.0",
    path: `${E}/v6.0/actions/exports/{exportDone}/content`,
    expect: [200],
  });
  for (const [token, status, message] of [
    ["not-a-uuid", [404], /UUID|token/],
    ["%00", [404], /UUID|token/],
    ["{exportDone}x", [404], /UUID|token/],
    ["x".repeat(5000), [404], /UUID|token/],
    ["..%2f..%2fetc%2fpasswd", [404], /UUID|token/],
    [UNKNOWN_UUID, [404], /No export/],
    ["{done}", [404], /No export/],
    ["{pending}", [404], /No export/],
    ["{check}", [404], /No export/],
  ] as const) {
    cases.push({
      name: `export package ${token.slice(0, 20)}`,
      path: content(token),
      expect: [...status],
      message,
    });
  }
  cases.push({
    name: "export package with a Range",
    path: content("{exportDone}"),
    headers: { Range: "bytes=0-9" },
    expect: [200],
  });
  for (const [method, message] of [
    ["POST", /use GET/],
    ["DELETE", /use GET/],
  ] as const) {
    cases.push({
      name: `${method} export package`,
      method,
      path: content("{exportDone}"),
      expect: [405],
      message,
    });
  }
  cases.push({
    name: "GET exports of an asset",
    path: `${E}/information-objects/{io}/exports`,
    expect: [405],
    message: /use POST/,
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// The S3-compatible package upload (routes/s3.ts): S3's own shapes (errors are `<Error>` documents).
// Fixture: a multipart upload of the key junk-fixture.zip (upload) with one part stored (partEtag).
// Any junk that got through would store a package, start an ingest, or add a part or an upload.

const S3 = "/api/s3/buckets";
const BUCKET = `${S3}/demo.package.upload`;
const FIXTURE_KEY = `${BUCKET}/junk-fixture.zip`;
const FOLDER_HEADER = "x-amz-meta-structuralobjectreference";
/** Bytes that start like a zip: whatever else is wrong is what refuses them. */
const ZIP_LIKE = Buffer.concat([
  Buffer.from([0x50, 0x4b, 0x03, 0x04]),
  Buffer.from("junk that is not a package"),
]);
const WRONG_MD5 = createHash("md5").update("something else").digest("base64");
const completion = (parts: string) => `<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`;
const part = (n: string, etag: string) => `<Part><PartNumber>${n}</PartNumber><ETag>"${etag}"</ETag></Part>`;

/**
 * A known defect (S3 upload, reported to the lead; that area is still being written): the service-wide
 * 1 MiB body cap (app.ts) refuses a CompleteMultipartUpload over 1 MiB in JSON, where S3 clients read an
 * `<Error>` document. The table checks what holds (413, nothing changed, still serving); the test
 * "known defect: …" shows the shape, and fails once it is fixed: then drop `knownDefect`.
 */
const S3_OVERSIZED_COMPLETION: Case = {
  name: "S3 complete: 2 MiB of parts",
  method: "POST",
  path: `${FIXTURE_KEY}?uploadId={upload}`,
  headers: XML_TYPE,
  body: completion(part("1", "{partEtag}") + " ".repeat(2 * 1024 * 1024)),
  expect: [413],
  knownDefect: "refused in JSON, not in S3's <Error> document",
};

function s3Junk(): Case[] {
  const cases: Case[] = [];
  for (const p of [
    S3,
    `${S3}/`,
    BUCKET,
    `${BUCKET}/`,
    `${BUCKET}?prefix=junk&max-keys=5`,
    `${FIXTURE_KEY}?uploadId={upload}`,
  ]) {
    cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  }
  cases.push({ name: "HEAD the bucket", method: "HEAD", path: BUCKET, expect: [200] });
  cases.push({
    name: "S3 token as a SigV4 access key",
    path: S3,
    auth: false,
    headers: {
      Authorization:
        "AWS4-HMAC-SHA256 Credential={token}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
    },
    expect: [200],
  });

  // Signing: no token, a junk one, a header that names none.
  for (const [name, headers, path, status] of [
    ["no token", {}, S3, [401]],
    ["a junk token", { "Preservica-Access-Token": "{token}x" }, BUCKET, [401]],
    ["SigV4 without Credential", { Authorization: "AWS4-HMAC-SHA256 SignedHeaders=host" }, S3, [400]],
    ["SigV4 Credential without scope", { Authorization: "AWS4-HMAC-SHA256 Credential={token}" }, S3, [400]],
    [
      "SigV4 with a junk key",
      { Authorization: "AWS4-HMAC-SHA256 Credential=x/1/2/s3/aws4_request" },
      S3,
      [401],
    ],
    ["Bearer", { Authorization: "Bearer {token}" }, S3, [400]],
    ["SigV2 with a junk key", { Authorization: "AWS {token}x:sig" }, S3, [401]],
    ["presigned junk", {}, `${S3}?X-Amz-Credential=junk`, [400]],
    ["a PUT without a token", {}, `${BUCKET}/x.zip`, [401]],
  ] as [string, Record<string, string>, string, number[]][]) {
    const put = name.startsWith("a PUT");
    cases.push({
      name: `S3 ${name}`,
      method: put ? "PUT" : "GET",
      path,
      auth: false,
      headers,
      body: put ? ZIP_LIKE : undefined,
      expect: status,
    });
  }

  // Buckets and keys.
  for (const b of ["nope", "DEMO.package.upload", "%00", "x".repeat(5000), "demo.package.upload%00"]) {
    cases.push({
      name: `S3 bucket ${b.slice(0, 20)}`,
      path: `${S3}/${b}`,
      expect: [404],
      message: /NoSuchBucket|does not exist/,
    });
    cases.push({
      name: `S3 put into bucket ${b.slice(0, 20)}`,
      method: "PUT",
      path: `${S3}/${b}/x.zip`,
      headers: OCTET,
      body: ZIP_LIKE,
      expect: [404],
    });
  }
  for (const [name, key, status] of [
    ["a .. segment", "..%2fx.zip", [400]],
    ["a backslash ..", "..%5cx.zip", [400]],
    ["a leading slash", "/x.zip", [400]],
    ["an encoded leading slash", "%2fx.zip", [400]],
    ["NUL", "x%00.zip", [400]],
    ["a newline", "x%0a.zip", [400]],
    ["1,025 bytes", "k".repeat(1025), [400]],
  ] as [string, string, number[]][]) {
    cases.push({
      name: `S3 put a key with ${name}`,
      method: "PUT",
      path: `${BUCKET}/${key}`,
      headers: OCTET,
      body: ZIP_LIKE,
      expect: status,
    });
  }

  // Whole packages (PutObject) refused before an ingest starts.
  const put = `${BUCKET}/junk.zip`;
  for (const [name, headers, body, status, message] of [
    ["not a zip", OCTET, FILE, [400], /not a zip file/],
    ["empty", OCTET, Buffer.alloc(0), [400], /empty/],
    ["not a zip, chunked", OCTET, { chunks: [FILE, FILE] }, [400], /not a zip file/],
    ["a wrong Content-MD5", { ...OCTET, "Content-MD5": WRONG_MD5 }, ZIP_LIKE, [400], /MD5|digest/i],
    ["a junk Content-MD5", { ...OCTET, "Content-MD5": "abc" }, ZIP_LIKE, [400], /Content-MD5/],
    ["a wrong SHA-256", { ...OCTET, "x-amz-content-sha256": "0".repeat(64) }, ZIP_LIKE, [400], /SHA-?256/i],
    ["a junk SHA-256", { ...OCTET, "x-amz-content-sha256": "zz" }, ZIP_LIKE, [400], /X-Amz-Content-SHA256/],
    ["a wrong CRC32", { ...OCTET, "x-amz-checksum-crc32": "AAAAAA==" }, ZIP_LIKE, [400], /CRC32|checksum/i],
    ["a junk SHA-1 checksum", { ...OCTET, "x-amz-checksum-sha1": "%%%" }, ZIP_LIKE, [400], /sha1|checksum/i],
    // S3 answers 501 NotImplemented for what it does not offer; so does this service.
    [
      "aws-chunked",
      { ...OCTET, "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" },
      ZIP_LIKE,
      [501],
      /aws-chunked/,
    ],
    [
      "a copy",
      { ...OCTET, "x-amz-copy-source": "/demo.package.upload/other.zip" },
      ZIP_LIKE,
      [501],
      /CopyObject/,
    ],
    [
      "a folder that is not a UUID",
      { ...OCTET, [FOLDER_HEADER]: "not-a-uuid" },
      ZIP_LIKE,
      [400],
      /folder reference/,
    ],
    ["an unknown folder", { ...OCTET, [FOLDER_HEADER]: UNKNOWN_UUID }, ZIP_LIKE, [404], /no folder/i],
    ["an asset as the folder", { ...OCTET, [FOLDER_HEADER]: "{io}" }, ZIP_LIKE, [404], /not a folder/],
    ["a folder in the recycle bin", { ...OCTET, [FOLDER_HEADER]: "{binned}" }, ZIP_LIKE, [404], /folder/],
    [
      "a folder the caller may not ingest into",
      { ...OCTET, [FOLDER_HEADER]: "{hidden}" },
      ZIP_LIKE,
      [403],
      /Ingest|INGEST/,
    ],
  ] as [string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({ name: `S3 put ${name}`, method: "PUT", path: put, headers, body, expect: status, message });
  }

  // Multipart: starting one into a junk folder, parts and completions that are wrong.
  for (const [name, folder, status] of [
    ["not a UUID", "x", [400]],
    ["unknown", UNKNOWN_UUID, [404]],
    ["not readable", "{hidden}", [403]],
  ] as [string, string, number[]][]) {
    cases.push({
      name: `S3 start a multipart upload into a folder ${name}`,
      method: "POST",
      path: `${BUCKET}/junk.zip?uploads`,
      headers: { [FOLDER_HEADER]: folder },
      body: "",
      expect: status,
    });
  }
  cases.push({
    name: "S3 POST an object without uploads or uploadId",
    method: "POST",
    path: put,
    body: "",
    expect: [400],
    message: /\?uploads/,
  });
  const partPath = (q: string) => `${FIXTURE_KEY}?${q}`;
  for (const n of ["0", "10001", "abc", "-1", "1.5", "", "99999999"]) {
    cases.push({
      name: `S3 part number ${JSON.stringify(n)}`,
      method: "PUT",
      path: partPath(`uploadId={upload}&partNumber=${n}`),
      headers: OCTET,
      body: ZIP_LIKE,
      expect: [400],
      message: /Part number|partNumber/,
    });
  }
  for (const [name, q, headers, status] of [
    ["a part without uploadId", "partNumber=2", OCTET, [400]],
    ["a part of an unknown upload", "uploadId=nope&partNumber=2", OCTET, [404]],
    ["a part of a junk upload id", "uploadId=..%2f..%2fx&partNumber=2", OCTET, [404]],
    [
      "a part with a wrong Content-MD5",
      "uploadId={upload}&partNumber=2",
      { ...OCTET, "Content-MD5": WRONG_MD5 },
      [400],
    ],
    [
      "a part with a junk SHA-256",
      "uploadId={upload}&partNumber=2",
      { ...OCTET, "x-amz-content-sha256": "zz" },
      [400],
    ],
  ] as [string, string, Record<string, string>, number[]][]) {
    cases.push({
      name: `S3 ${name}`,
      method: "PUT",
      path: partPath(q),
      headers,
      body: ZIP_LIKE,
      expect: status,
    });
  }
  cases.push({
    name: "S3 a part of the upload under another key",
    method: "PUT",
    path: `${BUCKET}/other.zip?uploadId={upload}&partNumber=2`,
    headers: OCTET,
    body: ZIP_LIKE,
    expect: [404],
    message: /NoSuchUpload|no multipart upload/,
  });
  const complete = partPath("uploadId={upload}");
  for (const [name, body, status, message] of [
    ["not XML", "PartNumber=1", [400], /well-formed|MalformedXML/],
    ["empty", "", [400], /empty|MalformedXML/],
    ["a DOCTYPE", `<!DOCTYPE x>${completion(part("1", "{partEtag}"))}`, [400], /DOCTYPE/],
    [
      "an external entity",
      `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${completion(`<Part><PartNumber>1</PartNumber><ETag>&e;</ETag></Part>`)}`,
      [400],
      /DOCTYPE/,
    ],
    ["a wrong root", `<Complete>${part("1", "{partEtag}")}</Complete>`, [400], /CompleteMultipartUpload/],
    ["no Part", completion(""), [400], /no Part/],
    ["PartNumber junk", completion(part("abc", "{partEtag}")), [400], /PartNumber/],
    ["PartNumber 0", completion(part("0", "{partEtag}")), [400], /Part|part/],
    ["a wrong ETag", completion(part("1", "0".repeat(32))), [400], /ETag/],
    [
      "a part never uploaded",
      completion(part("1", "{partEtag}") + part("2", "{partEtag}")),
      [400],
      /never uploaded|at least/,
    ],
    ["parts out of order", completion(part("2", "{partEtag}") + part("1", "{partEtag}")), [400], /ascending/],
    ["a part twice", completion(part("1", "{partEtag}") + part("1", "{partEtag}")), [400], /ascending|once/],
  ] as [string, string, number[], RegExp][]) {
    cases.push({
      name: `S3 complete: ${name}`,
      method: "POST",
      path: complete,
      headers: XML_TYPE,
      body,
      expect: status,
      message,
    });
  }
  cases.push(S3_OVERSIZED_COMPLETION);
  for (const [name, path] of [
    ["an unknown upload", partPath("uploadId=nope")],
    ["the upload under another key", `${BUCKET}/other.zip?uploadId={upload}`],
    ["a 5,000-character upload id", partPath(`uploadId=${"u".repeat(5000)}`)],
  ] as const) {
    cases.push({
      name: `S3 complete ${name}`,
      method: "POST",
      path,
      headers: XML_TYPE,
      body: completion(part("1", "{partEtag}")),
      expect: [404],
      message: /NoSuchUpload|no multipart upload/,
    });
    cases.push({ name: `S3 list parts of ${name}`, path, expect: [404] });
    cases.push({ name: `S3 abort ${name}`, method: "DELETE", path, expect: [404] });
  }

  // Methods and paths the upload does not offer; objects are not read back.
  for (const [method, path, status] of [
    ["GET", put, [405]],
    ["PATCH", put, [405]],
    ["PUT", BUCKET, [405]],
    ["DELETE", BUCKET, [405]],
    ["POST", S3, [405]],
    ["GET", "/api/s3/nope", [400, 404]],
  ] as [string, string, number[]][]) {
    cases.push({ name: `S3 ${method} ${path.slice(4, 60)}`, method, path, expect: status });
  }
  cases.push({ name: "S3 HEAD a key never put", method: "HEAD", path: `${BUCKET}/never.zip`, expect: [404] });
  // DeleteObject: a package put was handed to its ingest at once; there is nothing to delete (204).
  cases.push({ name: "S3 delete a key", method: "DELETE", path: put, expect: [204] });
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Reports (routes/reports.ts): JSON envelopes; a run is an action. Fixture: a finished run of
// assets-by-format (reportRun).

const R = "/api/reports";

function reportJunk(): Case[] {
  const cases: Case[] = [];
  for (const p of [
    R,
    `${R}/assets-by-format`,
    `${R}/actions/reports`,
    `${R}/actions/reports?status=completed&report=assets-by-format&username=nobody`,
    `${R}/progress/{reportRun}`,
    `${R}/results/{reportRun}`,
    `${R}/results/{reportRun}?format=CSV`,
  ]) {
    cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  }
  for (const id of [
    "nope",
    "%00",
    "x".repeat(5000),
    "ASSETS-BY-FORMAT",
    "..%2factions",
    "assets-by-format%20",
  ]) {
    cases.push({
      name: `report ${id.slice(0, 20)}`,
      path: `${R}/${id}`,
      expect: [404],
      message: /No report/,
    });
    cases.push({
      name: `run report ${id.slice(0, 20)}`,
      method: "POST",
      path: `${R}/${id}/run`,
      headers: JSON_TYPE,
      body: "{}",
      expect: [404],
      message: /No report/,
    });
  }
  const run = (id: string) => `${R}/${id}/run`;
  for (const [name, path, headers, body, status, message] of [
    [
      "an unknown parameter",
      run("assets-by-format"),
      JSON_TYPE,
      '{"colour":"red"}',
      [400],
      /unknown parameter/,
    ],
    ["an unknown form parameter", run("assets-by-format"), FORM, "folder={so}", [400], /unknown parameter/],
    ["an unknown query parameter", `${run("retention-summary")}?x=1`, FORM, "", [400], /unknown parameter/],
    ["JSON that is not an object", run("assets-by-format"), JSON_TYPE, "[1,2]", [400]],
    ["JSON that is not JSON", run("assets-by-format"), JSON_TYPE, "{", [400]],
    ["a JSON string", run("assets-by-format"), JSON_TYPE, '"maybe"', [400]],
    [
      "JSON nested 100 deep",
      run("assets-by-format"),
      JSON_TYPE,
      `${'{"a":'.repeat(100)}1${"}".repeat(100)}`,
      [400],
    ],
    ["2 MiB", run("assets-by-format"), JSON_TYPE, `{"x":"${"x".repeat(2 * 1024 * 1024)}"}`, [413], /1 MiB/],
    [
      "a broken multipart body",
      run("assets-by-format"),
      { "Content-Type": "multipart/form-data" },
      "junk",
      [400],
      /multipart/,
    ],
    ...["not-a-uuid", "{so}x", "x".repeat(5000), "%00"].map((v) => [
      `folder ${v.slice(0, 20)}`,
      run("storage-by-folder"),
      JSON_TYPE,
      JSON.stringify({ folder: v }),
      [400],
      /not a folder reference/,
    ]),
    [
      "an unknown folder",
      run("storage-by-folder"),
      JSON_TYPE,
      `{"folder":"${UNKNOWN_UUID}"}`,
      [404],
      /No folder/,
    ],
    ["an asset as the folder", run("fixity-inventory"), JSON_TYPE, '{"folder":"{io}"}', [404], /No folder/],
    ["a folder in the recycle bin", run("fixity-inventory"), FORM, "folder={binned}", [404], /No folder/],
    [
      "a folder the caller cannot read",
      run("storage-by-folder"),
      JSON_TYPE,
      '{"folder":"{hidden}"}',
      [403],
      /may not read/,
    ],
    [
      "a folder twice",
      `${run("storage-by-folder")}?folder={so}`,
      FORM,
      "folder={pendingFolder}",
      [400],
      /different values/,
    ],
    ...["yesterday", "2026-02-30", "2026-13-01", "%00", "1e309"].map((v) => [
      `from ${v}`,
      run("ingest-history"),
      JSON_TYPE,
      JSON.stringify({ from: v }),
      [400],
      /is not a date/,
    ]),
    [
      "from after to",
      run("ingest-history"),
      JSON_TYPE,
      '{"from":"2026-02-01","to":"2026-01-01"}',
      [400],
      /is after/,
    ],
    ...["a b", "x".repeat(101), "%00", "é"].map((v) => [
      `user ${v.slice(0, 20)}`,
      run("changes-by-user"),
      JSON_TYPE,
      JSON.stringify({ user: v }),
      [400],
      /is not a user name/,
    ]),
  ] as [string, string, Record<string, string>, Body, number[], RegExp?][]) {
    cases.push({ name: `report run: ${name}`, method: "POST", path, headers, body, expect: status, message });
  }
  for (const route of ["progress", "results"]) {
    for (const [token, status, message] of [
      ["abc", [400], /is not a progress token/],
      ["x".repeat(5000), [400], /is not a progress token/],
      ["{reportRun}x", [400], /is not a progress token/],
      ["%00", [400], /is not a progress token/],
      [UNKNOWN_UUID, [404], /No report run/],
      ["{done}", [404], /not a report run/],
      ["{check}", [404], /not a report run/],
    ] as const) {
      cases.push({
        name: `report ${route} ${token.slice(0, 20)}`,
        path: `${R}/${route}/${token}`,
        expect: [...status],
        message,
      });
    }
  }
  for (const [q, message] of [
    ["format=xml", /format must be one of/],
    ["format=%00", /format must be one of/],
    [`format=${"x".repeat(5000)}`, /format must be one of/],
    ["format=json&format=csv", /different values/],
  ] as const) {
    cases.push({
      name: `report results ${q.slice(0, 30)}`,
      path: `${R}/results/{reportRun}?${q}`,
      expect: [400],
      message,
    });
  }
  const runs = `${R}/actions/reports`;
  for (const [q, message] of [
    ["status=SOMETIMES", /status must be one of/],
    ["status=%00", /status must be one of/],
    ["report=nope", /report must be one of/],
    [`report=${"x".repeat(5000)}`, /report must be one of/],
    ["status=completed&status=failed", /different values/],
    ["max=0", /at least 1/],
  ] as const) {
    cases.push({ name: `report runs ${q.slice(0, 30)}`, path: `${runs}?${q}`, expect: [400], message });
  }
  for (const param of ["start", "max"]) {
    for (const v of spread(BAD_NUMBERS, param === "start" ? 1 : 2)) {
      cases.push({
        name: `report runs ${param}=${v.slice(0, 20)}`,
        path: `${runs}?${param}=${v}`,
        expect: param === "max" && v === "-1" ? [200] : [400],
      });
    }
  }
  for (const [method, path, message] of [
    ["POST", R, /use GET/],
    ["GET", run("assets-by-format"), /use POST/],
    ["DELETE", `${R}/progress/{reportRun}`, /use GET/],
    ["PUT", `${R}/results/{reportRun}`, /use GET/],
  ] as const) {
    cases.push({ name: `${method} ${path}`, method, path, expect: [405], message });
  }
  cases.push({ name: "reports without a token", path: R, auth: false, expect: [401] });
  cases.push({
    name: "report run without a token",
    method: "POST",
    path: run("assets-by-format"),
    auth: false,
    headers: JSON_TYPE,
    body: "{}",
    expect: [401],
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------------

const TABLE: Case[] = [
  ...READ_PATHS.map((p) => ({
    name: `baseline ${p}`,
    path: p,
    expect: p.includes("thumbnail") ? [200, 404] : [200],
  })),
  ...entityJunk(),
  ...contentJunk(),
  ...qJunk(),
  ...httpJunk(),
  ...xmlWriteJunk(),
  ...pathJunk(),
  ...textWriteJunk(),
  ...fileWriteJunk(),
  ...csvJunk(),
  ...metadataJunk(),
  ...newReadJunk(),
  ...wrongMethods(),
  ...operationsJunk(),
  ...exportJunk(),
  ...s3Junk(),
  ...reportJunk(),
  ...CASE_MODULES.flatMap((m) => m.CASES),
];
const RAW_WRITES = lyingLengths();

/**
 * Everything stored that no junk may change: every table but tokens and challenges (logging in makes
 * them), the users' credentials and roles, and the files in the content store (an upload refused
 * half-way must leave no blob, nor a part-file behind).
 */
function storedState(): { tables: Record<string, string>; users: string; content: string[] } {
  const { db, dataDir } = repo.svc;
  // One hash per table (what storeHash hashes, table by table), so a failure names the table.
  const names = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
         AND name NOT LIKE 'entity_fts_%' AND name NOT IN ('tokens', 'users', 'challenges') ORDER BY name`,
    )
    .pluck()
    .all() as string[];
  const tables: Record<string, string> = { all: storeHash(db) };
  for (const name of names.filter((n) => !READ_SET_TABLES.includes(n))) {
    const rows = db.prepare(`SELECT ${comparedColumns(db, name)} FROM "${name}" ORDER BY rowid`).all();
    tables[name] = createHash("sha256").update(JSON.stringify(rows)).digest("hex");
  }
  const users = JSON.stringify(
    db.prepare("SELECT username, password_hash, roles, enabled FROM users ORDER BY username").all(),
  );
  // Every file of the data folder but the database's own: blobs, and what uploads leave (content
  // parts, ingest packages). The uploads' working folders may appear, empty; a file left in one shows.
  const root = dataDir;
  const content = readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => !/^repository\.sqlite|^content\/\.incoming$|^packages$/.test(f))
    .sort()
    .map((f) => {
      const st = statSync(join(root, f));
      return `${f}:${st.isDirectory() ? "dir" : st.size}`;
    });
  return { tables, users, content };
}

/**
 * A cheap fingerprint of what a write changes, taken around every case so that a case the service
 * lets through is named at once: the small write-side tables whole, and of the large tables the row
 * counts and the newest event (every change to an entity records one).
 */
function writeState(): string {
  const { db } = repo.svc;
  const whole = [
    "actions",
    "action_items",
    "previews",
    "retention_policies",
    "retention_assignments",
    "retention_events",
    "metadata_groups",
    "metadata_forms",
    "workflow_definitions",
    "workflow_contexts",
    "workflow_starts",
    "ingest_configs",
  ].map((t) => db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all());
  const counts = db
    .prepare(
      `SELECT (SELECT count(*) FROM entities WHERE deleted = 0), (SELECT max(modified) FROM entities),
              (SELECT count(*) FROM metadata_fragments), (SELECT count(*) FROM identifiers),
              (SELECT count(*) FROM links), (SELECT count(*) FROM representations),
              (SELECT count(*) FROM generations), (SELECT max(id) FROM events)`,
    )
    .raw()
    .get();
  return JSON.stringify([whole, counts]);
}

/** A request of the fixtures' own, which must succeed; placeholders filled. Returns the reply's text. */
async function call(method: string, path: string, body?: string, type = XML_TYPE["Content-Type"]) {
  const res = await fetch(repo.url + fill(path), {
    method,
    headers: { "Preservica-Access-Token": fx.token as string, "Content-Type": type },
    body: body === undefined ? undefined : fill(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${text}`);
  return text;
}

/** Things for the write junk to aim at, made through the API before the stored state is taken. */
async function makeWriteFixtures(): Promise<void> {
  const { db } = repo.svc;
  const pick = (sql: string, ...params: string[]) => {
    const v = db
      .prepare(sql)
      .pluck()
      .get(...params);
    if (typeof v !== "string") throw new Error(`no fixture for ${sql}`);
    return v;
  };
  fx.otherIo = pick(
    "SELECT ref FROM entities WHERE type = 'IO' AND deleted = 0 AND ref <> ? LIMIT 1",
    fx.io as string,
  );
  fx.otherSo = pick(
    "SELECT ref FROM entities WHERE type = 'SO' AND parent_ref IS NULL AND ref <> ? ORDER BY id DESC LIMIT 1",
    fx.so as string,
  );
  for (const [ph, path] of TYPES) {
    await call(
      "POST",
      `${E}/${path}/{${ph}}/identifiers`,
      el("Identifier", XIP7, "<Type>junk-fixture</Type><Value>F-1</Value>"),
    );
    fx[`${ph}Id`] = pick(
      "SELECT api_id FROM identifiers WHERE entity_ref = ? AND type = 'junk-fixture'",
      fx[ph] as string,
    );
  }
  await call(
    "POST",
    `${E}/information-objects/{io}/links`,
    el("Link", XIP7, "<Type>http://purl.org/dc/terms/references</Type><ToEntity>{so}</ToEntity>"),
  );
  fx.ioLink = pick(
    "SELECT api_id FROM links WHERE from_ref = ? AND to_ref = ?",
    fx.io as string,
    fx.so as string,
  );

  for (const [key, name] of [
    ["policy", "Junk fixture policy"],
    ["policy2", "Junk fixture policy 2"],
    ["spare", "Junk spare policy"],
  ]) {
    await call(
      "POST",
      `${E}/retention-policies`,
      el("RetentionPolicy", RM, `<Name>${name}</Name><SecurityTag>open</SecurityTag>`),
    );
    fx[key as string] = pick("SELECT ref FROM retention_policies WHERE name = ?", name as string);
  }
  for (const [key, policy] of [
    ["assignment", "policy"],
    ["assignment2", "policy2"],
  ]) {
    await call(
      "POST",
      `${E}/information-objects/{io}/retention-assignments`,
      el("RetentionAssignment", RM, `<RetentionPolicy>{${policy}}</RetentionPolicy>`),
    );
    fx[key as string] = pick(
      "SELECT api_id FROM retention_assignments WHERE policy_ref = ?",
      fx[policy as string] as string,
    );
  }
  await call("PUT", `${E}/retention-policies/{policy2}/assignable`, "False", TEXT_TYPE["Content-Type"]);

  const json = JSON_TYPE["Content-Type"];
  const made = JSON.parse(
    await call(
      "POST",
      `${M}/groups/`,
      '{"name":"Junk Fixture Group","fields":[{"id":"accession_number","name":"Accession number"}]}',
      json,
    ),
  ) as { id: string; schemaUri: string };
  fx.group = made.id;
  fx.groupColumn = `${made.schemaUri};/ns:junk_fixture_group/ns:accession_number`;
  fx.group2 = (
    JSON.parse(await call("POST", `${M}/groups`, '{"name":"Junk Café Group"}', json)) as { id: string }
  ).id;
  await call(
    "POST",
    `${M}/forms/`,
    JSON.stringify({ title: "Junk fixture form", schemaUri: made.schemaUri }),
    json,
  );
  await call("POST", `${M}/forms`, '{"title":"Junk café loose form"}', json);
  fx.form = pick("SELECT id FROM metadata_forms WHERE title = 'Junk fixture form'");
  fx.form2 = pick("SELECT id FROM metadata_forms WHERE title = 'Junk café loose form'");

  // A folder (inside so) whose deletion awaits approval, and one in the recycle bin.
  const submission = el("DeletionAction", ENT7, "<Submission><Comment>fixture</Comment></Submission>");
  for (const [folder, deletion] of [
    ["pendingFolder", "pending"],
    ["binned", "done"],
  ] as const) {
    const title = `Junk ${folder}`;
    await call(
      "POST",
      `${E}/structural-objects`,
      el(
        "StructuralObject",
        XIP7,
        `<Title>${title}</Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>`,
      ),
    );
    fx[folder] = pick("SELECT ref FROM entities WHERE title = ?", title);
    fx[deletion] = await call("DELETE", `${E}/structural-objects/{${folder}}`, submission);
  }
  await call(
    "PUT",
    `${E}/actions/deletions/{done}`,
    el("DeletionAction", ENT7, "<Approval><Approved>true</Approved><Comment>fixture</Comment></Approval>"),
  );
  await repo.svc.actions.idle();
  if (pick("SELECT status FROM actions WHERE id = ?", fx.done as string) !== "COMPLETED") {
    throw new Error("the fixture deletion did not complete");
  }

  // Operations: the deletions as workflow instances, a finished Integrity Check (of the empty folder
  // awaiting deletion), an uploaded definition and its context, a folder the manager cannot read.
  const seqOf = (id: string) => pick("SELECT CAST(seq AS TEXT) FROM actions WHERE id = ?", id);
  fx.pendingSeq = seqOf(fx.pending as string);
  fx.doneSeq = seqOf(fx.done as string);
  await call("POST", `${WF}/instances`, startRequest(START));
  await repo.svc.actions.idle();
  fx.check = pick(
    "SELECT id FROM actions WHERE kind = 'integrity-check' AND status = 'COMPLETED' AND entity_ref = ?",
    fx.pendingFolder as string,
  );
  fx.checkSeq = seqOf(fx.check);
  await call(
    "POST",
    `${WF}/definitions`,
    `<WorkflowDefinition xmlns="${WF_NS}" id="org.example.junk.fixture" name="Junk fixture" type="Access"/>`,
  );
  fx.definition = pick(
    "SELECT CAST(id AS TEXT) FROM workflow_definitions WHERE text_id = 'org.example.junk.fixture'",
  );
  await call(
    "POST",
    `${WF}/contexts`,
    el(
      "WorkflowContext",
      WF_NS,
      "<Name>Junk uploaded context</Name><WorkflowDefinitionId>org.example.junk.fixture</WorkflowDefinitionId>",
    ),
  );
  fx.uploadedContext = pick(
    "SELECT CAST(id AS TEXT) FROM workflow_contexts WHERE name = 'Junk uploaded context'",
  );
  addSecurityTag(db, "junk-hidden");
  await call(
    "POST",
    `${E}/structural-objects`,
    el(
      "StructuralObject",
      XIP7,
      "<Title>Junk hidden folder</Title><SecurityTag>junk-hidden</SecurityTag><Parent>{so}</Parent>",
    ),
  );
  fx.hidden = pick("SELECT ref FROM entities WHERE title = 'Junk hidden folder'");
  fx.exportDone = await call("POST", `${E}/information-objects/{io}/exports`, exportAction(EXPORT_OPTIONS));
  // A report run, and a multipart upload with one part stored (S3).
  fx.reportRun = (
    JSON.parse(await call("POST", `${R}/assets-by-format/run`, "{}", JSON_TYPE["Content-Type"])) as {
      value: { progressToken: string };
    }
  ).value.progressToken;
  await repo.svc.actions.idle();
  const initiated = await call("POST", `${FIXTURE_KEY}?uploads`, "");
  fx.upload = String(/<UploadId>([^<]+)<\/UploadId>/.exec(initiated)?.[1]);
  const stored = await fetch(`${repo.url}${fill(FIXTURE_KEY)}?uploadId=${fx.upload}&partNumber=1`, {
    method: "PUT",
    headers: { "Preservica-Access-Token": fx.token as string, ...OCTET },
    body: ZIP_LIKE,
  });
  if (stored.status !== 200) throw new Error(`fixture part: ${stored.status} ${await stored.text()}`);
  fx.partEtag = md5(ZIP_LIKE);
}

describe("the repository service answers junk with a clear 4xx", () => {
  let before: ReturnType<typeof storedState>;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    const { db } = repo.svc;
    const one = (sql: string) => (db.prepare(sql).get() as { ref: string }).ref;
    const chain = db
      .prepare(
        `SELECT g.co_ref AS co, r.io_ref AS io FROM bitstreams b JOIN generations g ON g.id = b.generation_id AND g.idx = 1 AND b.idx = 1
         JOIN representation_objects ro ON ro.co_ref = g.co_ref JOIN representations r ON r.id = ro.representation_id AND r.type = 'Preservation' AND r.idx = 1
         JOIN entities e ON e.ref = r.io_ref JOIN entities ce ON ce.ref = g.co_ref
         WHERE e.security_tag = 'open' AND ce.security_tag = 'open' AND b.size > 100 LIMIT 1`,
      )
      .get() as { co: string; io: string };
    const io = chain.io;
    const twofactor = await fetch(`${repo.url}/api/accesstoken/login`, {
      method: "POST",
      body: new URLSearchParams({ username: "twofactor", password: "twofactor-demo-pw" }),
    });
    fx = {
      token: (await login(repo.url, "manager")).token,
      so: one(
        "SELECT ref FROM entities WHERE type = 'SO' AND security_tag = 'open' AND parent_ref IS NULL ORDER BY id LIMIT 1",
      ),
      io,
      co: chain.co,
      soMref: one(
        "SELECT f.mref AS ref FROM metadata_fragments f JOIN entities e ON e.ref = f.entity_ref WHERE e.type = 'SO' ORDER BY f.id LIMIT 1",
      ),
      ioMref:
        (
          db.prepare("SELECT mref AS ref FROM metadata_fragments WHERE entity_ref = ?").get(io) as
            | { ref: string }
            | undefined
        )?.ref ?? UNKNOWN_UUID,
      event: one("SELECT ref FROM events ORDER BY id LIMIT 1"),
      now: String(Math.floor(Date.now() / 1000)),
      continuation: String(((await twofactor.json()) as { continuationToken?: string }).continuationToken),
    };
    // The SO fragment's route needs its own folder.
    fx.so = one(`SELECT entity_ref AS ref FROM metadata_fragments WHERE mref = '${fx.soMref}'`);
    await makeWriteFixtures();
    for (const m of CASE_MODULES) {
      Object.assign(fx, await m.fixtures?.({ url: repo.url, token: fx.token as string, svc: repo.svc }));
    }
    // The search index reads files' words (PDFs too) at the first text search: a derived index, brought up
    // to date here so that junk requests that search are not taken for writes.
    await ensureFileText(repo.svc.db, repo.svc.content);
    before = storedState();
    errorLog = vi.spyOn(console, "error");
  });
  afterAll(async () => {
    errorLog?.mockRestore();
    await repo?.close();
  });

  it(`has a table of ${TABLE.length} cases`, () => {
    expect(TABLE.length).toBeGreaterThan(2500);
  });

  it.each(TABLE.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const logged = errorLog.mock.calls.length;
    const state = writeState();
    const r = await send(c);
    if (!c.knownDefect) checkReply(c.name, c.method ?? "GET", r, fill(c.path));
    checkOperationsReply(c, r);
    if (c.expect)
      expect(c.expect, `${c.name}: got ${r.status} ${r.body.toString("utf8").slice(0, 200)}`).toContain(
        r.status,
      );
    if (c.message) expect(errorMessage(r, fill(c.path)), c.name).toMatch(c.message);
    await stillServing(c.name, logged);
    expect(writeState(), `${c.name} changed the store`).toBe(state);
  });

  it.fails(`known defect: ${S3_OVERSIZED_COMPLETION.name} is ${S3_OVERSIZED_COMPLETION.knownDefect}`, async () => {
    const c = S3_OVERSIZED_COMPLETION;
    checkReply(c.name, "POST", await send(c), fill(c.path));
  });

  it.each(RAW_WRITES)("raw write: %s", async (name, text, statuses, message) => {
    const logged = errorLog.mock.calls.length;
    const state = writeState();
    // "Never a hang": whatever the lie, the service answers or closes within 3 s.
    // A shorter length is a whole request to the server: it answers before the client goes.
    const r = await sendRaw(text, 3000, name.endsWith("shorter"));
    const answer = r.body.toString("utf8");
    expect(statuses, `${name}: got ${r.status} ${answer.slice(0, 200)}`).toContain(r.status);
    checkReply(name, "POST", r);
    if (message) expect(answer, name).toMatch(message);
    await stillServing(name, logged);
    expect(writeState(), `${name} changed the store`).toBe(state);
  });

  it("sends junk to every route the app serves", () => {
    // Each request the tables send, as method (HEAD counts for GET) and path without the query.
    const sent = [
      ...TABLE.map((c) => ({ method: c.method ?? "GET", path: fill(c.path) })),
      ...[...RAW_REQUESTS, ...RAW_WRITES].flatMap(([, text]) => {
        const m = /^(\S+) (\S+) HTTP/.exec(fill(text));
        return m ? [{ method: m[1] as string, path: m[2] as string }] : [];
      }),
    ].map((r) => ({ method: r.method === "HEAD" ? "GET" : r.method, path: r.path.split("?")[0] as string }));
    const routes = appRoutes(createApp(repo.svc));
    const reached = (r: { method: string; path: string }) => {
      const re = patternRegex(r.path);
      return sent.some((s) => s.method === r.method && re.test(s.path));
    };
    // The Entity API is one sub-app mounted twice, at /api/entity and at /api/entity/vX.Y (entity.ts):
    // every versioned route runs the very handler of its unversioned twin. So every unversioned route
    // must be reached, and of the versioned ones enough to show the versioned mount serves each method
    // (a handler's junk is not repeated per version): at least one route per method, and at least
    // MIN_VERSIONED routes in all.
    const MIN_VERSIONED = 30;
    const isVersioned = (r: { path: string }) => r.path.startsWith("/api/entity/:version{");
    const missing = routes.filter((r) => !isVersioned(r) && !reached(r)).map((r) => `${r.method} ${r.path}`);
    expect(missing, "routes that no junk case reaches: add cases for them").toEqual([]);
    const versioned = routes.filter(isVersioned);
    const versionedReached = versioned.filter(reached);
    expect(versionedReached.length, "versioned routes reached").toBeGreaterThanOrEqual(MIN_VERSIONED);
    const methods = [...new Set(versioned.map((r) => r.method))];
    const unreachedMethods = methods.filter((m) => !versionedReached.some((r) => r.method === m));
    expect(unreachedMethods, "methods no versioned case uses").toEqual([]);
  });

  it.each(RAW_REQUESTS)("raw request: %s", async (name, text, status) => {
    const logged = errorLog.mock.calls.length;
    const r = await sendRaw(text);
    checkReply(name, "GET", r);
    expect(r.status, name).toBe(status);
    await stillServing(name, logged);
  });

  it("answers 300 random q strings with 200, or 400 for broken JSON (seed 20240601)", async () => {
    const logged = errorLog.mock.calls.length;
    const rnd = prng(20240601);
    const atoms = [
      '"',
      "*",
      "(",
      ")",
      ":",
      "^",
      "NEAR",
      "AND",
      "OR",
      "NOT",
      "-",
      "%",
      "{",
      "}",
      "[",
      "]",
      "\\",
      "'",
      " ",
      "  ",
      "maps",
      "charts",
      "é",
      "\u0000",
      "\u0007",
      "\t",
      "\n",
      "xip.title:",
      "id:",
      "oai_dc.subject:",
      ",",
      "+",
      "&",
      "=",
      "#",
      "?",
      "🗺",
    ];
    for (let i = 0; i < 300; i++) {
      let q = "";
      for (let n = rnd.int(1, 12); n > 0; n--) q += rnd.pick(atoms);
      const listing = rnd.pick(["/search", "/top-level-list", "/search-within?parenthierarchy={so}"]);
      const r = await send({
        name: `random q #${i}`,
        method: "POST",
        path: C + listing,
        headers: FORM,
        body: new URLSearchParams({ q }).toString(),
      });
      checkReply(`random q #${i} ${JSON.stringify(q)}`, "POST", r);
      const allowed = q.trim().startsWith("{") ? [200, 400] : [200];
      expect(
        allowed,
        `random q #${i} ${JSON.stringify(q)}: ${r.body.toString("utf8").slice(0, 200)}`,
      ).toContain(r.status);
    }
    await stillServing("the loop", logged);
  });

  it("reads 200 random start/max values exactly as documented (seed 7)", async () => {
    const logged = errorLog.mock.calls.length;
    const rnd = prng(7);
    const atoms = ["0", "1", "9", "-", "+", "%2B", ".", "e", "%20", "x", "%00", "99999999"];
    for (let i = 0; i < 200; i++) {
      let v = "";
      for (let n = rnd.int(1, 5); n > 0; n--) v += rnd.pick(atoms);
      const p = rnd.pick(["start", "max"]);
      // Empty means the default; otherwise digits (surrounding blanks forgiven), or max=-1 for "all".
      const raw = new URLSearchParams(`v=${v}`).get("v") ?? "";
      const decoded = raw.trim();
      const valid =
        raw === "" ||
        (/^\d+$/.test(decoded) && Number.isSafeInteger(Number(decoded))) ||
        (p === "max" && decoded === "-1");
      const path = rnd.pick([`${E}/root/children`, `${C}/search`, `${E}/events`]);
      const r = await send({ name: `random ${p}=${v}`, path: `${path}?${p}=${v}` });
      checkReply(`random ${p}=${v}`, "GET", r);
      expect(r.status, `${path}?${p}=${v}`).toBe(valid ? 200 : 400);
    }
    await stillServing("the loop", logged);
  });

  it("answers 150 random Range headers with a consistent 200, 206 or 416 (seed 99)", async () => {
    const logged = errorLog.mock.calls.length;
    const rnd = prng(99);
    const atoms = ["bytes", "=", "-", ",", " ", "0", "1", "5", "100", "99999999999", "x", "e"];
    const { size } = repo.svc.db
      .prepare(
        "SELECT b.size FROM bitstreams b JOIN generations g ON g.id = b.generation_id WHERE g.co_ref = ? AND g.idx = 1 AND b.idx = 1",
      )
      .get(fx.co) as { size: number };
    for (let i = 0; i < 150; i++) {
      let range = "";
      for (let n = rnd.int(1, 6); n > 0; n--) range += rnd.pick(atoms);
      if (rnd.next() < 0.5) range = `bytes=${range}`;
      const r = await send({
        name: `Range ${range}`,
        path: `${E}/content-objects/{co}/generations/1/bitstreams/1/content`,
        headers: { Range: range },
      });
      checkReply(`Range ${range}`, "GET", r);
      expect([200, 206, 416], range).toContain(r.status);
      if (r.status === 200) expect(r.body.length, range).toBe(size);
      if (r.status === 206) {
        const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(r.headers["content-range"]));
        expect(m, range).not.toBeNull();
        expect(r.body.length, range).toBe(Number(m?.[2]) - Number(m?.[1]) + 1);
        expect(Number(m?.[3])).toBe(size);
      }
      if (r.status === 416) expect(r.headers["content-range"], range).toBe(`bytes */${size}`);
    }
    await stillServing("the loop", logged);
  });

  it("changed nothing stored, and the database is intact", () => {
    expect(storedState()).toEqual(before);
    expect(repo.svc.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
