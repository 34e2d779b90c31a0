import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv } from "./helpers.js";

/**
 * The package as a person installs it today: `npm pack` here, then `npm install <tarball>` in an empty
 * folder, using only the npm registry and its cache. Nothing of this checkout (its node_modules, dist/)
 * is reachable from there, so a missing file in the tarball or a dependency declared as dev fails here.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "pmcp-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm pack, then npm install <tarball> in an empty folder", () => {
  it("installs, and npx preservation-mcp answers --version, --help and runs the tour", () => {
    // dist/ is built already (npm test's pretest): pack with the pack scripts, but without building again.
    const manifestBefore = readFileSync(join(ROOT, "package.json"), "utf8");
    execFileSync("npm", ["pack", "--pack-destination", work], {
      cwd: ROOT,
      env: { ...process.env, PRESERVATION_PACK_NO_BUILD: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    });
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBe(`${pkg.name}-${pkg.version}.tgz`);
    // The checkout's package.json is put back as it was; the packed one has no install-time script.
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toBe(manifestBefore);

    // A folder of its own with a package.json: npm must not climb to a parent project (or /tmp's).
    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "probe", private: true }));
    const install = spawnSync(
      "npm",
      ["install", join(work, tarball as string), "--prefer-offline", "--no-audit", "--no-fund"],
      { cwd: app, encoding: "utf8", timeout: 120_000 },
    );
    expect(install.status, install.stderr).toBe(0);
    // npm warns "install-scripts … (prepare: npm run build)" for a package that keeps an install-time script.
    expect(install.stderr).not.toMatch(/install-scripts|prepare/);
    const installed = JSON.parse(readFileSync(join(app, "node_modules", pkg.name, "package.json"), "utf8"));
    for (const script of ["preinstall", "install", "postinstall", "prepare"]) {
      expect(installed.scripts?.[script]).toBeUndefined();
    }

    const npx = (args: string[], extra: Record<string, string> = {}) =>
      spawnSync("npx", ["--no-install", "preservation-mcp", ...args], {
        cwd: app,
        env: childEnv({ ...extra, PATH: process.env.PATH }),
        encoding: "utf8",
        timeout: 60_000,
      });
    const version = npx(["--version"]);
    expect(version.stderr.replace(/^npm warn .*\n/gm, "")).toBe("");
    expect(version.stdout).toBe(`${pkg.version}\n`);
    expect(version.status).toBe(0);

    const help = npx(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: preservation-mcp/);

    // The embedded demo repository from the installed package: its SQLite binding loads here.
    const data = join(work, "data");
    const tour = npx(["tour"], { PRESERVATION_DATA_DIR: data });
    expect(tour.status, tour.stderr).toBe(0);
    expect(tour.stdout).toMatch(/That is the tour/);
  }, 180_000);
});
