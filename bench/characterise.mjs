#!/usr/bin/env node
// Characterisation benchmark: what identifying and characterising files adds to an ingest. Builds a package
// of 100 files like a digitisation batch (40 PNG photographs 640x480, 20 one-page PDFs, 20 two-second WAV
// recordings, 20 text transcripts), ingests it through the HTTP API of an in-process service, then times,
// over the same stored files one after another, what the ingest did before characterisation existed
// (signature identification of the first 4 KiB) and what it does now (characteriseStoredBlob: identification
// by our signatures and file-type, properties from image-size/exifr, the PDF worker, WAV headers). Prints the
// ingest's wall time and both sums; the difference is the added work (ingest runs 4 files at once, so its
// wall time grows by at most that).
// Reads the built output: run `npm run build` first.   Usage: node bench/characterise.mjs [--files 100]
import { parseArgs } from "node:util";
import yazl from "yazl";

const { values } = parseArgs({ options: { files: { type: "string", default: "100" } } });
const N = Number(values.files);
const dist = new URL("../dist/repository/", import.meta.url);
const load = (p) => import(new URL(p, dist).href);
const { startRepository } = await load("server.js");
const { insertEntity } = await load("store/entities/write.js");
const { pictureFile, pdfFile, wavFile, textFile } = await load("seed/files.js");
const { characteriseStoredBlob } = await load("characterise/characterise.js");
const { identifyFormat, IDENTIFY_HEAD_BYTES } = await load("formats.js");

function fileAt(i) {
  const kind = i % 5;
  if (kind <= 1) return { name: `photo-${i}.png`, data: pictureFile("photo", i, 640, 480) };
  if (kind === 2)
    return {
      name: `minutes-${i}.pdf`,
      data: pdfFile({
        title: `Minutes ${i}`,
        author: "Clerk",
        date: "1901-01-01",
        lines: ["Present: the board."],
      }),
    };
  if (kind === 3) return { name: `interview-${i}.wav`, data: wavFile(i, 2000) };
  return { name: `transcript-${i}.txt`, data: textFile(`Transcript ${i}: the harbour in 1901.`) };
}

const zip = new yazl.ZipFile();
for (let i = 0; i < N; i++) {
  const f = fileAt(i);
  zip.addBuffer(f.data, f.name);
}
zip.end();
const parts = [];
for await (const c of zip.outputStream) parts.push(c);
const body = Buffer.concat(parts);

const repo = await startRepository({ port: 0, host: "127.0.0.1", seed: "demo" });
const { db, content } = repo.svc;
const target = insertEntity(db, { type: "SO", title: "Batch", securityTag: "open" }).ref;
const login = await fetch(`${repo.url}/api/accesstoken/login`, {
  method: "POST",
  body: new URLSearchParams({ username: "curator", password: "curator-demo-pw" }),
});
const headers = { "Preservica-Access-Token": (await login.json()).token };

const started = performance.now();
const res = await fetch(`${repo.url}/api/entity/structural-objects/${target}`, {
  method: "POST",
  body,
  headers: { ...headers, "Content-Type": "application/octet-stream", Filename: "batch.zip" },
});
const id = await res.text();
for (;;) {
  const p = await (await fetch(`${repo.url}/api/entity/progress/${id}`, { headers })).text();
  if (!/<Status>ACTIVE<\/Status>/.test(p)) {
    if (!/<Status>COMPLETED<\/Status>/.test(p)) throw new Error(`ingest ended: ${p}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 20));
}
const ingestMs = performance.now() - started;

const files = db
  .prepare(
    `SELECT b.filename, b.size, b.content_sha256 AS sha256 FROM bitstreams b
     JOIN generations g ON g.id = b.generation_id JOIN entities c ON c.ref = g.co_ref
     JOIN entities io ON io.ref = c.parent_ref WHERE io.parent_ref = ?`,
  )
  .all(target);
const characterised = db
  .prepare(
    `SELECT count(*) AS n FROM generations g JOIN entities c ON c.ref = g.co_ref JOIN entities io ON io.ref = c.parent_ref
     WHERE io.parent_ref = ? AND g.characterised = 1`,
  )
  .get(target).n;

async function head(f, bytes) {
  const chunks = [];
  for await (const c of content.read(f.sha256, { start: 0, end: Math.min(f.size, bytes) - 1 }))
    chunks.push(c);
  return Buffer.concat(chunks);
}
let t = performance.now();
for (const f of files) identifyFormat(await head(f, IDENTIFY_HEAD_BYTES), f.filename);
const identifyMs = performance.now() - t;
t = performance.now();
for (const f of files) await characteriseStoredBlob(content, { sha256: f.sha256, size: f.size }, f.filename);
const characteriseMs = performance.now() - t;
await repo.close();

const ms = (x) => `${x.toFixed(0)} ms`;
console.log(
  `${files.length} files ingested (${(body.length / 2 ** 20).toFixed(1)} MiB zip) in ${ms(ingestMs)}; ${characterised} characterised`,
);
console.log(
  `identification only (before): ${ms(identifyMs)} for all, ${(identifyMs / files.length).toFixed(2)} ms a file`,
);
console.log(
  `characterisation (now):        ${ms(characteriseMs)} for all, ${(characteriseMs / files.length).toFixed(2)} ms a file (PDF worker warm)`,
);
console.log(
  `added: ${ms(characteriseMs - identifyMs)}, ${(((characteriseMs - identifyMs) / ingestMs) * 100).toFixed(0)}% of the ingest's wall time`,
);
