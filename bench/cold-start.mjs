#!/usr/bin/env node
// Cold start of the MCP server over stdio with the embedded default, its demo data already present: from
// spawning the process to the first tool result (`whoami`), as an MCP client sees it. Issue 9 §2: target under
// 300 ms on an idle machine; issue 21: the bundle within 1.25x of the SDK-only server in the same runs.
//
// A shared machine's load moves every figure, so each run starts every variant once, in rotating order, and the
// figures are printed side by side with their ratios to two baselines measured in the same runs:
//   node            bare `node -e 0` (spawn to exit): the floor no server can go under;
//   sdk-hello       an MCP server of the SDK and zod alone with one tool (the same SDK, the same handshake);
//   current         this checkout's build (dist/src/cli.js);
//   <label>         any other build given with --variant label=path/to/cli.js (e.g. a copy of dist/ made
//                   before a change: `cp -r dist /tmp/before` with a node_modules link beside it);
//   bundled         with --bundle: dist/ bundled by scripts/bundle-cli.mjs into a temporary folder (nothing in the
//                   checkout changes), started with V8's code cache (src/cli/code-cache.ts) warm;
//   bundled-nocache the same bundle with the code cache off (NODE_DISABLE_COMPILE_CACHE=1).
// Each figure: median of --runs starts (default 11) of the time to the first tool result, the time until the
// server answered `initialize`, and the CPU time (user + system) the server used until its answer, which is
// steadier than wall time on a busy machine. With --list, the client lists the tools before calling, as most
// clients do.
// Usage: npm run build && node bench/cold-start.mjs [--runs 11] [--list] [--bundle] [--variant label=cli.js]...
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "11" },
    list: { type: "boolean", default: false },
    bundle: { type: "boolean", default: false },
    variant: { type: "string", multiple: true, default: [] },
  },
});
const RUNS = Number(values.runs);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CURRENT = join(ROOT, "dist", "src", "cli.js");
const MODERN = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

/**
 * The SDK's own StdioClientTransport negotiates on a short-lived sibling process (a second server start before
 * the real one); a subclass negotiates on its own connection, so each start below is exactly one process.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/** The SDK-only baseline: McpServer, zod and the stdio entry, one tool, nothing of this project. */
const HELLO = `
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";
serveStdio(() => {
  const server = new McpServer({ name: "hello", version: "1" });
  server.registerTool("whoami", { description: "who", inputSchema: z.object({}), outputSchema: z.object({ user: z.string() }) },
    async () => ({ content: [{ type: "text", text: "hello" }], structuredContent: { user: "hello" } }));
  return server;
});
`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** CPU milliseconds (user + system) a process has used so far; undefined where /proc is not there. */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "pmcp-bench-cold-"));
const cacheHome = mkdtempSync(join(tmpdir(), "pmcp-bench-cache-"));
const env = {
  ...getDefaultEnvironment(),
  PRESERVATION_LOG_LEVEL: "warn",
  PRESERVATION_DATA_DIR: dataDir,
  XDG_CACHE_HOME: cacheHome,
};

/** One start of an MCP server: spawn → initialize → (tools/list) → first tool result. */
async function mcpStart(args, extraEnv = {}) {
  const t0 = performance.now();
  const client = new Client({ name: "bench-cold", version: "1" }, MODERN);
  const transport = new InPlaceStdioTransport({
    command: process.execPath,
    args,
    env: { ...env, ...extraEnv },
    cwd: ROOT,
    stderr: "ignore",
  });
  await client.connect(transport);
  const ready = performance.now() - t0;
  if (values.list) await client.listTools();
  const r = await client.callTool({ name: "whoami", arguments: {} });
  const t = performance.now() - t0;
  const cpu = cpuOf(transport.pid);
  if (r.isError) throw new Error(`${args.join(" ")}: ${JSON.stringify(r.content)}`);
  await client.close();
  return { t, ready, cpu };
}

/** Bare node: spawn to exit of an empty program. */
function nodeStart() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", () => resolve({ t: performance.now() - t0 }));
  });
}

