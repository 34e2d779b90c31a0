#!/usr/bin/env node
// CPU per request of the API layer, against the build in dist/ (npm run build first): what `get_entity`'s one
// GET costs below the tool handler. In one process, interleaved round by round, side by side:
//  - ours: `createServiceClient(session.http).entity.get(ref, "IO", signal)` of an asset, with a signed-in
//    Session (the auth hook on every request) and an AbortSignal, as a tool call passes its deadline's: that is
//    transport, auth hook, body read, XML parse and entity mapping;
//  - bare: undici's Pool.request + body.text() of the same URL with the same token (bench/sdk-floor.mjs's GET,
//    without its regexes): about the least a Node client can spend on that request;
//  - before (with --before DIST): ours again from another build's dist/ (e.g. a copy of main's, with
//    node_modules reachable from it), so a change is measured before/after in one run.
// Each round runs --requests sequential requests per contender (after a warm-up) and takes process.cpuUsage()
// around them: this process's CPU only (the service runs in its own). The median round is reported, in µs per
// request, with the ratio to bare. The machine is shared: compare the ratios of one run, not times across runs;
// and the contenders share one heap, so a wasteful "before" build's garbage is collected in ours' rounds too.
// Usage: node bench/api-request.mjs [--rounds 31 --requests 500 --before /tmp/main-dist]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { startRepository, stop } from "./spawn.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "31" },
    requests: { type: "string", default: "500" },
    before: { type: "string" },
  },
});
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const here = fileURLToPath(new URL("..", import.meta.url));
const cli = join(here, "dist/src/cli.js");
const MANAGER = { username: "manager", password: "manager-demo-pw" };

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Our client from a dist/ directory: a signed-in session and the entity API over its transport. */
async function ours(dist, url, ref) {
  const { Session } = await import(pathToFileURL(join(dist, "src/session/session.js")).href);
  const { createServiceClient } = await import(pathToFileURL(join(dist, "src/api/index.js")).href);
  const session = new Session({ url, ...MANAGER });
  // One signal for every request: a tool call passes its deadline's, whose creation is not the API layer's cost.
  const signal = new AbortController().signal;
  await session.login();
  const api = createServiceClient(session.http);
  return {
    session,
    async once() {
      const e = await api.entity.get(ref, "IO", signal);
      if (e.ref !== ref) throw new Error(`asked for ${ref}, got ${e.ref}`);
    },
    close: () => session.close(),
  };
}

/** undici alone, as bench/sdk-floor.mjs sends the GET. */
function bare(url, token, ref) {
  const base = new URL(url);
  const pool = new Pool(base.origin, { connections: 8, keepAliveTimeout: 10_000 });
  const path = `${base.pathname.replace(/\/$/, "")}/api/entity/information-objects/${ref}`;
  return {
    async once() {
      const res = await pool.request({
        method: "GET",
        path,
        headers: { "Preservica-Access-Token": token, accept: "application/xml" },
      });
      const xml = await res.body.text();
      if (res.statusCode !== 200 || !xml.includes(ref)) throw new Error(`HTTP ${res.statusCode}`);
    },
    close: () => pool.close(),
  };
}

/** µs of this process's CPU per request, over `n` sequential requests. */
async function cpuPerRequest(contender, n) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await contender.once();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

const dataDir = mkdtempSync(join(tmpdir(), "api-request-bench-"));
const repo = await startRepository(cli, ["--data", dataDir, "--seed", "demo"]);
const contenders = [];
try {
  const login = await fetch(`${repo.url}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams(MANAGER),
  });
  const { token } = await login.json();
  // An asset of the demo collection: the first one a search for "journal" finds (as bench/mcp.mjs picks it).
  const found = await fetch(`${repo.url}/api/content/search`, {
    method: "POST",
    headers: { "Preservica-Access-Token": token },
    body: new URLSearchParams({ q: JSON.stringify({ q: "journal" }), start: "0", max: "10" }),
  });
  const ref = (await found.json()).value.objectIds.find((id) => id.startsWith("sdb:IO|")).slice(7);

  contenders.push({ name: "ours", c: await ours(join(here, "dist"), repo.url, ref) });
  contenders.push({ name: "bare undici", c: bare(repo.url, token, ref) });
  if (values.before) {
    const dist = resolve(values.before);
    contenders.push({ name: "ours, before", c: await ours(dist, repo.url, ref) });
  }
  for (const { c } of contenders) await cpuPerRequest(c, Math.max(200, REQUESTS / 2)); // warm-up
  const rounds = contenders.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    // A different contender first each round, so none always runs right after the same one.
    for (let k = 0; k < contenders.length; k++) {
      const i = (r + k) % contenders.length;
      rounds[i].push(await cpuPerRequest(contenders[i].c, REQUESTS));
    }
  }
  // Machines are shared: a busy neighbour shifts whole rounds. Each round's ratio to bare (measured moments
  // apart) is steadier than the ratio of the medians, so both are shown.
  const floor = median(rounds[1]);
  const ratio = (i) => median(rounds[i].map((us, r) => us / rounds[1][r]));
  console.log(
    `CPU per request (this process), median of ${ROUNDS} rounds of ${REQUESTS} sequential GETs of one asset:`,
  );
  contenders.forEach(({ name }, i) => {
    const m = median(rounds[i]);
    const extra =
      i === 1
        ? ""
        : `  +${(m - floor).toFixed(1)} µs; ${ratio(i).toFixed(2)}x bare (median of the rounds' ratios)`;
    console.log(`  ${name.padEnd(14)} ${m.toFixed(1).padStart(7)} µs${extra}`);
  });
  if (values.before) {
    const nowOverThen = median(rounds[0].map((us, r) => us / rounds[2][r]));
    console.log(`  ours now / before: ${nowOverThen.toFixed(3)} (median of the rounds' ratios)`);
  }
} finally {
  await Promise.allSettled(contenders.map(({ c }) => c.close()));
  await stop(repo.child);
  rmSync(dataDir, { recursive: true, force: true });
}
