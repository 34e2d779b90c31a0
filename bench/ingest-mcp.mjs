#!/usr/bin/env node
// Ingest and export through the MCP server against plain HTTP, in the same run, on the same service.
// A repository service and the MCP server (`node dist/src/cli.js`, stdio) run as child processes.
//  - ingest: one local file of BENCH_MIB (default 1024 MiB) through the `ingest` tool (the server zips
//    it on the fly and streams the upload) vs a plain HTTP POST of a zip of the same file, read from disk;
//    time until the service has the package (its 202 with the job handle).
//  - export: the package of an export of the folder holding that file, saved by `job_status` (download,
//    byte count checked, SHA-256 computed) vs a plain HTTP GET of the same package into a file.
// Prints both throughputs, their ratio (target >= 0.9x) and the MCP server's peak RSS (VmHWM; target
// < 120 MiB). Reads the built output: `npm run bench:ingest-mcp` builds first.
// Usage: BENCH_MIB=64 node bench/ingest-mcp.mjs
import { createHash, randomBytes } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import yazl from "yazl";
import { startRepository } from "./spawn.mjs";

const MiB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_MIB ?? "1024") * MiB;
const TARGET_RATIO = 0.9;
const TARGET_RSS_MIB = 120;
const cli = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
const dist = new URL("../dist/repository/", import.meta.url);
const { openDatabase } = await import(new URL("store/db.js", dist).href);
const { insertEntity } = await import(new URL("store/entities/write.js", dist).href);

const work = mkdtempSync(join(tmpdir(), "ingest-mcp-bench-"));
const root = join(work, "root");
const downloads = join(work, "downloads");
mkdirSync(root);
mkdirSync(downloads);
const fmt = (n, d = 1) => n.toFixed(d);
const mbps = (bytes, ms) => bytes / MiB / (ms / 1000);
const procKib = (pid, field) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);

/** `bytes` of pseudo-random data: a random 1 MiB block, varied per MiB so no two blocks are equal. */
function randomStream(bytes) {
  const block = randomBytes(MiB);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return this.push(null);
      const n = Math.min(MiB, bytes - sent);
      const chunk = Buffer.from(block.subarray(0, n));
      chunk.writeUInt32LE(sent / MiB, 0);
      sent += n;
      this.push(chunk);
    },
  });
}

const t = performance.now();
const filePath = join(root, "reel.mov");
await pipeline(randomStream(SIZE), createWriteStream(filePath));
const zipPath = join(root, "reel.zip");
{
  const zip = new yazl.ZipFile();
  zip.addFile(filePath, "reel.mov", { compress: false });
  const done = pipeline(zip.outputStream, createWriteStream(zipPath));
  zip.end();
  await done;
}
const zipSize = statSync(zipPath).size;
console.log(
  `generated a ${fmt(SIZE / MiB, 0)} MiB file and its zip in ${fmt((performance.now() - t) / 1000)} s`,
);

// The repository service, its own process, with two empty folders.
const dataDir = join(work, "data");
const db = openDatabase(dataDir);
const plainFolder = insertEntity(db, { type: "SO", title: "Plain HTTP deposits", securityTag: "open" }).ref;
const mcpFolder = insertEntity(db, { type: "SO", title: "MCP deposits", securityTag: "open" }).ref;
db.close();
const { child: service, url } = await startRepository(cli, ["--data", dataDir, "--seed", "none"]);
const USER = { username: "manager", password: "manager-demo-pw" };
const login = await fetch(`${url}/api/accesstoken/login`, {
  method: "POST",
  body: new URLSearchParams(USER),
});
const token = (await login.json()).token;
const H = { "Preservica-Access-Token": token };

async function waitForAction(id) {
  for (;;) {
    const body = await (await fetch(`${url}/api/entity/progress/${id}`, { headers: H })).text();
    const state = /<Status>([A-Z_]+)<\/Status>/.exec(body)?.[1];
    if (state !== "ACTIVE") {
      if (state !== "COMPLETED") throw new Error(`action ${id} ended ${state}: ${body}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function plainUpload() {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/entity/structural-objects/${plainFolder}`, {
    method: "POST",
    headers: {
      ...H,
      "Content-Type": "application/octet-stream",
      "Content-Length": String(zipSize),
      Filename: "reel.zip",
    },
    body: Readable.toWeb(createReadStream(zipPath, { highWaterMark: MiB })),
    duplex: "half",
  });
  const id = (await res.text()).trim();
  if (res.status !== 202) throw new Error(`plain upload: ${res.status} ${id}`);
  const ms = performance.now() - t0;
  await waitForAction(id);
  return ms;
}

// The MCP server, its own process, over stdio.
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli],
  env: {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    PRESERVATION_URL: url,
    PRESERVATION_USERNAME: USER.username,
    PRESERVATION_PASSWORD: USER.password,
    PRESERVATION_INGEST_ROOTS: root,
    PRESERVATION_DOWNLOAD_DIR: downloads,
    PRESERVATION_LOG_LEVEL: "warn",
    PRESERVATION_DATA_DIR: join(work, "mcp-data"),
  },
  stderr: "inherit",
});
const client = new Client({ name: "ingest-mcp-bench", version: "1.0.0" });
await client.connect(transport);
const mcpPid = transport.pid;
const rssIdle = procKib(mcpPid, "VmRSS") / 1024;
let rssPeakSampled = 0;
const sampler = setInterval(() => {
  try {
    rssPeakSampled = Math.max(rssPeakSampled, procKib(mcpPid, "VmRSS") / 1024);
  } catch {}
}, 20);
const callOpts = { timeout: 3_600_000, resetTimeoutOnProgress: true, onprogress: () => {} };

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args }, undefined, callOpts);
  if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
  return res.structuredContent;
}

