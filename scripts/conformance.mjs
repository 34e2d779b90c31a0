#!/usr/bin/env node
/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`, its server scenarios, active suite)
 * against our Streamable HTTP server and compares the failures with the reviewed baseline
 * test/conformance/expected-failures.json.
 *
 *   node scripts/conformance.mjs            start `cli.js --http --port 0` on the embedded demo (a temporary
 *                                           data directory), run the suite against its /mcp, compare
 *   node scripts/conformance.mjs --url U    run against a server already listening at U instead
 *   node scripts/conformance.mjs --probe    only check that the runner (Node 22 + the suite) can be had
 *   node scripts/conformance.mjs --keep     keep the suite's checks.json files and print where they are
 *   node scripts/conformance.mjs --expected FILE   compare with FILE instead of the baseline (its tests)
 *
 * Exit codes: 0 the results match the baseline; 1 an unexpected failure, or a listed failure that now passes
 * (remove its line), or a listed scenario that did not run; 2 our server did not start or the suite produced
 * no results; 3 the runner cannot be had here (npm registry unreachable and nothing cached).
 *
 * The suite needs Node >= 22 (it crashes on Node 20), while this project runs on Node 20: the runner comes
 * from `npx -p node@<v> -p @modelcontextprotocol/conformance@<v>`, the npm registry's `node` package putting a
 * Node 22 binary first on the PATH of that one command. Not a devDependency: its bin is named `node`, so it
 * would shadow Node 20 in every npm script of the project. npx caches it (~/.npm/_npx); --prefer-offline
 * reuses the cache without asking the registry. Versions come from the baseline file, reviewed together.
 * Run `npm run build` first: the server is dist/src/cli.js.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(ROOT, "dist/src/cli.js");
const BASELINE_PATH = join(ROOT, "test/conformance/expected-failures.json");
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
/** First use downloads Node 22 (~30 MB) and the suite; later runs take about a second each. */
const INSTALL_TIMEOUT_MS = 180_000;
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

/**
 * Whether the runner can be had: Node of the pinned major on the PATH npx builds, and the suite answering
 * --version. Returns null when it can, else the reason.
 */
export async function probeRunner(runner, cwd) {
  const node = await run(NPX, npxArgs(runner, ["node", "--version"]), { cwd, timeoutMs: INSTALL_TIMEOUT_MS });
  const version = node.stdout.trim();
  if (node.code !== 0) {
    return `npx could not provide node@${runner.node} (exit ${node.code}): ${withoutNpmWarnings(node.stderr).slice(-600)}`;
  }
  if (version !== `v${runner.node}`)
    return `npx put ${version || "no node"} first on the PATH, not v${runner.node}`;
  const suite = await run(NPX, npxArgs(runner, ["conformance", "--version"]), {
    cwd,
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (suite.code !== 0 || suite.stdout.trim() !== runner.conformance) {
    return `@modelcontextprotocol/conformance@${runner.conformance} did not run (exit ${suite.code}): ${withoutNpmWarnings(suite.stderr).slice(-600)}`;
  }
  return null;
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

/**
 * The suite writes one folder per scenario, `server-<scenario>-<ISO time>/checks.json`. A scenario fails when
 * any of its checks is a FAILURE; one whose checks are only warnings passes, noted as such.
 */
export function readResults(outDir) {
  const results = new Map();
  for (const name of readdirSync(outDir)) {
    const m = name.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    const file = join(outDir, name, "checks.json");
    if (!m || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, "utf8"));
    const failures = checks.filter((c) => c.status === "FAILURE");
    results.set(m[1], {
      passed: failures.length === 0,
      successes: checks.filter((c) => c.status === "SUCCESS").length,
      warnings: checks.filter((c) => c.status === "WARNING").length,
      why: failures.map((c) => c.errorMessage ?? c.description ?? c.id).join("; "),
    });
  }
  return results;
}

/** Results against the baseline: what failed unexpectedly, what is listed but passed or did not run. */
export function compare(results, expected) {
  const unexpected = [];
  const nowPassing = [];
  const notRun = [];
  for (const [scenario, r] of results) {
    if (!r.passed && !(scenario in expected)) unexpected.push(scenario);
    if (r.passed && scenario in expected) nowPassing.push(scenario);
  }
  for (const scenario of Object.keys(expected)) if (!results.has(scenario)) notRun.push(scenario);
  return { unexpected, nowPassing, notRun };
}

function report(results, expected, verdict, baselinePath) {
  const lines = [];
  for (const [scenario, r] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
    if (r.passed) {
      const note = r.successes === 0 ? ` (no check succeeded; ${r.warnings} warning(s))` : "";
      lines.push(
        `  pass      ${scenario}${note}${scenario in expected ? "  <- listed as expected to fail" : ""}`,
      );
    } else if (scenario in expected) {
      lines.push(`  expected  ${scenario}: ${expected[scenario]}`);
    } else {
      lines.push(`  FAIL      ${scenario}: ${r.why}`);
    }
  }
  for (const s of verdict.notRun) lines.push(`  NOT RUN   ${s} (listed in the baseline)`);
  const passed = [...results.values()].filter((r) => r.passed).length;
  const expectedFails = [...results].filter(([s, r]) => !r.passed && s in expected).length;
  lines.push(
    `conformance: ${results.size} scenarios run; ${passed} pass, ${expectedFails} fail as expected, ` +
      `${verdict.unexpected.length} fail unexpectedly, ${verdict.nowPassing.length} listed ones now pass, ` +
      `${verdict.notRun.length} listed ones did not run`,
  );
  if (verdict.nowPassing.length > 0) {
    lines.push(`now passing: remove ${verdict.nowPassing.join(", ")} from ${baselinePath}`);
  }
  return lines.join("\n");
}

async function main(argv) {
  const option = (name) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const baselinePath = option("--expected") ?? BASELINE_PATH;
  const { runner, scenarios: expected } = JSON.parse(readFileSync(baselinePath, "utf8"));
  const givenUrl = option("--url");
  const work = mkdtempSync(join(tmpdir(), "pmcp-conformance-"));
  const keep = argv.includes("--keep");
  let server;
  try {
    const started = Date.now();
    const unavailable = await probeRunner(runner, work);
    if (unavailable) {
      process.stderr.write(`conformance runner unavailable: ${unavailable}\n`);
      return 3;
    }
    if (argv.includes("--probe")) {
      process.stdout.write(`runner ready: node ${runner.node}, conformance ${runner.conformance}\n`);
      return 0;
    }
    const runnerMs = Date.now() - started;

    let url = givenUrl;
    if (!url) {
      if (!existsSync(CLI)) {
        process.stderr.write(`${CLI} is missing: run \`npm run build\` first\n`);
        return 2;
      }
      server = startServer(join(work, "data"));
      try {
        url = await server.url;
      } catch (err) {
        process.stderr.write(`${err.message}\n`);
        return 2;
      }
    }

    const suiteStarted = Date.now();
    const outDir = join(work, "results");
    const suite = await run(NPX, npxArgs(runner, ["conformance", "server", "--url", url, "-o", outDir]), {
      cwd: work,
      timeoutMs: SUITE_TIMEOUT_MS,
    });
    const results = existsSync(outDir) ? readResults(outDir) : new Map();
    if (results.size === 0) {
      process.stderr.write(
        `the suite produced no results (exit ${suite.code}):\n${withoutNpmWarnings(suite.stdout + suite.stderr).slice(-2000)}\n`,
      );
      return 2;
    }
    const verdict = compare(results, expected);
    process.stdout.write(`${report(results, expected, verdict, baselinePath)}\n`);
    process.stdout.write(
      `against ${url} with conformance ${runner.conformance} on Node ${runner.node}: ` +
        `runner check ${(runnerMs / 1000).toFixed(1)} s, suite ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s\n`,
    );
    if (keep) process.stdout.write(`checks kept in ${outDir}\n`);
    const ok = verdict.unexpected.length + verdict.nowPassing.length + verdict.notRun.length === 0;
    return ok ? 0 : 1;
  } finally {
    await server?.stop();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
