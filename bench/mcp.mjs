#!/usr/bin/env node
// MCP server benchmark, run against the build in dist/ (npm run build first). Prints three figures:
//  1. Overhead of a tool call over the raw service request it makes: `get_entity` (summary of one asset, which
//     is exactly one GET /api/entity/information-objects/{ref}) against that GET sent straight to the service,
//     over stdio and Streamable HTTP, on loopback and with the service 20 ms away; ratio tool/raw (target ≤ 1.5x
//     on loopback, ≤ 1.05x at 20 ms; issue 9 §2). Beside it, in the same loop, the SDK floor
//     (bench/sdk-floor.mjs: the SDK alone, served the same way, wrapping the same GET and giving an answer of
//     the same size), so what is the SDK's and the transport's cost and what is ours can be told apart; and
//     the bare round trips (our whoami, answered from the session's cache, and the SDK's hello).
//  2. Cold start to the first tool result over stdio with the embedded default's data already present:
//     spawn → connect (2026-07-28) → first `whoami` answer (target < 300 ms on an idle machine; issue 9 §2), median
//     of several starts, with the CPU time the server process used until then (steadier than wall time on a busy
//     machine).
//  3. Answer size against the raw service responses a client would need for the same question (target ≤ 1/5).
// Usage: node bench/mcp.mjs [--calls 300] [--far-calls 60] [--starts 7] [--only overhead,cold,answers]
//        [--cli path/to/cli.js]  (another build, e.g. to compare before and after a change)
//        [--baseline path/to/cli.js]  (figure 1 also runs that build's stdio server in the same loop: before and
//        after a change side by side, each against the same floor, so the machine's load of the moment hits both)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { spawnUntil as spawnProcessUntil, stop } from "./spawn.mjs";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "300" },
    "far-calls": { type: "string", default: "60" },
    starts: { type: "string", default: "7" },
    only: { type: "string" },
    cli: { type: "string" },
    baseline: { type: "string" },
  },
});
const CALLS = Number(values.calls);
const FAR_CALLS = Number(values["far-calls"]);
const STARTS = Number(values.starts);
/** Which figures to take: overhead, cold, answers (default all). */
const ONLY = new Set((values.only ?? "overhead,cold,answers").split(","));
const cli = values.cli ?? fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));
/** Another build whose stdio server joins figure 1's loopback loop (before/after a change, side by side). */
const baselineCli = values.baseline;
const floorScript = fileURLToPath(new URL("./sdk-floor.mjs", import.meta.url));
const MANAGER = { username: "manager", password: "manager-demo-pw" };
const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

/**
 * The SDK's own StdioClientTransport negotiates on a short-lived sibling process (a second server start before
 * the real one); a subclass negotiates on its own connection, so each start below is exactly one process.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const ms = (n) => `${n.toFixed(2)} ms`;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** Spawns the CLI and resolves once `pattern` appears on the given stream. */
function spawnUntil(args, env, stream, pattern) {
  return spawnProcessUntil(process.execPath, [cli, ...args], env, stream, pattern);
}

/** CPU milliseconds (user + system) a process has used so far; undefined where /proc is not there. */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const cleanEnv = (extra) => ({ ...getDefaultEnvironment(), PRESERVATION_LOG_LEVEL: "warn", ...extra });

