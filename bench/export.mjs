#!/usr/bin/env node
// Export benchmark of the repository service: a folder holding ~200 MB of content (by default 48 assets
// of 4 MiB and 200 small ones of 16 KiB, random bytes) is exported as an OPEX package
// (POST …/structural-objects/{ref}/exports, then progress polled until COMPLETED) by a service started
// as its own process, and the package downloaded (GET /api/entity/actions/exports/{id}/content).
// Prints the export throughput (content MB/s, start to COMPLETED), the download throughput, and the
// service's peak resident memory while exporting (VmHWM from /proc/<pid>/status, reset just before).
// Reads the built output: run `npm run build` first (npm run bench:export does).
// Usage: node bench/export.mjs [--large 48 --large-mib 4 --small 200 --small-kib 16]
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { request } from "undici";
import { startRepository } from "./spawn.mjs";

const { values } = parseArgs({
  options: {
    large: { type: "string", default: "48" },
    "large-mib": { type: "string", default: "4" },
    small: { type: "string", default: "200" },
    "small-kib": { type: "string", default: "16" },
  },
});
const MiB = 1024 * 1024;
const LARGE = Number(values.large);
const LARGE_BYTES = Number(values["large-mib"]) * MiB;
const SMALL = Number(values.small);
const SMALL_BYTES = Number(values["small-kib"]) * 1024;
const cli = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
const dist = new URL("../dist/repository/", import.meta.url);
const { openDatabase } = await import(new URL("store/db.js", dist).href);
const { ContentStore } = await import(new URL("store/content-store.js", dist).href);
const { insertEntity, addRepresentation, addGeneration, addBitstream } = await import(
  new URL("store/entities/write.js", dist).href
);
const fmt = (n, d = 1) => n.toFixed(d);

// The store: one folder with a sub-folder of large assets and one of small ones, each asset one
// content object with one generation and one bitstream of random (incompressible) bytes.
const work = mkdtempSync(join(tmpdir(), "export-bench-"));
const dataDir = join(work, "data");
const db = openDatabase(dataDir);
const content = new ContentStore(join(dataDir, "content"));
let contentBytes = 0;
const root = db.transaction(() => {
  const top = insertEntity(db, { type: "SO", title: "Export bench", securityTag: "open" });
  const groups = [
    { title: "Large", count: LARGE, bytes: LARGE_BYTES, ext: "tif" },
    { title: "Small", count: SMALL, bytes: SMALL_BYTES, ext: "txt" },
  ];
  for (const g of groups) {
    const folder = insertEntity(db, { type: "SO", title: g.title, securityTag: "open", parentRef: top.ref });
    for (let i = 0; i < g.count; i++) {
      const name = `${g.title.toLowerCase()}-${i}.${g.ext}`;
      const io = insertEntity(db, { type: "IO", title: name, securityTag: "open", parentRef: folder.ref });
      const co = insertEntity(db, { type: "CO", title: name, securityTag: "open", parentRef: io.ref });
      addRepresentation(db, io.ref, "Preservation", "Preservation", [co.ref]);
      const gen = addGeneration(db, co.ref, { label: name });
      addBitstream(db, gen, {
        filename: name,
        mimeType: "application/octet-stream",
        blob: content.put(randomBytes(g.bytes)),
      });
      contentBytes += g.bytes;
    }
  }
  return top.ref;
})();
db.close();

const { child, url } = await startRepository(cli, ["--data", dataDir, "--seed", "none"]);

const status = () => readFileSync(`/proc/${child.pid}/status`, "utf8");
const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status())?.[1] ?? Number.NaN);
function resetPeak() {
  try {
    writeFileSync(`/proc/${child.pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

let token;
async function call(method, path, body, type) {
  const res = await request(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { "preservica-access-token": token } : {}),
      ...(type ? { "content-type": type } : {}),
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

console.log(
  `folder: ${LARGE} files of ${fmt(LARGE_BYTES / MiB, 0)} MiB and ${SMALL} of ${fmt(SMALL_BYTES / 1024, 0)} KiB, ${fmt(contentBytes / MiB)} MiB of content`,
);
console.log(`service idle RSS ${fmt(kib("VmRSS") / 1024, 0)} MiB`);
const reset = resetPeak();
const body = `<ExportAction xmlns="http://preservica.com/EntityAPI/v7.7"><IncludeContent>Content</IncludeContent><IncludeMetadata>Metadata</IncludeMetadata><IncludedGenerations>LatestActive</IncludedGenerations><IncludeParentHierarchy>false</IncludeParentHierarchy></ExportAction>`;
const t0 = performance.now();
const id = (
  await call("POST", `/api/entity/structural-objects/${root}/exports`, body, "application/xml;charset=UTF-8")
).trim();
let state = "ACTIVE";
let progress = "";
while (state === "ACTIVE") {
  await new Promise((r) => setTimeout(r, 20));
  progress = await call("GET", `/api/entity/progress/${id}`);
  state = /<Status>([A-Z_]+)<\/Status>/.exec(progress)?.[1];
}
const exportMs = performance.now() - t0;
if (state !== "COMPLETED") throw new Error(`export ended ${state}: ${progress}`);
const peak = kib("VmHWM") / 1024;

const t1 = performance.now();
const res = await request(`${url}/api/entity/actions/exports/${id}/content`, {
  headers: { "preservica-access-token": token },
});
let packageBytes = 0;
for await (const chunk of res.body) packageBytes += chunk.length;
const downloadMs = performance.now() - t1;
if (res.statusCode !== 200) throw new Error(`download: ${res.statusCode}`);

console.log(
  `export: ${fmt(exportMs / 1000, 2)} s to COMPLETED, ${fmt(contentBytes / MiB / (exportMs / 1000), 0)} MB/s of content; package ${fmt(packageBytes / MiB)} MiB (${fmt((packageBytes / contentBytes - 1) * 100, 2)}% over the content)`,
);
console.log(
  `download: ${fmt(downloadMs / 1000, 2)} s, ${fmt(packageBytes / MiB / (downloadMs / 1000), 0)} MB/s`,
);
console.log(
  `service peak RSS while exporting ${fmt(peak, 0)} MiB${reset ? "" : " (since start: clear_refs unavailable)"}; content/peak RSS ${fmt(contentBytes / MiB / peak, 1)}x`,
);

await new Promise((resolve) => {
  child.once("exit", resolve);
  child.kill("SIGTERM");
});
rmSync(work, { recursive: true, force: true });
