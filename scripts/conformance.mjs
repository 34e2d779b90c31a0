#!/usr/bin/env node
/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`, its server scenarios) against our
 * Streamable HTTP server, once per reviewed baseline, and compares each run's failures with its baseline:
 *
 *   test/conformance/expected-failures.json      0.1.16, active suite: the 2025-11-25 wire (initialize handshake)
 *   test/conformance/expected-failures-0.2.json  the 0.2 line with `--requirements 2026-07-28`: exactly what
 *                                                the 2026-07-28 revision requires (frozen at its release), run
 *                                                at that revision's stateless wire (per-request _meta), plus
 *                                                what it runs unscored (the tasks extension, pending ones)
 *
 *   node scripts/conformance.mjs              start `cli.js --http --port 0` on the embedded demo (a temporary
 *                                             data directory), one server per run, the runs side by side
 *   node scripts/conformance.mjs --url U      run against a server already listening at U instead
 *   node scripts/conformance.mjs --probe      only check that the runners (Node 22 + each suite) can be had
 *   node scripts/conformance.mjs --keep       keep the suites' checks.json files (one folder per run) and say where
 *   node scripts/conformance.mjs --from DIR   run nothing: compare the results a --keep run left in DIR
 *   node scripts/conformance.mjs --expected FILE [--expected FILE2]   these baselines instead (its tests)
 *
 * A baseline's `scenarios` maps a scenario to the reason it fails, or `scenario:check-id` to the reason one
 * check fails (the suite's own baseline syntax): then only that check may fail, and every other check of the
 * scenario, the wire-schema check of everything our server sent included, is still enforced. A scenario
 * cannot be listed both ways. A listed check that is absent is tolerated while the scenario fails in a listed
 * way (a failed prerequisite stops a scenario early); once the scenario is otherwise clean it is stale.
 *
 * Exit codes: 0 every run matches its baseline; 1 an unexpected failure, or a listed failure that now passes
 * (remove its line), or a listed scenario or check that did not run; 2 a baseline is malformed, our server
 * did not start or a suite produced no results; 3 a runner cannot be had here (npm registry unreachable and
 * nothing cached). With several runs the most telling code wins: 2, then 1, then 3.
 *
 * The suite needs Node >= 22 (0.1.16 crashes on Node 20), while this project runs on Node 20: each runner comes
 * from `npx -p node@<v> -p @modelcontextprotocol/conformance@<v>`, the npm registry's `node` package putting a
 * Node 22 binary first on the PATH of that one command. Not a devDependency: its bin is named `node`, so it
 * would shadow Node 20 in every npm script of the project. npx caches each pair (~/.npm/_npx, ~240 MB each);
 * --prefer-offline reuses the cache without asking the registry, and a cold cache installs from the registry
 * inside the run's own time limit. Versions and suite arguments come from the baseline file, reviewed together.
 * The runner is only probed when a run produced nothing, to say why; a warm run spends no time on it.
 * Run `npm run build` first: the server is the shipped entry point, dist/bundle/preservation-mcp.cjs.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "dist/bundle/preservation-mcp.cjs");
const BASELINES = ["expected-failures.json", "expected-failures-0.2.json"].map((f) =>
  join(ROOT, "test/conformance", f),
);
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
/** First use downloads Node 22 (~30 MB) and the suite; later runs start in about a second. */
const INSTALL_TIMEOUT_MS = 180_000;
/** One run of a suite; 0.2's `server-stateless` alone waits ~5 s for notifications that never come. */
const SUITE_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 20_000;

/** Runs `cmd args`, collecting output; never rejects (a spawn error is reported as exit code null). */
function run(cmd, args, { cwd, env = process.env, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      shell: process.platform === "win32",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs / 1000} s)`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => {
      stderr += `\n${err.message}`;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `npx` arguments that run `command…` with Node `node` and the suite at `conformance` first on the PATH. */
function npxArgs(runner, command) {
  return [
    "--yes",
    "--prefer-offline",
    "-p",
    `node@${runner.node}`,
    "-p",
    `@modelcontextprotocol/conformance@${runner.conformance}`,
    "--",
    ...command,
  ];
}

/** Npm's own chatter ("npm warn …") is noise here: keep the lines that say what went wrong. */
function withoutNpmWarnings(text) {
  return text
    .split("\n")
    .filter((l) => !/^npm warn /i.test(l))
    .join("\n")
    .trim();
}

/** Why npm failed: its error lines without the stack ("npm error code ECONNREFUSED … FetchError: …"). */
function npmFailure(text) {
  return withoutNpmWarnings(text)
    .split("\n")
    .filter((l) => !/^npm error\s+at /.test(l))
    .join("\n")
    .slice(0, 600);
}

/**
 * Whether the runner can be had: Node of the pinned version on the PATH npx builds, and the suite answering
 * --version. Returns null when it can, else the reason.
 */
export async function probeRunner(runner, cwd) {
  const node = await run(NPX, npxArgs(runner, ["node", "--version"]), { cwd, timeoutMs: INSTALL_TIMEOUT_MS });
  const version = node.stdout.trim();
  if (node.code !== 0) {
    return `npx could not provide node@${runner.node} (exit ${node.code}): ${npmFailure(node.stderr)}`;
  }
  if (version !== `v${runner.node}`)
    return `npx put ${version || "no node"} first on the PATH, not v${runner.node}`;
  const suite = await run(NPX, npxArgs(runner, ["conformance", "--version"]), {
    cwd,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (suite.code !== 0 || suite.stdout.trim() !== runner.conformance) {
    return `@modelcontextprotocol/conformance@${runner.conformance} did not run (exit ${suite.code}): ${npmFailure(suite.stderr)}`;
  }
  return null;
}

/**
 * A baseline file: `runner` {conformance, node, args?} and `scenarios` {"scenario" or "scenario:check-id":
 * reason}. Throws, naming the file and the entry, when it is malformed.
 */
export function loadBaseline(path) {
  let data;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`${path}: not a readable JSON file (${err.message})`);
  }
  const runner = data?.runner ?? {};
  const args = runner.args ?? [];
  if (typeof runner.conformance !== "string" || typeof runner.node !== "string") {
    throw new Error(
      `${path}: "runner" needs "conformance" and "node" versions, e.g. {"conformance": "0.1.16", "node": "22.23.3"}`,
    );
  }
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) {
    throw new Error(`${path}: "runner.args" must be a list of strings (the suite's own options)`);
  }
  const scenarios = new Map();
  const checks = new Map();
  for (const [key, reason] of Object.entries(data.scenarios ?? {})) {
    if (typeof reason !== "string" || reason.trim() === "")
      throw new Error(`${path}: "${key}" needs its reason`);
    const at = key.indexOf(":");
    if (at < 0) {
      scenarios.set(key, reason);
      continue;
    }
    const scenario = key.slice(0, at);
    const byCheck = checks.get(scenario) ?? new Map();
    byCheck.set(key.slice(at + 1), reason);
    checks.set(scenario, byCheck);
  }
  for (const scenario of checks.keys()) {
    if (scenarios.has(scenario)) {
      throw new Error(
        `${path}: "${scenario}" is listed both wholesale and per check; keep the per-check lines (narrower) or the scenario, not both`,
      );
    }
  }
  // The folder a --keep run leaves this run's results in, and --from reads them back from.
  const label = [runner.conformance, ...args].join("_").replace(/[^\w.-]+/g, "");
  return { path, runner: { ...runner, args }, scenarios, checks, label };
}

