#!/usr/bin/env node
// Subtree walk benchmark, against the build in dist/ (npm run build first): our client's walkTree against
// pyPreservica's EntityAPI.all_descendants, side by side in one run, on the same repository service, listing the
// same subtree (everything below the top level of an N-entity synthetic store: folders and assets, about N/2).
// Both sign in first (not timed); each walk is timed from its first request to its last item. Runs alternate
// (ours, theirs, ours, …) and the median of each is compared, with the service on loopback (--latency 0) and
// 20 ms away (--latency 20). Every run's refs are checked to be the same set for both clients. CPU time is printed
// too (each client's own, and the service's from /proc on Linux): steadier than wall time on a shared machine.
// Targets (issue 9 §2): at least 5x pyPreservica at 20 ms, at least 1.5x on loopback.
//
// pyPreservica is not a dependency: it runs from a source tree given by --pyp (default /tmp/pyp, holding the
// `pyPreservica` package), with /usr/bin/python3 and Debian's python3-requests, -pyotp, -azure-storage, -tqdm,
// -dateutil and -boto3. Extract it with:
//   git --git-dir=<mirror of github.com/carj/pyPreservica> archive HEAD pyPreservica setup.py | tar -x -C /tmp/pyp
// Our walk runs with its defaults (8 listings in flight, pages of 1000) and once more with pyPreservica's pages
// of 100, to show what each change brings. The machine should be idle: on a busy one the loopback figure mostly
// measures who gets a CPU.
// Usage: npm run bench:walk [-- --entities 20000 --runs 5 --latency 0,20 --concurrency N --pyp /tmp/pyp]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { EntityApi } from "../dist/src/api/entity.js";
import { walkTree } from "../dist/src/api/walk.js";
import { Session } from "../dist/src/session/session.js";
import { startRepository, stop } from "./spawn.mjs";

const { values } = parseArgs({
  options: {
    entities: { type: "string", default: "20000" },
    runs: { type: "string", default: "5" },
    latency: { type: "string", default: "0,20" },
    concurrency: { type: "string" },
    pyp: { type: "string", default: "/tmp/pyp" },
    python: { type: "string", default: "/usr/bin/python3" },
  },
});
const N = Number(values.entities);
const RUNS = Number(values.runs);
const LATENCIES = values.latency.split(",").map(Number);
const CONCURRENCY = values.concurrency ? Number(values.concurrency) : undefined;
const cli = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
const MANAGER = { username: "manager", password: "manager-demo-pw" };
const TARGETS = { 0: 1.5, 20: 5 };

