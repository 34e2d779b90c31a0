#!/usr/bin/env node
// Our own CPU per tool call, in one process: `get_entity` on our server (one or more builds, e.g. before and
// after a change) against the SDK floor (the SDK alone wrapping the same GET, as bench/sdk-floor.mjs), each
// behind serveStdio over an in-memory transport pair, so no pipes or process switches blur the figure.
// Contenders take turns, round by round in a rotating order, and each figure is the median of the rounds:
// the machine is shared, so only figures from one run are compared.
// Usage: node bench/boundary.mjs [DIST ...]   (default: dist; each DIST is a build's output directory, with
//        node_modules reachable from it)
// Env: N calls per round (2000), ROUNDS (7), ONLY=name prefix (e.g. "ours" to profile ours alone).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { startRepository, stop } from "./spawn.mjs";

const dists = (process.argv.length > 2 ? process.argv.slice(2) : ["dist"]).map((d) => resolve(d));
const N = Number(process.env.N ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" } } };
const USER = { username: "manager", password: "manager-demo-pw" };

const repoDir = mkdtempSync(join(tmpdir(), "boundary-repo-"));
const repo = await startRepository(join(dists[0], "src/cli.js"), ["--seed", "demo", "--data", repoDir]);
// However this script ends (a contender's error included), the service it started goes with it.
process.on("exit", () => repo.child.kill());
const base = repo.url;
const login = await fetch(`${base}/api/accesstoken/login`, {
  method: "POST",
  body: new URLSearchParams(USER),
});
const { token } = await login.json();
const search = await fetch(`${base}/api/content/search`, {
  method: "POST",
  headers: { "Preservica-Access-Token": token },
  body: new URLSearchParams({
    q: JSON.stringify({ q: "journal" }),
    start: "0",
    max: "10",
    metadata: "xip.reference",
  }),
});
const assetRef = JSON.parse(await search.text())
  .value.objectIds.find((id) => id.startsWith("sdb:IO|"))
  .slice(7);

async function connect(factory) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serveStdio(factory, { transport: serverSide });
  const client = new Client({ name: "boundary-bench", version: "1" }, MODERN);
  await client.connect(clientSide);
  return client;
}

/** Our server from one build, signed in as the bench's user, logging nothing. */
async function ours(dist) {
  const load = (path) => import(pathToFileURL(join(dist, "src", path)).href);
  const { loadConfig } = await load("config.js");
  const { audienceFrom } = await load("guards/visibility.js");
  const { createLogger } = await load("log.js");
  const { buildServer } = await load("server/server.js");
  const { Session } = await load("session/session.js");
  const env = {
    PRESERVATION_URL: base,
    PRESERVATION_USERNAME: USER.username,
    PRESERVATION_PASSWORD: USER.password,
    PRESERVATION_HTTP_RATE: "off",
  };
  const config = loadConfig([], env);
  const log = createLogger({ level: "silent" });
  const session = new Session({ url: base, ...USER, logger: log });
  await session.login();
  const roles = (await session.whoAmI()).roles;
  const deps = { config, session, log, audience: audienceFrom(config, roles) };
  const client = await connect(() => buildServer(deps));
  const args = { ref: assetRef, type: "asset", include: [] };
  return {
    call: () => client.callTool({ name: "get_entity", arguments: args }),
    close: async () => {
      await client.close();
      await session.close?.();
    },
  };
}

/** The SDK floor (bench/sdk-floor.mjs): the same GET and an answer of the same size, without an XML parser. */
async function floor() {
  process.env.FLOOR_URL = base;
  process.env.FLOOR_TOKEN = token;
  const { build } = await import("./sdk-floor.mjs");
  const client = await connect(build);
  return {
    call: () => client.callTool({ name: "get_raw", arguments: { ref: assetRef } }),
    close: () => client.close(),
  };
}

const contenders = [];
for (const [i, dist] of dists.entries())
  contenders.push({ name: `ours#${i + 1}`, dist, ...(await ours(dist)) });
contenders.push({ name: "floor", ...(await floor()) });
const only = process.env.ONLY;
const running = only ? contenders.filter((c) => c.name.startsWith(only)) : contenders;

for (const c of running) {
  const first = await c.call();
  if (first.isError) throw new Error(`${c.name}: ${JSON.stringify(first)}`);
  for (let i = 0; i < 1000; i++) await c.call();
  c.cpu = [];
  c.wall = [];
}
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < running.length; j++) {
    const c = running[(r + j) % running.length];
    const u0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await c.call();
    const u = process.cpuUsage(u0);
    c.wall.push((performance.now() - t0) / N);
    c.cpu.push((u.user + u.system) / 1000 / N);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => x.toFixed(3);
const floorRun = running.find((c) => c.name === "floor");
console.log(`${N} calls x ${ROUNDS} rounds; CPU (client and server, one process) and wall per call, medians`);
for (const c of running) {
  // Each round's difference from the floor's in the same round: the load of the moment cancels out.
  const over =
    floorRun === undefined || c === floorRun
      ? ""
      : `  ours - floor ${ms(median(c.cpu.map((x, r) => x - floorRun.cpu[r])))} ms`;
  console.log(
    `${c.name.padEnd(7)} cpu ${ms(median(c.cpu))} ms  wall ${ms(median(c.wall))} ms${over}  ${c.dist ?? ""}\n        rounds ${c.cpu.map(ms).join(" ")}`,
  );
}
for (const c of contenders) await c.close();
await stop(repo.child);
rmSync(repoDir, { recursive: true, force: true });
process.exit(0);
