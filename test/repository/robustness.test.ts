import { createHash } from "node:crypto";
import { type IncomingHttpHeaders, request } from "node:http";
import { connect } from "node:net";
import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { login, startTestRepository } from "../helpers/repository.js";

/**
 * Junk at every route of the repository service. Whatever arrives, the answer is below 500, an error is
 * JSON `{success:false, message}` without stack frames or file paths, XML replies stay well-formed, the
 * service still answers a normal request afterwards, and nothing stored changes.
 *
 * Cases are generated from tables: routes (from repository/routes/*.ts and app.ts) crossed with junk
 * values. Paths, header values and bodies may hold placeholders ({so}, {io}, {co}, {token} …) that are
 * filled from the demo collection once it is running. Requests go through node:http, which sends the
 * path exactly as written (fetch would normalise `..` and re-encode).
 */

interface Fixtures {
  token: string;
  so: string;
  io: string;
  co: string;
  soMref: string;
  ioMref: string;
  event: string;
  /** Unix seconds, for the external-auth timestamp. */
  now: string;
  /** A pending 2FA continuation token of the `twofactor` user. */
  continuation: string;
}

type Body = string | Buffer | { chunks: Buffer[] };

interface Case {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Body;
  /** Send the manager's token (default true). */
  auth?: boolean;
  /** Allowed statuses; any status below 500 when absent. */
  expect?: number[];
  /** What the error message must say (for the cases a fix was made for). */
  message?: RegExp;
}

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
  return text.replace(
    /\{(token|so|io|co|soMref|ioMref|event|now|continuation)\}/g,
    (_, k: keyof Fixtures) => fx[k],
  );
}

function send(c: Case): Promise<Reply> {
  const url = new URL(repo.url);
  const headers: Record<string, string> = {};
  if (c.auth !== false) headers["Preservica-Access-Token"] = fx.token;
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
    else if (typeof body === "string") req.end(fill(body));
    else if (Buffer.isBuffer(body)) req.end(body);
    else {
      for (const chunk of body.chunks) req.write(chunk);
      req.end();
    }
  });
}

/** Bytes straight onto a socket, for requests no HTTP client would send. */
function sendRaw(text: string): Promise<Reply> {
  const url = new URL(repo.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer within 10 s")));
    socket.on("data", (d) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf("\r\n\r\n");
      const head = raw.subarray(0, split < 0 ? raw.length : split).toString("latin1");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const headers: IncomingHttpHeaders = {};
      for (const line of head.split("\r\n").slice(1)) {
        const i = line.indexOf(":");
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status, headers, body: split < 0 ? Buffer.alloc(0) : raw.subarray(split + 4) });
    });
    socket.end(fill(text));
  });
}

const STACK_FRAME = /\n\s+at |\bat (?:async )?[\w.<>[\]]+ \(|\.(?:ts|js|mjs|cjs):\d+/;
/** A server-side file path: an absolute path starting a word (URL paths follow a host), or a tell-tale name. */
const FILE_PATH =
  /(?:^|[\s"'(=])\/(?:work|tmp|home|usr|var|opt|private|root)\/|node_modules|preservation-repo-|[A-Za-z]:\\/;

function checkReply(name: string, method: string, r: Reply): void {
  const where = `${name} → ${r.status} ${r.body.toString("utf8").slice(0, 300)}`;
  expect(r.status, where).toBeGreaterThanOrEqual(200);
  expect(r.status, where).toBeLessThan(500);
  const type = String(r.headers["content-type"] ?? "");
  const readable = r.status >= 400 || /json|xml/.test(type);
  if (!readable) return; // a stored file's bytes
  const text = r.body.toString("utf8");
  expect(text, where).not.toMatch(STACK_FRAME);
  expect(text, where).not.toMatch(FILE_PATH);
  if (r.status >= 400) {
    expect(type, where).toMatch(/^application\/json/);
    if (method === "HEAD") return;
    const body = JSON.parse(text) as { success?: unknown; message?: unknown };
    expect(body.success, where).toBe(false);
    expect(typeof body.message, where).toBe("string");
    expect(String(body.message).length, where).toBeGreaterThan(10);
  } else if (method !== "HEAD" && /xml/.test(type)) {
    expect(XMLValidator.validate(text), where).toBe(true);
  } else if (method !== "HEAD" && /json/.test(type)) {
    expect(() => JSON.parse(text), where).not.toThrow();
  }
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
        // `%2e%2e` is a dot segment: the URL resolves it away, so the path names no route (404).
        const expectStatus = bad === "%2e%2e" ? [404] : [400];
        cases.push({ name: `${ref}=${bad.slice(0, 24)} in ${r.path}`, path, expect: expectStatus });
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
  for (const [i, p] of READ_PATHS.entries()) {
    // One odd method per route, in turn; the 405 (naming the methods the path takes) comes from the one
    // notFound handler.
    for (const method of [["PUT", "DELETE", "PATCH", "OPTIONS"][i % 4] as string]) {
      cases.push({
        name: `${method} ${p}`,
        method,
        path: p,
        headers: FORM,
        body: method === "PUT" ? "a=1" : undefined,
        expect: [405],
        message: /use GET/,
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
    "/api/entity/information-objects",
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
];

/** Everything stored that no read or failed login may change. */
function storedState(): string {
  const { db } = repo.svc;
  const tables = [
    "entities",
    "metadata_fragments",
    "identifiers",
    "links",
    "representations",
    "representation_objects",
    "generations",
    "bitstreams",
    "fixities",
    "events",
    "event_actions",
    "security_tags",
    "tag_permissions",
  ];
  const hash = createHash("sha256");
  for (const t of tables) hash.update(JSON.stringify(db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()));
  hash.update(
    JSON.stringify(
      db.prepare("SELECT username, password_hash, roles, enabled FROM users ORDER BY username").all(),
    ),
  );
  return hash.digest("hex");
}

describe("the repository service answers junk with a clear 4xx", () => {
  let before: string;
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
    before = storedState();
    errorLog = vi.spyOn(console, "error");
  });
  afterAll(async () => {
    errorLog?.mockRestore();
    await repo?.close();
  });

  it(`has a table of ${TABLE.length} cases`, () => {
    expect(TABLE.length).toBeGreaterThan(1000);
  });

  it.each(TABLE.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const logged = errorLog.mock.calls.length;
    const r = await send(c);
    checkReply(c.name, c.method ?? "GET", r);
    if (c.expect)
      expect(c.expect, `${c.name}: got ${r.status} ${r.body.toString("utf8").slice(0, 200)}`).toContain(
        r.status,
      );
    if (c.message) expect(JSON.parse(r.body.toString("utf8")).message, c.name).toMatch(c.message);
    await stillServing(c.name, logged);
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
    expect(storedState()).toBe(before);
    expect(repo.svc.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
