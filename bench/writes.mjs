#!/usr/bin/env node
// Write-side benchmark of the repository service: metadata fragment update rate and identifier add
// rate (the service is one Node process, so one core; this script is the client on the other), and
// the duration of moving a folder whose subtree holds N entities (default 10,000) as a long-running
// action, next to moving a single asset, so the two are measured side by side in one run.
// Reads the built output: run `npm run build` first (npm run bench:writes does).
// Usage: node bench/writes.mjs [--subtree 10000 --seconds 5 --concurrency 8]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { startRepository } from "./spawn.mjs";

const { values } = parseArgs({
  options: {
    subtree: { type: "string", default: "10000" },
    seconds: { type: "string", default: "5" },
    concurrency: { type: "string", default: "8" },
  },
});
const SUBTREE = Number(values.subtree);
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const ASSETS = 1000;
const cli = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
const dist = new URL("../dist/repository/", import.meta.url);
const { openDatabase } = await import(new URL("store/db.js", dist).href);
const { insertEntity, addFragment } = await import(new URL("store/entities/write.js", dist).href);

const DC = "http://www.openarchives.org/OAI/2.0/oai_dc/";
const dcDoc = (title) =>
  `<oai_dc:dc xmlns:oai_dc="${DC}" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title><dc:creator>Bench</dc:creator></oai_dc:dc>`;

// The store: ASSETS assets with one Dublin Core fragment each (for updates and identifiers), and a
// folder holding SUBTREE entities (folders of 100) to move, plus a destination.
const dataDir = mkdtempSync(join(tmpdir(), "writes-bench-"));
const db = openDatabase(dataDir);
const fixtures = db.transaction(() => {
  const work = insertEntity(db, { type: "SO", title: "Bench work", securityTag: "open" });
  const assets = [];
  for (let i = 0; i < ASSETS; i++) {
    const a = insertEntity(db, { type: "IO", title: `Asset ${i}`, securityTag: "open", parentRef: work.ref });
    assets.push({ ref: a.ref, mref: addFragment(db, a.ref, DC, dcDoc(`Asset ${i}`)) });
  }
  const source = insertEntity(db, { type: "SO", title: "Bench subtree", securityTag: "open" });
  const target = insertEntity(db, { type: "SO", title: "Bench destination", securityTag: "open" });
  let made = 1;
  let folder;
  while (made < SUBTREE) {
    if ((made - 1) % 100 === 0) {
      folder = insertEntity(db, {
        type: "SO",
        title: `Box ${made}`,
        securityTag: "open",
        parentRef: source.ref,
      });
    } else {
      insertEntity(db, { type: "IO", title: `Item ${made}`, securityTag: "open", parentRef: folder.ref });
    }
    made++;
  }
  return { assets, source: source.ref, target: target.ref, single: assets[0].ref, work: work.ref };
})();
db.close();

const { child, url } = await startRepository(cli, ["--data", dataDir, "--seed", "none"]);

const pool = new Pool(url, { connections: concurrency });
let token;
async function call(method, path, body, type = "application/xml;charset=UTF-8") {
  const res = await pool.request({
    method,
    path,
    headers: {
      ...(token ? { "preservica-access-token": token } : {}),
      ...(body ? { "content-type": type } : {}),
    },
    body,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
  return text;
}
token = JSON.parse(
  await call(
    "POST",
    "/api/accesstoken/login",
    "username=manager&password=manager-demo-pw",
    "application/x-www-form-urlencoded",
  ),
).token;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (n, d = 1) => n.toFixed(d);
async function rate(label, fn) {
  const deadline = performance.now() + seconds * 1000;
  let count = 0;
  const lat = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const i = count++;
        const t = performance.now();
        await fn(i);
        lat.push(performance.now() - t);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  const perSec = count / seconds;
  console.log(
    `${label}: ${fmt(perSec, 0)}/s (p50 ${fmt(pct(lat, 50), 2)} ms, p95 ${fmt(pct(lat, 95), 2)} ms, n=${count})`,
  );
  return perSec;
}

const XIP = "http://preservica.com/XIP/v7.7";
const getRate = await rate("entity GET, for comparison", (i) =>
  call("GET", `/api/entity/information-objects/${fixtures.assets[i % ASSETS].ref}`),
);
const updateRate = await rate("metadata fragment update (PUT …/metadata/{mref})", (i) => {
  const a = fixtures.assets[i % ASSETS];
  const body = `<xip:MetadataContainer xmlns:xip="${XIP}" schemaUri="${DC}"><xip:Ref>${a.mref}</xip:Ref><xip:Entity>${a.ref}</xip:Entity><xip:Content>${dcDoc(`Asset ${i} rev`)}</xip:Content></xip:MetadataContainer>`;
  return call("PUT", `/api/entity/information-objects/${a.ref}/metadata/${a.mref}`, body);
});
const idRate = await rate("identifier add (POST …/identifiers)", (i) => {
  const a = fixtures.assets[i % ASSETS];
  const body = `<Identifier xmlns="${XIP}"><Type>bench</Type><Value>B-${i}</Value><Entity>${a.ref}</Entity></Identifier>`;
  return call("POST", `/api/entity/information-objects/${a.ref}/identifiers`, body);
});
console.log(
  `ratios to entity GET: metadata update ${fmt(updateRate / getRate, 2)}x, identifier add ${fmt(idRate / getRate, 2)}x`,
);

async function timedMove(label, path, destination) {
  const t0 = performance.now();
  const id = (await call("PUT", path, destination, "text/plain")).trim();
  let status = "ACTIVE";
  let polls = 0;
  while (status === "ACTIVE") {
    await new Promise((r) => setTimeout(r, 5));
    status = /<Status>([A-Z_]+)<\/Status>/.exec(await call("GET", `/api/entity/progress/${id}`))?.[1];
    polls++;
  }
  const ms = performance.now() - t0;
  console.log(`${label}: ${fmt(ms, 0)} ms to ${status} (${polls} progress polls)`);
  return ms;
}
const single = await timedMove(
  "move of one asset",
  `/api/entity/information-objects/${fixtures.single}/parent-ref`,
  fixtures.target,
);
// While the big move runs, entity GETs are timed too: the action must not stall the service.
let during = 0;
let stop = false;
const reader = (async () => {
  while (!stop) {
    await call("GET", `/api/entity/information-objects/${fixtures.assets[during % ASSETS].ref}`);
    during++;
  }
})();
const big = await timedMove(
  `move of a folder with ${SUBTREE.toLocaleString("en")} entities below it`,
  `/api/entity/structural-objects/${fixtures.source}/parent-ref`,
  fixtures.target,
);
stop = true;
await reader;
console.log(
  `subtree move vs one asset: ${fmt(big / single, 1)}x; ${fmt((SUBTREE / big) * 1000, 0)} entities/s; entity GETs answered during it: ${during} (${fmt((during / big) * 1000, 0)}/s)`,
);

await pool.close();
await new Promise((resolve) => {
  child.once("exit", resolve);
  child.kill("SIGTERM");
});
rmSync(dataDir, { recursive: true, force: true });
