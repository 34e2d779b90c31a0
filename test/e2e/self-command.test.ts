import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { CLI } from "../helpers/process.js";
import { startTestRepository } from "../helpers/repository.js";
import { tempDir } from "../helpers/temp-dir.js";
import { childEnv, remoteEnv } from "./helpers.js";

/**
 * Hints name the command that works where the program runs: `preservation-mcp …` only when that name on PATH is
 * this program, `npm start` / `npm run tour` in the checkout, else `node <path to the bundle> …`.
 */

const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url));
let repo: RunningRepository;
const scratch = tempDir("pmcp-self-");
beforeAll(async () => {
  repo = await startTestRepository();
});
afterAll(async () => {
  await repo?.close();
});

/** The banner's hint of an HTTP server started in `cwd` with `PATH`. */
async function bannerHint(cwd: string, path: string): Promise<string> {
  const env = { ...childEnv(remoteEnv(repo.url)), PATH: path };
  const child = spawn(process.execPath, [CLI, "--http", "--port", "0"], {
    cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.setEncoding("utf8");
  try {
    for await (const chunk of child.stderr) {
      err += chunk;
      const hint = err.match(/or run `([^`]+)` to see the tools at work/)?.[1];
      if (hint) return hint;
    }
    throw new Error(`no hint in:\n${err}`);
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit").catch(() => {});
  }
}

const NODE_ONLY_PATH = dirname(process.execPath);

it("outside the checkout, with no preservation-mcp on PATH: node and the bundle's absolute path", async () => {
  expect(await bannerHint(scratch, NODE_ONLY_PATH)).toBe(`node ${CLI} tour`);
});

it("in the checkout: the npm script", async () => {
  expect(await bannerHint(CHECKOUT, NODE_ONLY_PATH)).toBe("npm run tour");
});

it("with this program on PATH as preservation-mcp (a global or linked install): the name", async () => {
  const bin = join(scratch, "bin");
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin);
  symlinkSync(CLI, join(bin, "preservation-mcp"));
  expect(await bannerHint(scratch, `${bin}:${NODE_ONLY_PATH}`)).toBe("preservation-mcp tour");
});