if (!existsSync(join(values.pyp, "pyPreservica", "entityAPI.py"))) {
  console.error(
    `pyPreservica not found under ${values.pyp}: extract it there (see the comment at the top of bench/walk.mjs)`,
  );
  process.exit(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const ms = (n) => `${n.toFixed(0)} ms`;

/** The service on `dataDir`, `latency` ms away, seeded with `seed`. */
function startService(dataDir, latency, seed) {
  return startRepository(cli, ["--data", dataDir, "--seed", seed, "--latency", String(latency)]);
}

/** Our client: a signed-in session, then one walk of the whole tree; returns the time and the refs. */
async function walkOurs(url, pageSize) {
  const session = new Session({ url, ...MANAGER, keepAlive: false });
  try {
    await session.login();
    const entity = new EntityApi(session.http);
    const refs = [];
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const opts = { ...(CONCURRENCY ? { concurrency: CONCURRENCY } : {}), ...(pageSize ? { pageSize } : {}) };
    for await (const item of walkTree(entity, null, opts)) refs.push(item.ref);
    const elapsed = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    return { ms: elapsed, cpu: (cpu.user + cpu.system) / 1000, refs };
  } finally {
    await session.close();
  }
}

const PY = `
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pyPreservica import EntityAPI
client = EntityAPI(username=sys.argv[3], password=sys.argv[4], server=sys.argv[2], protocol="http")
r0 = resource.getrusage(resource.RUSAGE_SELF)
t0 = time.perf_counter()
refs = [e.reference for e in client.all_descendants(None)]
elapsed = (time.perf_counter() - t0) * 1000
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime) * 1000
with open(sys.argv[5], "w") as f:
    json.dump({"ms": elapsed, "cpu": cpu, "refs": refs}, f)
`;

/** pyPreservica in its own process: signs in (not timed), then all_descendants(None). */
function walkTheirs(url, dir) {
  const out = join(dir, "pyp-refs.json");
  const script = join(dir, "walk.py");
  writeFileSync(script, PY);
  const server = new URL(url).host;
  return new Promise((resolve, reject) => {
    const child = spawn(
      values.python,
      [script, values.pyp, server, MANAGER.username, MANAGER.password, out],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
    });
    child.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`pyPreservica exited with ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(readFileSync(out, "utf8")));
    });
  });
}

/** CPU milliseconds a process has used so far (Linux /proc; undefined elsewhere). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 10 ms ticks
  } catch {
    return undefined;
  }
}

/** Runs a walk and adds the service's CPU time during it. */
async function measured(service, walk) {
  const before = cpuOf(service.child.pid);
  const result = await walk();
  const after = cpuOf(service.child.pid);
  return { ...result, serviceCpu: before === undefined ? undefined : after - before };
}

function sameRefs(a, b) {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return set.size === a.length && b.every((r) => set.has(r));
}

const dir = mkdtempSync(join(tmpdir(), "pmcp-bench-walk-"));
const dataDir = join(dir, "data");
try {
  // Seed once (not timed), then one service per latency on the same data.
  const seeding = await startService(dataDir, 0, String(N));
  await stop(seeding.child);
  for (const latency of LATENCIES) {
    const service = await startService(dataDir, latency, "none");
    try {
      const ours = [];
      const ours100 = [];
      const theirs = [];
      let listed = 0;
      // One warm-up each (JIT, the service's page cache).
      await walkOurs(service.url);
      await walkTheirs(service.url, dir);
      for (let i = 0; i < RUNS; i++) {
        const a = await measured(service, () => walkOurs(service.url));
        const b = await measured(service, () => walkTheirs(service.url, dir));
        // Also with pyPreservica's page size, to show what the larger pages bring.
        const c = await measured(service, () => walkOurs(service.url, 100));
        for (const [who, x] of [
          ["ours", a],
          ["ours (pages of 100)", c],
        ]) {
          if (!sameRefs(x.refs, b.refs))
            throw new Error(
              `run ${i + 1} at ${latency} ms: the clients listed different refs (${who} ${x.refs.length}, pyPreservica ${b.refs.length})`,
            );
        }
        listed = a.refs.length;
        ours.push(a);
        theirs.push(b);
        ours100.push(c);
      }
      const o = median(ours.map((r) => r.ms));
      const o100 = median(ours100.map((r) => r.ms));
      const t = median(theirs.map((r) => r.ms));
      const target = TARGETS[latency];
      const line = (label, rs) => {
        const cpu = median(rs.map((r) => r.cpu));
        const svc =
          rs[0].serviceCpu === undefined ? "" : `, service ${ms(median(rs.map((r) => r.serviceCpu)))}`;
        return `   ${label.padEnd(30)} median ${ms(median(rs.map((r) => r.ms)))} of ${RUNS} [${rs.map((r) => ms(r.ms)).join(", ")}]; CPU: client ${ms(cpu)}${svc}\n`;
      };
      console.log(
        `service ${latency} ms away: ${listed} entities listed by each client (the same refs in every run)\n` +
          line("ours, walkTree defaults:", ours) +
          line("ours, pages of 100:", ours100) +
          line("pyPreservica all_descendants:", theirs) +
          `   ratio pyPreservica / ours: ${(t / o).toFixed(2)}x` +
          (target ? ` (target ≥ ${target}x: ${t / o >= target ? "met" : "not met"})` : "") +
          `; with pages of 100: ${(t / o100).toFixed(2)}x`,
      );
    } finally {
      await stop(service.child);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