/** dist/ bundled by scripts/bundle-cli.mjs into a package-shaped temporary folder (node_modules linked). */
async function bundled(dir) {
  const { bundleCli } = await import("../scripts/bundle-cli.mjs");
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "package.json"), readFileSync(join(ROOT, "package.json")));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  return bundleCli({ outDir: join(dir, "dist", "bundle") });
}

const bundleDir = values.bundle ? mkdtempSync(join(tmpdir(), "pmcp-bench-bundle-")) : undefined;
try {
  const variants = [
    { label: "node", run: nodeStart },
    { label: "sdk-hello", run: () => mcpStart(["--input-type=module", "-e", HELLO]) },
    { label: "current", run: () => mcpStart([CURRENT]) },
  ];
  for (const v of values.variant) {
    const [label, cli] = v.split("=");
    if (!cli) throw new Error(`--variant ${v}: give label=path/to/cli.js`);
    variants.push({ label, run: () => mcpStart([cli]) });
  }
  if (bundleDir) {
    const cli = await bundled(bundleDir);
    variants.push({ label: "bundled", run: () => mcpStart([cli]) });
    variants.push({
      label: "bundled-nocache",
      run: () => mcpStart([cli], { NODE_DISABLE_COMPILE_CACHE: "1" }),
    });
  }

  const t0 = performance.now();
  await mcpStart([CURRENT]); // seeds the demo collection into the empty data directory
  console.log(`seeded ${dataDir} in ${(performance.now() - t0).toFixed(0)} ms (not counted)`);
  for (const v of variants) await v.run(); // warms the file cache (and fills the code cache); not counted

  const results = new Map(variants.map((v) => [v.label, []]));
  for (let i = 0; i < RUNS; i++) {
    // Rotating order, so a burst of load elsewhere does not always fall on the same variant.
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(i + k) % variants.length];
      results.get(v.label).push(await v.run());
    }
  }

  const med = (label, key) => {
    const xs = (results.get(label) ?? []).map((r) => r[key]).filter((x) => x !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  const f = (x) => (x === undefined ? "-" : x.toFixed(0));
  const nodeT = med("node", "t");
  const helloT = med("sdk-hello", "t");
  const helloCpu = med("sdk-hello", "cpu");
  console.log(
    `\nCold start to the first tool result over stdio (embedded default, demo data present${values.list ? ", tools/list first" : ""}), median of ${RUNS} runs each, side by side:`,
  );
  const header = [
    "variant",
    "first result ms",
    "initialize ms",
    "server CPU ms",
    "× node",
    "× sdk-hello",
    "CPU × sdk-hello",
    "min–max ms",
  ];
  const rows = variants.map(({ label }) => {
    const t = med(label, "t");
    const cpu = med(label, "cpu");
    const all = results.get(label).map((r) => r.t);
    return [
      label,
      f(t),
      f(med(label, "ready")),
      f(cpu),
      (t / nodeT).toFixed(2),
      (t / helloT).toFixed(2),
      cpu === undefined || !helloCpu ? "-" : (cpu / helloCpu).toFixed(2),
      `${Math.min(...all).toFixed(0)}–${Math.max(...all).toFixed(0)}`,
    ];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  for (const r of [header, ...rows]) console.log(`  ${r.map((x, c) => x.padStart(widths[c])).join("  ")}`);
  const verdict = (label) => {
    const t = med(label, "t");
    return t === undefined ? [] : [`${label} ${t.toFixed(0)} ms (${t < 300 ? "met" : "not met"})`];
  };
  console.log(
    `\ntarget < 300 ms on an idle machine: ${[...verdict("current"), ...verdict("bundled")].join(", ")}; this machine's bare node start ${nodeT.toFixed(0)} ms, SDK-only server ${helloT.toFixed(0)} ms in the same runs`,
  );
  // Issue 21: within 1.25x of the SDK's own server, measured in the same runs (a ratio, so a busy machine
  // moves it less than the times; still, the load of the runs belongs beside any figure quoted).
  const bundledT = med("bundled", "t");
  if (bundledT !== undefined) {
    const ratio = bundledT / helloT;
    console.log(
      `target <= 1.25x the SDK-only server: bundled ${ratio.toFixed(2)}x (${ratio <= 1.25 ? "met" : "not met"}); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheHome, { recursive: true, force: true });
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
}
