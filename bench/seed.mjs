#!/usr/bin/env node
// Seeding benchmark: time to write the synthetic collection (default 100,000 entities) into a fresh
// on-disk data directory (WAL, as the service runs), the demo collection, and a restart's user refresh.
// Reads the built output, so run `npm run build` first.
// Usage: npm run build && node bench/seed.mjs [--entities 100000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { entities: { type: "string", default: "100000" } } });
const N = Number(values.entities);

const dist = new URL("../dist/repository/", import.meta.url);
const { openDatabase } = await import(new URL("store/db.js", dist).href);
const { ContentStore } = await import(new URL("store/content-store.js", dist).href);
const { seedSynthetic, seedDemo, seedUsersAndTags, DEFAULT_DEMO_PASSWORDS, DEMO } = await import(
  new URL("seed.js", dist).href
);

function timed(label, fn) {
  const dir = mkdtempSync(join(tmpdir(), "seed-bench-"));
  try {
    const db = openDatabase(dir);
    const content = new ContentStore(join(dir, "content"));
    const t0 = performance.now();
    const detail = fn(db, content);
    const ms = performance.now() - t0;
    db.close();
    console.log(`${label}: ${(ms / 1000).toFixed(2)} s${detail ? ` (${detail})` : ""}`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const synthMs = timed(`synthetic seed, ${N.toLocaleString("en")} entities`, (db, content) => {
  seedSynthetic(db, content, N);
  const rows = db.prepare("SELECT type, count(*) AS n FROM entities GROUP BY type ORDER BY type").all();
  return rows.map((r) => `${r.type} ${r.n}`).join(", ");
});
console.log(
  `  rate: ${Math.round(N / (synthMs / 1000)).toLocaleString("en")} entities/s; budget 60 s -> ${((synthMs / 60000) * 100).toFixed(1)}% used`,
);

timed(`demo seed, ${DEMO.counts.total} entities with files`, (db, content) => {
  seedDemo(db, content);
});

timed("users and tags: first start, then a restart", (db) => {
  const t0 = performance.now();
  seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
  const first = performance.now() - t0;
  const t1 = performance.now();
  seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
  return `first ${first.toFixed(0)} ms, restart ${(performance.now() - t1).toFixed(1)} ms`;
});
