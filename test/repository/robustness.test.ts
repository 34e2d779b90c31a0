import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../repository/app.js";
import { appRoutes, patternRegex } from "../../repository/http/allowed-methods.js";
import { fill, send, sendRaw } from "./robustness-cases/client.js";
import { type Harness, runCase, runRawWrite, startHarness } from "./robustness-cases/harness.js";
import { AREAS } from "./robustness-cases/index.js";
import { randomPaging, randomQueries, randomRanges } from "./robustness-cases/properties.js";
import { checkReply } from "./robustness-cases/reply-checks.js";
import { storedState } from "./robustness-cases/stored-state.js";

/**
 * Junk at every route of the repository service, reads and writes. Whatever arrives, the answer is
 * below 500, an error is JSON `{success:false, message}` without stack frames or file paths (and without
 * megabytes of the junk echoed back), XML replies stay well-formed, the service still answers a normal
 * request afterwards, logs no internal error, and nothing stored changes: the write-side tables are
 * compared after every case, and every table and the content store at the end.
 *
 * The cases are tables, one file per API area (robustness-cases/<area>.cases.ts, listed in index.ts):
 * routes crossed with junk values of each shape (junk.ts). Which routes exist comes from the app itself: a
 * route that no case reaches fails the test "sends junk to every route the app serves". Paths, header
 * values and bodies may hold placeholders ({so}, {io}, {co}, {token} …) filled from the demo collection and
 * the fixtures made on it once it runs (fixtures.ts). The manager's token is used throughout: it holds
 * every right, so each refusal is due to the junk, not to a permission. One service serves the whole file.
 */

const MODULES = Object.values(AREAS);
const TABLE = MODULES.flatMap((m) => m.CASES);
const RAW_REQUESTS = MODULES.flatMap((m) => m.RAW_REQUESTS ?? []);
const RAW_WRITES = MODULES.flatMap((m) => m.RAW_WRITES ?? []);
const KNOWN_DEFECTS = MODULES.flatMap((m) => m.KNOWN_DEFECTS ?? []);

describe("the repository service answers junk with a clear 4xx", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(MODULES);
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`has a table of ${TABLE.length} cases`, () => {
    expect(TABLE.length).toBeGreaterThan(2500);
    const files = readdirSync(new URL("./robustness-cases/", import.meta.url))
      .filter((f) => f.endsWith(".cases.ts"))
      .map((f) => f.slice(0, -".cases.ts".length));
    expect(
      files.filter((f) => !(f in AREAS)),
      "case files index.ts does not list",
    ).toEqual([]);
  });

  it.each(TABLE.map((c) => [c.name, c] as const))("%s", (_, c) => runCase(h, MODULES, c));

  for (const c of KNOWN_DEFECTS) {
    it.fails(`known defect: ${c.name} is ${c.knownDefect}`, async () => {
      checkReply(c.name, c.method ?? "GET", await send(c), fill(c.path));
    });
  }

  // "Never a hang": whatever the lie, the service answers or closes within 3 s.
  it.each(RAW_WRITES)("raw write: %s", (name, text, statuses, message) =>
    runRawWrite(h, [name, text, statuses, message]),
  );

  it("sends junk to every route the app serves", () => {
    // Each request the tables send, as method (HEAD counts for GET) and path without the query.
    const sent = [
      ...TABLE.map((c) => ({ method: c.method ?? "GET", path: fill(c.path) })),
      ...[...RAW_REQUESTS, ...RAW_WRITES].flatMap(([, text]) => {
        const m = /^(\S+) (\S+) HTTP/.exec(fill(text));
        return m ? [{ method: m[1] as string, path: m[2] as string }] : [];
      }),
    ].map((r) => ({ method: r.method === "HEAD" ? "GET" : r.method, path: r.path.split("?")[0] as string }));
    const routes = appRoutes(createApp(h.repo.svc));
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
    const logged = h.logged();
    const r = await sendRaw(text);
    checkReply(name, "GET", r);
    expect(r.status, name).toBe(status);
    await h.stillServing(name, logged);
  });

  it("answers 300 random q strings with 200, or 400 for broken JSON (seed 20240601)", () => randomQueries(h));
  it("reads 200 random start/max values exactly as documented (seed 7)", () => randomPaging(h));
  it("answers 150 random Range headers with a consistent 200, 206 or 416 (seed 99)", () => randomRanges(h));

  it("changed nothing stored, and the database is intact", () => {
    expect(storedState(h.repo.svc)).toEqual(h.before);
    expect(h.repo.svc.db.pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
