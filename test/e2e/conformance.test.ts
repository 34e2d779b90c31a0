import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The MCP conformance suite against our Streamable HTTP server, through scripts/conformance.mjs (which starts
 * the built CLI on the embedded demo and runs the suite under Node 22 from npx). Skipped, with the reason, only
 * when the runner cannot be had here (script exit 3: registry unreachable and nothing cached).
 */

const SCRIPT = fileURLToPath(new URL("../../scripts/conformance.mjs", import.meta.url));
const BASELINE = fileURLToPath(new URL("../conformance/expected-failures.json", import.meta.url));

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

/** Scenarios that do not depend on the reference server's fixtures, so they must pass against ours. */
const GENERIC = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
];

let unavailable: string | undefined;
const work = mkdtempSync(join(tmpdir(), "pmcp-conformance-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  // The first run on a machine downloads Node 22 and the suite (~10 s here); later ones use npx's cache.
  const probe = await runScript(["--probe"], 190_000);
  if (probe.code === 3) unavailable = probe.stderr.trim();
  else expect(probe.code, probe.stderr).toBe(0);
}, 200_000);

describe("MCP conformance suite (server scenarios) over Streamable HTTP", () => {
  it("matches the reviewed expected failures, and the generic scenarios pass", async (ctx) => {
    if (unavailable) ctx.skip(`conformance runner not available here: ${unavailable}`);
    const run = await runScript([], 120_000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    for (const scenario of GENERIC) expect(run.stdout).toMatch(new RegExp(`^ {2}pass {6}${scenario}$`, "m"));
    expect(run.stdout).toMatch(/ 0 fail unexpectedly, 0 listed ones now pass, 0 listed ones did not run$/m);
  }, 120_000);

  it("fails on an unlisted failure, a listed scenario that passes, and a listed one that did not run", async (ctx) => {
    if (unavailable) ctx.skip(`conformance runner not available here: ${unavailable}`);
    const baseline = JSON.parse(readFileSync(BASELINE, "utf8"));
    delete baseline.scenarios["tools-call-simple-text"];
    baseline.scenarios.ping = "wrongly listed";
    baseline.scenarios["no-such-scenario"] = "never runs";
    const altered = join(work, "altered.json");
    writeFileSync(altered, JSON.stringify(baseline));

    const run = await runScript(["--expected", altered], 120_000);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^ {2}FAIL {6}tools-call-simple-text: .*test_simple_text/m);
    expect(run.stdout).toMatch(/^ {2}pass {6}ping {2}<- listed as expected to fail$/m);
    expect(run.stdout).toMatch(/^ {2}NOT RUN {3}no-such-scenario/m);
    expect(run.stdout).toMatch(/1 fail unexpectedly, 1 listed ones now pass, 1 listed ones did not run$/m);
  }, 120_000);
});
