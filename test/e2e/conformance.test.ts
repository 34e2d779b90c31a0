import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../helpers/temp-dir.js";

/**
 * The MCP conformance suite against our Streamable HTTP server, through scripts/conformance.mjs (which starts
 * the built CLI on the embedded demo, once per run, and runs 0.1.16 and the 0.2 line's 2026-07-28
 * requirements side by side under Node 22 from npx). Skipped, with the reason, only when a runner cannot be
 * had here (script exit 3: registry unreachable and nothing cached). The second test re-reads the first one's
 * results against altered baselines instead of running the suites again.
 */

const SCRIPT = fileURLToPath(new URL("../../scripts/conformance.mjs", import.meta.url));
const BASELINE_01 = fileURLToPath(new URL("../conformance/expected-failures.json", import.meta.url));
const BASELINE_02 = fileURLToPath(new URL("../conformance/expected-failures-0.2.json", import.meta.url));
/** A cold npx cache installs Node 22 and both suites (~10 s here, up to the script's 180 s limit), then runs. */
const FULL_RUN_MS = 330_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runScript(args: string[], timeout: number): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { timeout }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The lines of one run's section of the output (from its `== conformance <version>` header to the next). */
function section(stdout: string, version: string): string {
  const parts = stdout.split(/^(?===)/m);
  const found = parts.find((p) => p.startsWith(`== conformance ${version} `));
  if (!found) throw new Error(`no section for conformance ${version} in:\n${stdout}`);
  return found;
}

/** Scenarios that do not depend on the reference server's fixtures, so they must pass against ours. */
const GENERIC_01 = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
];
const GENERIC_02 = [
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
  "caching",
  "sep-2164-resource-not-found",
  "http-header-validation",
  "input-required-result-unsupported-methods",
  "input-required-result-validate-input",
];
const CLEAN = / 0 fail unexpectedly, 0 listed ones now pass, 0 listed ones did not run$/m;

const work = tempDir("pmcp-conformance-test-");
let kept: string | undefined;
let unavailable: string | undefined;
afterAll(() => {
  if (kept) rmSync(kept, { recursive: true, force: true });
});

describe("MCP conformance suite (server scenarios) over Streamable HTTP", () => {
  it(
    "0.1.16 and 0.2 (2026-07-28 requirements) match their reviewed expected failures; the generic scenarios pass",
    async (ctx) => {
      const run = await runScript(["--keep"], FULL_RUN_MS);
      kept = run.stdout.match(/^checks kept in (.+)$/m)?.[1];
      if (run.code === 3) {
        unavailable = run.stderr.trim() || run.stdout.trim();
        ctx.skip(`conformance runner not available here: ${unavailable}`);
      }
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);

      const v01 = JSON.parse(readFileSync(BASELINE_01, "utf8")).runner.conformance;
      const old = section(run.stdout, v01);
      for (const scenario of GENERIC_01) expect(old).toMatch(new RegExp(`^ {2}pass {6}${scenario}$`, "m"));
      expect(old).toMatch(CLEAN);

      const v02 = JSON.parse(readFileSync(BASELINE_02, "utf8")).runner.conformance;
      const next = section(run.stdout, v02);
      expect(next).toMatch(/^== conformance 0\.2\.\S+ --requirements 2026-07-28 /);
      for (const scenario of GENERIC_02) expect(next).toMatch(new RegExp(`^ {2}pass {6}${scenario}$`, "m"));
      // server-stateless is listed check by check: its other ~25 checks (per-request _meta, server/discover,
      // 400/404 mapping, subscriptions/listen) ran and passed, or the run would not be clean.
      expect(next).toMatch(/^ {2}expected {2}server-stateless:sep-2575-server-no-log-without-loglevel: /m);
      expect(next).toMatch(CLEAN);
      expect(run.stdout).toMatch(/^conformance: 2 run\(s\), 2 match their baselines; /m);
    },
    FULL_RUN_MS,
  );

  it("fails on an unlisted failure, a listed scenario or check that passes, and a listed one that did not run", async (ctx) => {
    if (unavailable) ctx.skip(`conformance runner not available here: ${unavailable}`);
    expect(kept, "the first test keeps its results for this one").toBeDefined();

    const old = JSON.parse(readFileSync(BASELINE_01, "utf8"));
    delete old.scenarios["tools-call-simple-text"];
    old.scenarios.ping = "wrongly listed";
    old.scenarios["no-such-scenario"] = "never runs";
    const next = JSON.parse(readFileSync(BASELINE_02, "utf8"));
    delete next.scenarios["server-stateless:sep-2575-server-no-log-without-loglevel"];
    next.scenarios["server-stateless:sep-2575-server-implements-discover"] = "wrongly listed";
    next.scenarios["tools-list:no-such-check"] = "never runs in a scenario that is otherwise clean";
    writeFileSync(join(work, "old.json"), JSON.stringify(old));
    writeFileSync(join(work, "next.json"), JSON.stringify(next));

    const run = await runScript(
      ["--from", kept as string, "--expected", join(work, "old.json"), "--expected", join(work, "next.json")],
      20_000,
    );
    expect(run.code, run.stderr).toBe(1);
    const a = section(run.stdout, old.runner.conformance);
    expect(a).toMatch(/^ {2}FAIL {6}tools-call-simple-text: .*test_simple_text/m);
    expect(a).toMatch(/^ {2}pass {6}ping {2}<- listed as expected to fail$/m);
    expect(a).toMatch(/^ {2}NOT RUN {3}no-such-scenario/m);
    expect(a).toMatch(/1 fail unexpectedly, 1 listed ones now pass, 1 listed ones did not run$/m);
    const b = section(run.stdout, next.runner.conformance);
    expect(b).toMatch(
      /^ {2}FAIL {6}server-stateless:sep-2575-server-no-log-without-loglevel: .*test_logging_tool/m,
    );
    expect(b).toMatch(
      /^ {2}pass {6}server-stateless:sep-2575-server-implements-discover \(success\) {2}<- listed as expected to fail$/m,
    );
    expect(b).toMatch(
      /^ {2}pass {6}tools-list:no-such-check \(absent\) <- listed, but the scenario is otherwise clean$/m,
    );
    expect(b).toMatch(/1 fail unexpectedly, 1 listed ones now pass, 1 listed ones did not run$/m);
    expect(b).toMatch(/^now passing: remove server-stateless:sep-2575-server-implements-discover from /m);
    expect(run.stdout).toMatch(/^conformance: 2 run\(s\), 0 match their baselines; /m);
  });

  it("refuses a baseline that lists a scenario both wholesale and per check", async () => {
    const next = JSON.parse(readFileSync(BASELINE_02, "utf8"));
    next.scenarios["server-stateless"] = "wholesale as well";
    writeFileSync(join(work, "both.json"), JSON.stringify(next));
    const run = await runScript(["--from", work, "--expected", join(work, "both.json")], 20_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /both\.json: "server-stateless" is listed both wholesale and per check; keep /,
    );
  });
});
