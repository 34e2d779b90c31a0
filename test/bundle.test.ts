import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getMcpConfigForManifest, type McpbManifestAny, unpackExtension } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { manifestDrift } from "../scripts/manifest.mjs";
import { ALL_TOOLS } from "../src/tools/index.js";

/**
 * The MCP Bundle: manifest.json agrees with the code and passes `mcpb validate`; the packed .mcpb, unpacked
 * into an empty folder far from this checkout's node_modules, starts as a host starts it and answers.
 */

const ROOT = resolve(import.meta.dirname, "..");
const MCPB = join(ROOT, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const manifest = JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8"));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

const temps: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("manifest.json", () => {
  it("passes mcpb validate", () => {
    const out = execFileSync(process.execPath, [MCPB, "validate", join(ROOT, "manifest.json")], {
      encoding: "utf8",
    });
    expect(out).toMatch(/validation passes/);
  });

  it("lists every tool of the registry with its description, and package.json's version", () => {
    // On failure: `npm run manifest` regenerates the list from src/tools/index.ts.
    expect(manifestDrift(manifest, pkg, ALL_TOOLS)).toEqual([]);
    expect(manifest.tools.map((t: { name: string }) => t.name)).toEqual(ALL_TOOLS.map((t) => t.name));
  });

  it("configures every setting the issue names, the password as a secret, with defaults for all", () => {
    const config = manifest.user_config as Record<
      string,
      { type: string; sensitive?: boolean; default?: unknown }
    >;
    expect(Object.keys(config).sort()).toEqual(
      [
        "download_dir",
        "ingest_roots",
        "password",
        "read_only",
        "repository_url",
        "tenant",
        "toolsets",
        "username",
      ].sort(),
    );
    expect(config.password?.sensitive).toBe(true);
    expect(config.download_dir?.type).toBe("directory");
    expect(config.ingest_roots?.type).toBe("directory");
    // A setting without a default reaches the server as the literal text "${user_config.x}".
    for (const [key, option] of Object.entries(config)) expect(option.default, key).toBeDefined();
  });

  it("names package.json's license, and LICENSE is that license", () => {
    expect(manifest.license).toBe(pkg.license);
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
  });
});

describe("the packed bundle", () => {
  it("unpacked into an empty folder, starts as a host starts it, lists tools and answers a search", async () => {
    const work = tempDir("pmcp-bundle-test-");
    const file = join(work, "preservation-mcp.mcpb");
    execFileSync(process.execPath, [join(ROOT, "scripts", "bundle.mjs"), "--out", file], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const unpacked = tempDir("pmcp-bundle-unpacked-");
    expect(await unpackExtension({ mcpbPath: file, outputDir: unpacked, silent: true })).toBe(true);
    // Only production dependencies: no test or build tools travel in the bundle.
    expect(() => readFileSync(join(unpacked, "node_modules", "vitest", "package.json"))).toThrow();

    const packed = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8")) as McpbManifestAny;
    // The host's own expansion of ${__dirname} and ${user_config.*}: every setting left at its default,
    // so the embedded demo repository serves (read-only, the bundle's default).
    const config = await getMcpConfigForManifest({
      manifest: packed,
      extensionPath: unpacked,
      systemDirs: {},
      userConfig: {},
      pathSeparator: "/",
    });
    if (!config) throw new Error("the host would not start this bundle (required settings missing)");
    expect(config.command).toBe("node");
    const home = tempDir("pmcp-bundle-home-");
    let stderr = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), HOME: home, XDG_DATA_HOME: home, ...(config.env ?? {}) },
      cwd: home,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: "bundle-smoke", version: "1.0.0" });
    try {
      await client.connect(transport).catch((err: Error) => {
        throw new Error(`${err.message}\n--- server stderr ---\n${stderr}`);
      });
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain("search");
      expect(tools).not.toContain("update_entity");
      const answer = await client.callTool({
        name: "search",
        arguments: { query: "harbour master", limit: 3 },
      });
      expect(answer.isError, JSON.stringify(answer.content)).not.toBe(true);
      expect((answer.structuredContent as { hits?: unknown[] }).hits?.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 90_000);
});
