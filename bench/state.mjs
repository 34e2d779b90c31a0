#!/usr/bin/env node
// Shared state benchmark (issue 18 §2): the latency a shared Valkey/Redis store adds to a confirmed write.
// Two MCP servers over Streamable HTTP, the same build and the same repository service, one keeping its state
// in-process and one in a redis-server on loopback (PRESERVATION_STATE_URL); in one loop, alternating which
// goes first, each previews `update_metadata` of its own asset's description and then confirms it. The
// confirmed call is what is timed: it leases the target, plans again, re-checks, spends the token, writes,
// records the audit entry and releases the lease (with the store: a few round trips to it). Prints p50 and
// p95 of each, what the store adds, and the ratio.
// Reads the built output: run `npm run build` first. Needs `redis-server` on PATH (Debian's package).
// Usage: node bench/state.mjs [--writes 200]
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { spawnUntil, stop } from "./spawn.mjs";

const { values } = parseArgs({ options: { writes: { type: "string", default: "200" } } });
const WRITES = Number(values.writes);
const cli = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
const dist = new URL("../dist/repository/", import.meta.url);
const { startRepository } = await import(new URL("server.js", dist).href);
const { insertEntity, addFragment } = await import(new URL("store/entities/write.js", dist).href);

const DC = "http://www.openarchives.org/OAI/2.0/oai_dc/";
const dcDoc = (description) =>
  `<oai_dc:dc xmlns:oai_dc="${DC}" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Bench</dc:title><dc:description>${description}</dc:description></oai_dc:dc>`;

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (n) => `${n.toFixed(2)} ms`;

const repo = await startRepository({ port: 0, host: "127.0.0.1", seed: "none" });
const redisPort = await freePort();
const redis = await spawnUntil(
  "redis-server",
  ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
  process.env,
  "stdout",
  /(Ready to accept connections)/,
);
const base = {
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "",
  PRESERVATION_URL: repo.url,
  PRESERVATION_USERNAME: "manager",
  PRESERVATION_PASSWORD: "manager-demo-pw",
  PRESERVATION_HTTP_RATE: "off",
  PRESERVATION_LOG_LEVEL: "warn",
  PRESERVATION_CONFIRM_KEY: "bench-state-confirm-key-0123456789abcdef",
};
const modes = {
  "in-process": base,
  "Valkey/Redis": { ...base, PRESERVATION_STATE_URL: `redis://127.0.0.1:${redisPort}` },
};
const servers = {};
const clients = {};
const assets = {};
try {
  for (const [name, env] of Object.entries(modes)) {
    const started = await spawnUntil(
      process.execPath,
      [cli, "--http", "--port", "0"],
      env,
      "stderr",
      /listening on (http:\/\/\S+\/mcp)/,
    );
    servers[name] = started.child;
    const client = new Client(
      { name: "bench-state", version: "1" },
      { versionNegotiation: { mode: "auto" } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(started.match)));
    clients[name] = client;
    const folder = insertEntity(repo.svc.db, { type: "SO", title: `Bench ${name}`, securityTag: "open" });
    const item = insertEntity(repo.svc.db, {
      type: "IO",
      title: `Asset ${name}`,
      securityTag: "open",
      parentRef: folder.ref,
    });
    addFragment(repo.svc.db, item.ref, DC, dcDoc("start"));
    assets[name] = item.ref;
  }

  async function confirmedWrite(name, i) {
    const client = clients[name];
    const args = { ref: assets[name], fields: { description: `value ${i}` } };
    const preview = await client.callTool({ name: "update_metadata", arguments: args });
    const token = preview.structuredContent?.confirmationRequired?.token;
    if (!token) throw new Error(`${name}: no confirmation token: ${JSON.stringify(preview.content)}`);
    const t0 = performance.now();
    const done = await client.callTool({
      name: "update_metadata",
      arguments: { ...args, confirmation: token },
    });
    const elapsed = performance.now() - t0;
    if (done.isError) throw new Error(`${name}: ${done.content?.[0]?.text}`);
    return elapsed;
  }

  const names = Object.keys(modes);
  // Warm-up: connections, code paths, the session's first requests.
  for (let i = 0; i < 10; i++) for (const n of names) await confirmedWrite(n, -i - 1);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < WRITES; i++) {
    const order = i % 2 ? [...names].reverse() : names;
    for (const n of order) times[n].push(await confirmedWrite(n, i));
  }

  const [local, shared] = names.map((n) => times[n]);
  const p = (xs) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95) });
  const l = p(local);
  const s = p(shared);
  console.log(
    `confirmed update_metadata, ${WRITES} each, interleaved (load ${loadavg()[0].toFixed(1)}, redis-server on loopback):`,
  );
  console.log(`  in-process state   p50 ${ms(l.p50)}  p95 ${ms(l.p95)}`);
  console.log(`  Valkey/Redis state p50 ${ms(s.p50)}  p95 ${ms(s.p95)}`);
  console.log(
    `  added by the shared store: p50 +${ms(s.p50 - l.p50)} (${(s.p50 / l.p50).toFixed(2)}x), p95 +${ms(s.p95 - l.p95)} (${(s.p95 / l.p95).toFixed(2)}x)`,
  );

  // The guard's own steps alone, in this process (steadier than the whole call on a busy machine): lease the
  // target, spend the token, append the audit entry, release.
  const { MemoryState } = await import(new URL("../dist/src/state/memory.js", import.meta.url).href);
  const { RedisState } = await import(new URL("../dist/src/state/redis.js", import.meta.url).href);
  const steps = async (state, i) => {
    const t0 = performance.now();
    const lease = await state.lease(`target:bench-${i % 7}`, 60_000);
    await state.spendOnce(`confirm:bench-${i}`, 60_000);
    await state.appendAudit({
      id: crypto.randomUUID(),
      time: new Date().toISOString(),
      user: "manager",
      tool: "update_metadata",
      targets: [{ ref: `bench-${i % 7}`, title: "Bench" }],
      argsDigest: "sha256:bench",
      outcome: "done",
    });
    await lease?.release();
    return performance.now() - t0;
  };
  const stores = {
    "in-process": new MemoryState(),
    "Valkey/Redis": await RedisState.open({
      url: modes["Valkey/Redis"].PRESERVATION_STATE_URL,
      prefix: "bench:",
    }),
  };
  const stepTimes = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < 50; i++) for (const n of names) await steps(stores[n], -i - 1);
  for (let i = 0; i < WRITES * 5; i++) for (const n of names) stepTimes[n].push(await steps(stores[n], i));
  for (const st of Object.values(stores)) await st.close();
  const gl = p(stepTimes["in-process"]);
  const gs = p(stepTimes["Valkey/Redis"]);
  console.log(`the guard's steps alone (lease, spend, audit, release), ${WRITES * 5} each:`);
  console.log(
    `  in-process p50 ${ms(gl.p50)} p95 ${ms(gl.p95)}; Valkey/Redis p50 ${ms(gs.p50)} p95 ${ms(gs.p95)}`,
  );
} finally {
  for (const c of Object.values(clients)) await c.close().catch(() => {});
  for (const child of Object.values(servers)) await stop(child);
  await stop(redis.child);
  await repo.close();
}