/** Our server on the embedded demo: none of the caller's PRESERVATION_* settings, a fresh data directory. */
function startServer(dataDir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PRESERVATION_")));
  env.PRESERVATION_DATA_DIR = dataDir;
  env.PRESERVATION_LOG_LEVEL = "warn";
  const child = spawn(process.execPath, [CLI, "--http", "--port", "0"], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line in ${START_TIMEOUT_MS / 1000} s:\n${stderr}`)),
      START_TIMEOUT_MS,
    );
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
      const m = stderr.match(/^listening on (http:\/\/\S+\/mcp)$/m);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const late = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(late);
    },
  };
}

/** The suite's statuses, most severe first: an id that occurs several times takes its worst occurrence. */
const SEVERITY = { FAILURE: 4, WARNING: 3, SUCCESS: 2, INFO: 1, SKIPPED: 0 };

/**
 * The suite writes one folder per scenario, `server-<scenario>-<ISO time>/checks.json`. Returns, per scenario,
 * each check id's worst status and message. A scenario fails when any of its checks is a FAILURE; one whose
 * checks are only warnings passes, noted as such.
 */
export function readResults(outDir) {
  const results = new Map();
  if (!existsSync(outDir)) return results;
  for (const name of readdirSync(outDir)) {
    const m = name.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    const file = join(outDir, name, "checks.json");
    if (!m || !existsSync(file)) continue;
    const checks = new Map();
    for (const c of JSON.parse(readFileSync(file, "utf8"))) {
      const seen = checks.get(c.id);
      if (seen && (SEVERITY[seen.status] ?? 0) >= (SEVERITY[c.status] ?? 0)) continue;
      checks.set(c.id, { status: c.status, message: c.errorMessage ?? c.description ?? "" });
    }
    const statuses = [...checks.values()].map((c) => c.status);
    results.set(m[1], {
      checks,
      passed: !statuses.includes("FAILURE"),
      successes: statuses.filter((s) => s === "SUCCESS").length,
      warnings: statuses.filter((s) => s === "WARNING").length,
      skipped: statuses.filter((s) => s === "SKIPPED").length,
    });
  }
  return results;
}

/**
 * One run's results against its baseline. Returns a line per scenario, and what failed unexpectedly, what is
 * listed but passed, and what is listed but did not run (each as `scenario` or `scenario:check-id`).
 */
export function compare(results, baseline) {
  const rows = [];
  const unexpected = [];
  const nowPassing = [];
  const notRun = [];
  let failingAsExpected = 0;
  for (const [scenario, r] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    const failing = [...r.checks].filter(([, c]) => c.status === "FAILURE");
    if (baseline.scenarios.has(scenario)) {
      if (r.passed) {
        nowPassing.push(scenario);
        rows.push(`  pass      ${scenario}  <- listed as expected to fail`);
      } else {
        failingAsExpected += 1;
        rows.push(`  expected  ${scenario}: ${baseline.scenarios.get(scenario)}`);
      }
      continue;
    }
    const listed = baseline.checks.get(scenario) ?? new Map();
    const surprises = failing.filter(([id]) => !listed.has(id));
    const stale = [];
    for (const [id, reason] of listed) {
      const c = r.checks.get(id);
      if (c?.status === "FAILURE") rows.push(`  expected  ${scenario}:${id}: ${reason}`);
      else if (c && c.status !== "SKIPPED") {
        nowPassing.push(`${scenario}:${id}`);
        stale.push(`${id} (${c.status.toLowerCase()})  <- listed as expected to fail`);
      } else if (failing.length === 0) {
        notRun.push(`${scenario}:${id}`);
        stale.push(`${id} (${c ? "skipped" : "absent"}) <- listed, but the scenario is otherwise clean`);
      }
    }
    for (const [id, c] of surprises) {
      // Most scenarios of 0.1 have one check named after the scenario: name it once.
      const key = id === scenario ? scenario : `${scenario}:${id}`;
      unexpected.push(key);
      rows.push(`  FAIL      ${key}: ${c.message}`);
    }
    if (failing.length > 0 && surprises.length === 0) failingAsExpected += 1;
    if (failing.length === 0) {
      const note =
        r.successes === 0 ? ` (no check succeeded: ${r.warnings} warning(s), ${r.skipped} skipped)` : "";
      rows.push(`  pass      ${scenario}${note}`);
    }
    for (const s of stale) rows.push(`  pass      ${scenario}:${s}`);
  }
  const listedScenarios = new Set([...baseline.scenarios.keys(), ...baseline.checks.keys()]);
  for (const scenario of listedScenarios) {
    if (!results.has(scenario)) {
      notRun.push(scenario);
      rows.push(`  NOT RUN   ${scenario} (listed in the baseline)`);
    }
  }
  return { rows, unexpected, nowPassing, notRun, failingAsExpected };
}

function summary(results, verdict, baseline) {
  const passed = [...results.values()].filter((r) => r.passed).length;
  const lines = [
    `conformance ${baseline.runner.conformance}: ${results.size} scenarios run; ${passed} pass, ` +
      `${verdict.failingAsExpected} fail as expected, ` +
      `${verdict.unexpected.length} fail unexpectedly, ${verdict.nowPassing.length} listed ones now pass, ` +
      `${verdict.notRun.length} listed ones did not run`,
  ];
  if (verdict.nowPassing.length > 0) {
    lines.push(`now passing: remove ${verdict.nowPassing.join(", ")} from ${baseline.path}`);
  }
  const limited = [...results.values()].some((r) =>
    [...r.checks.values()].some((c) => /too many requests/i.test(c.message)),
  );
  if (limited) {
    lines.push(
      "the server's per-client rate limit answered some requests (429): a suite that grew past 600 requests a " +
        "minute needs PRESERVATION_HTTP_RATE raised for its server in this script",
    );
  }
  return lines;
}

/** One suite against one server (ours unless `givenUrl`), or results kept earlier; returns {code, text}. */
async function runBaseline(baseline, { work, givenUrl, from }) {
  const { runner } = baseline;
  const head = `== conformance ${runner.conformance} ${runner.args.join(" ") || "(active suite)"} on Node ${runner.node}, baseline ${baseline.path}`;
  const outDir = join(from ?? work, baseline.label);
  const started = Date.now();
  let server;
  let url = givenUrl;
  try {
    if (!from) {
      if (!url) {
        server = startServer(join(work, `data-${baseline.label}`));
        try {
          url = await server.url;
        } catch (err) {
          return { code: 2, text: `${head}\nour server did not start: ${err.message}` };
        }
      }
      const suite = await run(
        NPX,
        npxArgs(runner, ["conformance", "server", "--url", url, ...runner.args, "-o", outDir]),
        { cwd: work, timeoutMs: INSTALL_TIMEOUT_MS + SUITE_TIMEOUT_MS },
      );
      if (readResults(outDir).size === 0) {
        const unavailable = await probeRunner(runner, work);
        if (unavailable) return { code: 3, text: `${head}\nconformance runner unavailable: ${unavailable}` };
        const output = withoutNpmWarnings(suite.stdout + suite.stderr).slice(-2000);
        return { code: 2, text: `${head}\nthe suite produced no results (exit ${suite.code}):\n${output}` };
      }
    }
  } finally {
    await server?.stop();
  }
  const results = readResults(outDir);
  if (results.size === 0) return { code: 2, text: `${head}\nno results in ${outDir}` };
  const verdict = compare(results, baseline);
  const where = from
    ? `results kept in ${outDir}`
    : `against ${url}, ${((Date.now() - started) / 1000).toFixed(1)} s`;
  const ok = verdict.unexpected.length + verdict.nowPassing.length + verdict.notRun.length === 0;
  return {
    code: ok ? 0 : 1,
    text: [head, ...verdict.rows, ...summary(results, verdict, baseline), where].join("\n"),
  };
}

async function main(argv) {
  const options = (name) => argv.flatMap((a, i) => (a === name && i + 1 < argv.length ? [argv[i + 1]] : []));
  const paths = options("--expected").length > 0 ? options("--expected") : BASELINES;
  let baselines;
  try {
    baselines = paths.map(loadBaseline);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  const labels = baselines.map((b) => b.label);
  if (new Set(labels).size !== labels.length) {
    process.stderr.write(`two baselines name the same runner and arguments (${labels.join(", ")})\n`);
    return 2;
  }
  const [givenUrl] = options("--url");
  const [from] = options("--from");
  const keep = argv.includes("--keep");
  const work = mkdtempSync(join(tmpdir(), "pmcp-conformance-"));
  try {
    if (argv.includes("--probe")) {
      const reasons = await Promise.all(baselines.map((b) => probeRunner(b.runner, work)));
      let code = 0;
      baselines.forEach(({ runner }, i) => {
        if (reasons[i]) {
          process.stderr.write(`conformance runner unavailable: ${reasons[i]}\n`);
          code = 3;
        } else process.stdout.write(`runner ready: node ${runner.node}, conformance ${runner.conformance}\n`);
      });
      return code;
    }
    if (!from && !givenUrl && !existsSync(CLI)) {
      process.stderr.write(`${CLI} is missing: run \`npm run build\` first\n`);
      return 2;
    }
    const started = Date.now();
    // Side by side: each run is one process waiting on its server most of the time, and the 0.2 run's length
    // (server-stateless) then hides the 0.1 run's.
    const outcomes = await Promise.all(baselines.map((b) => runBaseline(b, { work, givenUrl, from })));
    for (const o of outcomes) process.stdout.write(`${o.text}\n`);
    const codes = outcomes.map((o) => o.code);
    const code = [2, 1, 3].find((c) => codes.includes(c)) ?? 0;
    process.stdout.write(
      `conformance: ${baselines.length} run(s), ${codes.filter((c) => c === 0).length} match their baselines; ` +
        `${((Date.now() - started) / 1000).toFixed(1)} s in all\n`,
    );
    if (keep) process.stdout.write(`checks kept in ${work}\n`);
    return code;
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
