#!/usr/bin/env node
// Ingest benchmark of the repository service: a 1 GiB package of a few large files and a package of
// 10,000 small files (in 100 folders), each generated in a temporary directory and POSTed to a folder
// (POST /api/entity/structural-objects/{ref}) of a service started as its own process. Prints the
// upload and ingest throughput (MB/s), the 10,000-file ingest time, and the service's peak resident
// memory (VmHWM from /proc/<pid>/status; a fresh service per package) against the 150 MiB target.
// Reads the built output: run `npm run build` first (npm run bench:ingest does).
// Usage: node bench/ingest.mjs [--size-mib 1024 --large-files 4 --files 10000 --compress]
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import yazl from "yazl";
import { startRepository } from "./spawn.mjs";

const { values } = parseArgs({
  options: {
    "size-mib": { type: "string", default: "1024" },
    "large-files": { type: "string", default: "4" },
    files: { type: "string", default: "10000" },
    // Deflate the large files too (slower to generate; the default stores them, as bulk media is).
    compress: { type: "boolean", default: false },
  },
});
const SIZE = Number(values["size-mib"]) * 1024 * 1024;
const LARGE = Number(values["large-files"]);
const SMALL = Number(values.files);
const MiB = 1024 * 1024;
const TARGET_RSS_MIB = 150;
const cli = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
const dist = new URL("../dist/repository/", import.meta.url);
const { openDatabase } = await import(new URL("store/db.js", dist).href);
const { insertEntity } = await import(new URL("store/entities/write.js", dist).href);

const work = mkdtempSync(join(tmpdir(), "ingest-bench-"));
const fmt = (n, d = 1) => n.toFixed(d);

/** `bytes` of pseudo-random data (a random 1 MiB block, varied per MiB so no two blocks are equal). */
function randomStream(bytes, seed) {
  const block = randomBytes(MiB);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return this.push(null);
      const n = Math.min(MiB, bytes - sent);
      const chunk = Buffer.from(block.subarray(0, n));
      chunk.writeUInt32LE(seed, 0);
      chunk.writeUInt32LE(sent / MiB, 4);
      sent += n;
      this.push(chunk);
    },
  });
}

async function writeZip(path, add) {
  const zip = new yazl.ZipFile();
  const done = pipeline(zip.outputStream, createWriteStream(path));
  add(zip);
  zip.end();
  await done;
  return statSync(path).size;
}

// The packages.
let t = performance.now();
const largePath = join(work, "large.zip");
const largeSize = await writeZip(largePath, (zip) => {
  for (let i = 0; i < LARGE; i++) {
    const size = Math.floor(SIZE / LARGE);
    zip.addReadStream(randomStream(size, i), `Films/reel-${i + 1}.mov`, { size, compress: values.compress });
  }
});
console.log(
  `generated ${LARGE} files in a ${fmt(largeSize / MiB, 0)} MiB package in ${fmt((performance.now() - t) / 1000)} s`,
);
t = performance.now();
const smallPath = join(work, "small.zip");
const smallSize = await writeZip(smallPath, (zip) => {
  for (let i = 0; i < SMALL; i++) {
    const text = `Catalogue card ${i}\n${"Harbour Town Archives, box ".repeat(20 + (i % 80))}${i}\n`;
    zip.addBuffer(
      Buffer.from(text),
      `Cards/Drawer ${String(Math.floor(i / 100)).padStart(3, "0")}/card-${i}.txt`,
    );
  }
});
console.log(
  `generated ${SMALL.toLocaleString("en")} files in a ${fmt(smallSize / MiB, 1)} MiB package in ${fmt((performance.now() - t) / 1000)} s`,
);

/** Starts a fresh service (its own data directory, one folder) as a separate process. */
async function startService(name) {
  const dataDir = join(work, `data-${name}`);
  const db = openDatabase(dataDir);
  const folder = insertEntity(db, { type: "SO", title: "Bench deposits", securityTag: "open" }).ref;
  db.close();
  const { child, url } = await startRepository(cli, ["--data", dataDir, "--seed", "none"]);
  const login = await fetch(`${url}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams({ username: "manager", password: "manager-demo-pw" }),
  });
  const token = (await login.json()).token;
  const kib = (field) =>
    Number(
      new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1],
    );
  const stop = () =>
    new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
  return { url, token, folder, kib, stop };
}

/**
 * Ingests one package into a fresh service and reports: upload and ingest times, MB/s, and the
 * service's peak resident memory over its whole life (VmHWM: start-up, upload and ingest).
 */
async function ingest(label, path, size) {
  const svc = await startService(label.replace(/\W+/g, "-"));
  const idle = svc.kib("VmRSS") / 1024;
  const t0 = performance.now();
  const res = await fetch(`${svc.url}/api/entity/structural-objects/${svc.folder}`, {
    method: "POST",
    headers: {
      "Preservica-Access-Token": svc.token,
      "Content-Type": "application/zip",
      "Content-Length": String(size),
      Filename: `${label}.zip`,
    },
    body: Readable.toWeb(createReadStream(path)),
    duplex: "half",
  });
  const id = (await res.text()).trim();
  if (res.status !== 202) throw new Error(`upload of ${label}: ${res.status} ${id}`);
  const uploaded = performance.now();
  let state = "ACTIVE";
  let body = "";
  while (state === "ACTIVE") {
    await new Promise((r) => setTimeout(r, 20));
    body = await (
      await fetch(`${svc.url}/api/entity/progress/${id}`, {
        headers: { "Preservica-Access-Token": svc.token },
      })
    ).text();
    state = /<Status>([A-Z_]+)<\/Status>/.exec(body)?.[1];
  }
  const ended = performance.now();
  if (state !== "COMPLETED") throw new Error(`ingest of ${label} ended ${state}: ${body}`);
  const peak = svc.kib("VmHWM") / 1024;
  await svc.stop();
  const upSec = (uploaded - t0) / 1000;
  const inSec = (ended - uploaded) / 1000;
  return { upSec, inSec, peak, idle };
}

const rssLine = (r) =>
  `service RSS idle ${fmt(r.idle, 0)} MiB, peak ${fmt(r.peak, 0)} MiB (target < ${TARGET_RSS_MIB} MiB: ${r.peak < TARGET_RSS_MIB ? "met" : "NOT met"})`;

const large = await ingest(`${fmt(largeSize / MiB, 0)} MiB package`, largePath, largeSize);
console.log(
  `${fmt(largeSize / MiB, 0)} MiB package of ${LARGE} files: upload ${fmt(large.upSec)} s (${fmt(largeSize / MiB / large.upSec, 0)} MB/s), ` +
    `ingest ${fmt(large.inSec)} s (${fmt(largeSize / MiB / large.inSec, 0)} MB/s), end to end ${fmt(largeSize / MiB / (large.upSec + large.inSec), 0)} MB/s; ${rssLine(large)}`,
);
const small = await ingest(`${SMALL}-file package`, smallPath, smallSize);
const total = small.upSec + small.inSec;
console.log(
  `${SMALL.toLocaleString("en")}-file package (${fmt(smallSize / MiB, 1)} MiB): ingested in ${fmt(total)} s, upload included ` +
    `(${fmt(small.inSec)} s after the upload; ${fmt(SMALL / total, 0)} files/s); ${rssLine(small)}`,
);

rmSync(work, { recursive: true, force: true });