async function mcpIngest(path = "reel.mov") {
  const t0 = performance.now();
  const a = await call("ingest", { path, folder: mcpFolder });
  const ms = performance.now() - t0;
  await waitForAction(a.job);
  const s = await call("job_status", { job: a.job });
  if (s.state !== "COMPLETED" || s.created?.[0]?.title !== "reel.mov")
    throw new Error(`ingest ended ${JSON.stringify(s)}`);
  return { ms, bytes: a.bytes, asset: s.created[0].ref };
}

// Alternated, best of two each: the machine has two cores shared by the service, the server and this.
const plainMs = await plainUpload();
const beforeIngest = rssPeakSampled;
const mcp = await mcpIngest();
const ingestPeak = rssPeakSampled;
const plainMs2 = await plainUpload();
const mcp2 = await mcpIngest();
const ready = await mcpIngest("reel.zip");
const plainBest = Math.min(plainMs, plainMs2);
const plainRate = mbps(zipSize, plainBest);
const mcpRate = mbps(mcp.bytes, Math.min(mcp.ms, mcp2.ms));
console.log(
  `ingest upload: plain HTTP ${fmt(plainRate, 0)} MB/s (best of 2: ${fmt(plainMs / 1000, 2)} s, ${fmt(plainMs2 / 1000, 2)} s), ` +
    `MCP tool ${fmt(mcpRate, 0)} MB/s (best of 2: ${fmt(mcp.ms / 1000, 2)} s, ${fmt(mcp2.ms / 1000, 2)} s; zipped on the fly); ratio ${fmt(mcpRate / plainRate, 2)}x ` +
    `(target >= ${TARGET_RATIO}x: ${mcpRate / plainRate >= TARGET_RATIO ? "met" : "NOT met"}); ` +
    `the ready zip (the plain upload's very bytes) through the MCP tool: ${fmt(mbps(ready.bytes, ready.ms), 0)} MB/s (${fmt(ready.ms / 1000, 2)} s, ${fmt(mbps(ready.bytes, ready.ms) / plainRate, 2)}x)`,
);

// Export the asset the first MCP ingest made, then download its package both ways.
const e = await call("export", { ref: mcp.asset });
await waitForAction(e.job);
const exportSize = Number(
  (
    await fetch(`${url}/api/entity/actions/exports/${e.job}/content`, { method: "HEAD", headers: H })
  ).headers.get("content-length"),
);
async function plainDownload() {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/entity/actions/exports/${e.job}/content`, { headers: H });
  const hash = createHash("sha256");
  const target = join(work, `plain-${Date.now()}.zip`);
  const out = createWriteStream(target);
  await pipeline(
    Readable.fromWeb(res.body),
    new Writable({
      write(chunk, _enc, cb) {
        hash.update(chunk);
        out.write(chunk) ? cb() : out.once("drain", cb);
      },
      final(cb) {
        out.end(cb);
      },
    }),
  );
  const ms = performance.now() - t0;
  rmSync(target);
  return { ms, sha256: hash.digest("hex") };
}
async function mcpDownload() {
  const t1 = performance.now();
  const s = await call("job_status", { job: e.job });
  const ms = performance.now() - t1;
  if (s.package?.bytes !== exportSize || s.package.sha256 !== plainDl.sha256) {
    throw new Error(
      `export package differs: ${JSON.stringify(s.package)} vs ${exportSize} ${plainDl.sha256}`,
    );
  }
  rmSync(s.package.path);
  return ms;
}
// Alternated, best of two each: the machine has two cores shared by the service, the server and this.
const plainDl = await plainDownload();
const mcpDl1 = await mcpDownload();
const plainDl2 = await plainDownload();
const mcpDl2 = await mcpDownload();
const mcpDlMs = Math.min(mcpDl1, mcpDl2);
const plainDlBest = Math.min(plainDl.ms, plainDl2.ms);
const dlPlainRate = mbps(exportSize, plainDlBest);
const dlMcpRate = mbps(exportSize, mcpDlMs);
console.log(
  `export download (${fmt(exportSize / MiB, 0)} MiB package, SHA-256 computed by both): plain HTTP ${fmt(dlPlainRate, 0)} MB/s (best of 2), ` +
    `MCP job_status ${fmt(dlMcpRate, 0)} MB/s (best of 2); ratio ${fmt(dlMcpRate / dlPlainRate, 2)}x ` +
    `(target >= ${TARGET_RATIO}x: ${dlMcpRate / dlPlainRate >= TARGET_RATIO ? "met" : "NOT met"})`,
);

clearInterval(sampler);
console.log(
  `MCP server RSS by phase (sampled every 20 ms): before ingest ${fmt(beforeIngest, 0)} MiB, after ingest ${fmt(ingestPeak, 0)} MiB, after export ${fmt(rssPeakSampled, 0)} MiB`,
);
const peak = procKib(mcpPid, "VmHWM") / 1024;
console.log(
  `MCP server RSS: idle ${fmt(rssIdle, 0)} MiB, peak ${fmt(peak, 0)} MiB (VmHWM; sampled ${fmt(rssPeakSampled, 0)} MiB) ` +
    `(target < ${TARGET_RSS_MIB} MiB: ${peak < TARGET_RSS_MIB ? "met" : "NOT met"})`,
);

await client.close();
await new Promise((resolve) => {
  service.once("exit", resolve);
  service.kill("SIGTERM");
});
rmSync(work, { recursive: true, force: true });