const repoDir = mkdtempSync(join(tmpdir(), "pmcp-bench-repo-"));
const embeddedDir = mkdtempSync(join(tmpdir(), "pmcp-bench-embedded-"));
const children = [];
const clients = [];
try {
  if (ONLY.has("cold")) {
    // ---- 2. cold start (first, while nothing else runs) ------------------------------------------------
    const embeddedEnv = cleanEnv({ PRESERVATION_DATA_DIR: embeddedDir });
    const coldStart = async () => {
      const t0 = performance.now();
      const client = new Client({ name: "bench-cold", version: "1" }, MODERN);
      const transport = new InPlaceStdioTransport({
        command: process.execPath,
        args: [cli],
        env: embeddedEnv,
        stderr: "ignore",
      });
      await client.connect(transport);
      const ready = performance.now() - t0;
      const r = await client.callTool({ name: "whoami", arguments: {} });
      const t = performance.now() - t0;
      const cpu = cpuOf(transport.pid);
      if (r.isError) throw new Error(JSON.stringify(r.content));
      await client.close();
      return { ready, t, cpu };
    };
    const first = await coldStart(); // seeds the demo collection into the empty data directory
    const starts = [];
    for (let i = 0; i < STARTS; i++) starts.push(await coldStart());
    const startMed = median(starts.map((s) => s.t));
    const cpuMed = starts[0].cpu === undefined ? undefined : median(starts.map((s) => s.cpu));
    const readyMed = median(starts.map((s) => s.ready));
    console.log("2. Cold start to the first tool result over stdio (embedded default, demo data present):");
    console.log(`   first run ever (seeds ${embeddedDir}): ${ms(first.t)}`);
    console.log(
      `   with data present: median ${ms(startMed)} of ${STARTS} (server answering after ${ms(readyMed)}; min ${ms(Math.min(...starts.map((s) => s.t)))}, max ${ms(Math.max(...starts.map((s) => s.t)))}); target < 300 ms: ${startMed < 300 ? "met" : "not met"}${cpuMed === undefined ? "" : `; server CPU until the answer: median ${ms(cpuMed)}`}`,
    );
  }

  // ---- the service, a token, and the refs the questions are about -----------------------------------------
  const repo = await spawnUntil(
    ["repository", "--port", "0", "--seed", "demo", "--data", repoDir],
    process.env,
    "stdout",
    /^listening on (\S+)\n/,
  );
  children.push(repo.child);
  const base = repo.match;
  const login = await fetch(`${base}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams(MANAGER),
  });
  const { token } = await login.json();
  const headers = { "Preservica-Access-Token": token };
  const raw = async (path, init = {}) => {
    const res = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...init.headers } });
    const body = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${body}`);
    return body;
  };
  const searchForm = (text, max) =>
    new URLSearchParams({
      q: JSON.stringify({ q: text }),
      start: "0",
      max: String(max),
      metadata: "xip.reference,xip.title,xip.document_type,xip.parent_ref",
    });
  const found = JSON.parse(
    await raw("/api/content/search", { method: "POST", body: searchForm("journal", 10) }),
  );
  const assetRef = found.value.objectIds.find((id) => id.startsWith("sdb:IO|")).slice(7);
  const rootChildren = await raw("/api/entity/root/children");
  const folderRef = rootChildren
    .match(/ref="([0-9a-f-]{36})"[^>]*type="SO"|type="SO"[^>]*ref="([0-9a-f-]{36})"/)
    .slice(1)
    .find(Boolean);

  const tokenOf = async (url) =>
    (
      await (
        await fetch(`${url}/api/accesstoken/login`, { method: "POST", body: new URLSearchParams(MANAGER) })
      ).json()
    ).token;
  const ourEnv = (url) =>
    cleanEnv({
      PRESERVATION_URL: url,
      PRESERVATION_USERNAME: MANAGER.username,
      PRESERVATION_PASSWORD: MANAGER.password,
      PRESERVATION_HTTP_RATE: "off",
    });
  const floorEnv = (url, tok) => ({ ...getDefaultEnvironment(), FLOOR_URL: url, FLOOR_TOKEN: tok });
  const connectHttp = async (name, url) => {
    const client = new Client({ name, version: "1" }, MODERN);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    return client;
  };
  const connectStdio = async (name, command, args, env) => {
    const client = new Client({ name, version: "1" }, MODERN);
    const transport = new InPlaceStdioTransport({ command, args, env, stderr: "ignore" });
    await client.connect(transport);
    clients.push(client);
    return { client, pid: transport.pid };
  };
  const ourHttp = async (url) => {
    const p = await spawnUntil(
      ["--http", "--port", "0"],
      ourEnv(url),
      "stderr",
      /listening on (http:\/\/\S+\/mcp)\n/,
    );
    children.push(p.child);
    return { client: await connectHttp("bench-http", p.match), pid: p.child.pid };
  };
  const call = async (client, name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r;
  };

  if (ONLY.has("overhead")) {
    // ---- 1. overhead -----------------------------------------------------------------------------------------
    // Every contender side by side in one loop (the machine's load hits them alike): the raw GET; get_entity on
    // our server; whoami on our server (answered from the session's cache: our MCP round trip without a service
    // request); and the SDK floor (bench/sdk-floor.mjs, the SDK alone served the same way): `hello` (its bare
    // round trip) and `get_raw` (the same GET wrapped in an SDK tool, nothing parsed). Over stdio and Streamable
    // HTTP; then again with the service 20 ms away (a second service process on the same data, --latency 20).
    const far = await spawnUntil(
      ["repository", "--port", "0", "--seed", "none", "--data", repoDir, "--latency", "20"],
      process.env,
      "stdout",
      /^listening on (\S+)\n/,
    );
    children.push(far.child);
    const farToken = await tokenOf(far.match);
    const floorHttp = async (url, tok) => {
      const child = spawn(process.execPath, [floorScript, "--http"], {
        env: floorEnv(url, tok),
        stdio: ["ignore", "ignore", "pipe"],
      });
      children.push(child);
      const m = await new Promise((resolve, reject) => {
        let text = "";
        child.stderr.setEncoding("utf8").on("data", (d) => {
          text += d;
          const hit = text.match(/listening on (\S+)\n/);
          if (hit) resolve(hit[1]);
        });
        child.once("exit", (code) => reject(new Error(`sdk-floor exited with ${code}: ${text}`)));
      });
      return { client: await connectHttp("bench-floor-http", m), pid: child.pid };
    };
    const near = {
      ours: {
        stdio: await connectStdio("bench-stdio", process.execPath, [cli], ourEnv(base)),
        http: await ourHttp(base),
        ...(baselineCli
          ? { baseline: await connectStdio("bench-baseline", process.execPath, [baselineCli], ourEnv(base)) }
          : {}),
      },
      floor: {
        stdio: await connectStdio("bench-floor", process.execPath, [floorScript], floorEnv(base, token)),
        http: await floorHttp(base, token),
      },
    };
    const away = {
      ours: {
        stdio: await connectStdio("bench-far", process.execPath, [cli], ourEnv(far.match)),
        http: await ourHttp(far.match),
      },
      floor: {
        stdio: await connectStdio(
          "bench-far-floor",
          process.execPath,
          [floorScript],
          floorEnv(far.match, farToken),
        ),
        http: await floorHttp(far.match, farToken),
      },
    };

    const summaryArgs = { ref: assetRef, type: "asset", include: [] };
    const rawGet = async (url, tok) => {
      const res = await fetch(`${url}/api/entity/information-objects/${assetRef}`, {
        headers: { "Preservica-Access-Token": tok },
      });
      if (!res.ok) throw new Error(`raw GET: ${res.status}`);
      await res.text();
    };
    /** One contender per row: [label, step]. */
    const rowsOf = (set, url, tok, withFloors) => [
      ["raw GET", () => rawGet(url, tok)],
      ...(set.ours.baseline
        ? [
            [
              "stdio: get_entity (baseline build)",
              () => call(set.ours.baseline.client, "get_entity", summaryArgs),
            ],
            ...(withFloors
              ? [["stdio: whoami (baseline build)", () => call(set.ours.baseline.client, "whoami", {})]]
              : []),
          ]
        : []),
      ...["stdio", "http"].flatMap((t) => [
        [`${t}: get_entity (ours)`, () => call(set.ours[t].client, "get_entity", summaryArgs)],
        [`${t}: get_raw (SDK floor + GET)`, () => call(set.floor[t].client, "get_raw", { ref: assetRef })],
        ...(withFloors
          ? [
              [`${t}: whoami (ours, no GET)`, () => call(set.ours[t].client, "whoami", {})],
              [`${t}: hello (SDK floor, no GET)`, () => call(set.floor[t].client, "hello", {})],
            ]
          : []),
      ]),
    ];
    const cpuAll = (set) => ["stdio", "http"].flatMap((t) => [set.ours[t].pid, set.floor[t].pid]).map(cpuOf);
    const measure = async (rows, calls, warm) => {
      const times = rows.map(() => []);
      for (let i = 0; i < warm; i++) for (const [, f] of rows) await f(); // JIT, pools
      for (let i = 0; i < calls; i++) {
        // Rotating the order each round, so no contender always runs right after the same other one.
        for (let j = 0; j < rows.length; j++) {
          const k = (i + j) % rows.length;
          const t = performance.now();
          await rows[k][1]();
          times[k].push(performance.now() - t);
        }
      }
      return times.map(median);
    };
    const report = (title, rows, meds) => {
      console.log(title);
      const raw = meds[0];
      rows.forEach(([label], k) => {
        const m = meds[k];
        const extra = k === 0 ? "" : `  ratio ${(m / raw).toFixed(2)}x  (+${ms(m - raw)})`;
        console.log(`   ${label.padEnd(34)} ${ms(m).padStart(10)}${extra}`);
      });
      return Object.fromEntries(rows.map(([label], k) => [label, meds[k]]));
    };
    const verdict = (got, floor, target) =>
      `${got.toFixed(2)}x (target ≤ ${target}x: ${got <= target ? "met" : "not met"}; the SDK floor wrapping the same GET: ${floor.toFixed(2)}x)`;

    const nearRows = rowsOf(near, base, token, true);
    const cpu0 = cpuAll(near);
    const nearMed = report(
      `1. Tool call overhead, loopback (get_entity summary = one GET /api/entity/information-objects/{ref}; median of ${CALLS} rounds):`,
      nearRows,
      await measure(nearRows, CALLS, 50),
    );
    console.log(
      `   (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ", ",
        )} on ${availableParallelism()} cores: compare ratios taken in one run, not times across runs)`,
    );
    const cpu1 = cpuAll(near);
    if (cpu0[0] !== undefined) {
      const per = (i) => ms((cpu1[i] - cpu0[i]) / CALLS);
      console.log(
        `   server CPU per round (its two calls): ours stdio ${per(0)} vs SDK floor stdio ${per(1)}; ours HTTP ${per(2)} vs SDK floor HTTP ${per(3)} (steadier than wall time on a busy machine)`,
      );
    }
    const farRows = rowsOf(away, far.match, farToken, false);
    const farMed = report(
      `   with the service 20 ms away (median of ${FAR_CALLS} rounds):`,
      farRows,
      await measure(farRows, FAR_CALLS, 5),
    );
    for (const t of ["stdio", "http"]) {
      const r = (set, label) => set[`${t}: ${label}`] / set["raw GET"];
      console.log(
        `   ${t === "stdio" ? "stdio" : "Streamable HTTP"}: loopback ${verdict(r(nearMed, "get_entity (ours)"), r(nearMed, "get_raw (SDK floor + GET)"), 1.5)}; 20 ms away ${verdict(r(farMed, "get_entity (ours)"), r(farMed, "get_raw (SDK floor + GET)"), 1.05)}`,
      );
      const ours = nearMed[`${t}: get_entity (ours)`] - nearMed["raw GET"];
      const sdk = nearMed[`${t}: get_raw (SDK floor + GET)`] - nearMed["raw GET"];
      console.log(
        `      of the +${ms(ours)} per call on loopback, the SDK and transport account for +${ms(sdk)}; ours adds ${ms(ours - sdk)}`,
      );
      const before = nearMed[`${t}: get_entity (baseline build)`];
      if (before !== undefined) {
        console.log(
          `      the baseline build (${baselineCli}) in the same loop adds ${ms(before - nearMed["raw GET"] - sdk)}`,
        );
      }
    }
  }

  if (ONLY.has("answers")) {
    const answersClient = (await ourHttp(base)).client;
    // ---- 3. answer sizes --------------------------------------------------------------------------------
    const entityXml = () => raw(`/api/entity/information-objects/${assetRef}`);
    const mrefOf = (xml) => xml.match(/\/metadata\/([0-9a-f-]{36})/)?.[1];
    const questions = [
      {
        q: "What is this asset?",
        tool: ["get_entity", { ref: assetRef }],
        raw: async () => [await entityXml()],
      },
      {
        q: "Which files does it have (formats, sizes, fixity)?",
        tool: ["get_entity", { ref: assetRef, include: ["files"] }],
        raw: async () => {
          const out = [await entityXml()];
          const reps = await raw(`/api/entity/information-objects/${assetRef}/representations`);
          out.push(reps);
          for (const [, type, idx] of reps.matchAll(/representations\/(\w+)\/(\d+)</g)) {
            const rep = await raw(
              `/api/entity/information-objects/${assetRef}/representations/${type}/${idx}`,
            );
            out.push(rep);
            for (const [, co] of rep.matchAll(/content-objects\/([0-9a-f-]{36})</g)) {
              const gens = await raw(`/api/entity/content-objects/${co}/generations`);
              out.push(gens);
              for (const [, g] of gens.matchAll(/generations\/(\d+)</g)) {
                const gen = await raw(`/api/entity/content-objects/${co}/generations/${g}`);
                out.push(gen);
                for (const [, b] of gen.matchAll(/bitstreams\/(\d+)</g)) {
                  out.push(await raw(`/api/entity/content-objects/${co}/generations/${g}/bitstreams/${b}`));
                }
              }
            }
          }
          return out;
        },
      },
      {
        q: "What is its descriptive metadata?",
        tool: ["read_metadata", { ref: assetRef }],
        raw: async () => {
          const xml = await entityXml();
          return [xml, await raw(`/api/entity/information-objects/${assetRef}/metadata/${mrefOf(xml)}`)];
        },
      },
      {
        q: "What is in this top-level folder?",
        tool: ["browse", { ref: folderRef }],
        raw: async () => [
          await raw(`/api/entity/structural-objects/${folderRef}`),
          await raw(`/api/entity/structural-objects/${folderRef}/children?start=0&max=50`),
        ],
      },
      {
        q: 'Find "harbour" (20 hits)',
        tool: ["search", { query: "harbour", limit: 20 }],
        raw: async () => [
          await raw("/api/content/search", { method: "POST", body: searchForm("harbour", 20) }),
        ],
      },
      {
        q: "What happened to this asset?",
        tool: ["list_events", { ref: assetRef }],
        raw: async () => [
          await raw(`/api/entity/information-objects/${assetRef}/event-actions?start=0&max=20`),
        ],
      },
    ];
    console.log("3. Answer size vs the raw service responses for the same question (target ≤ 1/5 = 0.20):");
    let toolTotal = 0;
    let textTotal = 0;
    let rawTotal = 0;
    for (const { q, tool, raw: rawFn } of questions) {
      const r = await call(answersClient, tool[0], tool[1]);
      const answer = JSON.stringify({ content: r.content, structuredContent: r.structuredContent }).length;
      const text = r.content.map((c) => c.text ?? "").join("\n").length;
      const bodies = await rawFn();
      const rawSize = bodies.reduce((n, b) => n + b.length, 0);
      toolTotal += answer;
      textTotal += text;
      rawTotal += rawSize;
      console.log(
        `   ${q.padEnd(52)} ${tool[0].padEnd(13)} text ${kb(text).padStart(8)}, whole answer ${kb(answer).padStart(8)} | raw ${kb(rawSize).padStart(8)} in ${bodies.length} response(s) | ratio ${(text / rawSize).toFixed(2)} text, ${(answer / rawSize).toFixed(2)} whole`,
      );
    }
    console.log(
      `   all questions: text ${kb(textTotal)}, whole answers ${kb(toolTotal)}, raw ${kb(rawTotal)}; ratio ${(textTotal / rawTotal).toFixed(2)} (text the model reads), ${(toolTotal / rawTotal).toFixed(2)} (text + structured content)`,
    );
  }
} finally {
  for (const c of clients) await c.close().catch(() => {});
  for (const c of children) await stop(c);
  rmSync(repoDir, { recursive: true, force: true });
  rmSync(embeddedDir, { recursive: true, force: true });
}
