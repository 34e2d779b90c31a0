import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { getMcpConfigForManifest, type McpbManifestAny, unpackExtension } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { libsqlPlatformPackages, platformPackageProblem } from "../scripts/libsql-binaries.mjs";
import { manifestDrift } from "../scripts/manifest.mjs";
import { type BinaryTarget, binaryTarget, fileBinaryTarget } from "../scripts/native-binary.mjs";
import { ALL_PROMPTS } from "../src/prompts/index.js";
import { ALL_TOOLS } from "../src/tools/index.js";
import { outerTmpdir, tempDir } from "./helpers/temp-dir.js";

/**
 * The MCP Bundle: manifest.json agrees with the code and passes `mcpb validate`; the packed .mcpb, unpacked
 * into an empty folder far from this checkout's node_modules, starts as a host starts it and answers; it
 * carries libsql's SQLite binary for every platform it claims (fetched from the npm registry at bundle time,
 * the tarballs cached in the system's temporary folder between runs).
 */

const ROOT = resolve(import.meta.dirname, "..");
const MCPB = join(ROOT, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const manifest = JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8"));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

describe("manifest.json", () => {
  it("passes mcpb validate", () => {
    const out = execFileSync(process.execPath, [MCPB, "validate", join(ROOT, "manifest.json")], {
      encoding: "utf8",
    });
    expect(out).toMatch(/validation passes/);
  });

  it("lists every tool of the registry and every prompt with their descriptions, and package.json's version", () => {
    // On failure: `npm run manifest` regenerates the lists from src/tools/index.ts and src/prompts/index.ts.
    expect(manifestDrift(manifest, pkg, ALL_TOOLS, ALL_PROMPTS)).toEqual([]);
    expect(manifest.tools.map((t: { name: string }) => t.name)).toEqual(ALL_TOOLS.map((t) => t.name));
    expect(manifest.prompts.map((p: { name: string }) => p.name)).toEqual(ALL_PROMPTS.map((p) => p.name));
    // Each argument named in a prompt's text is one it declares (MCPB fills in ${arguments.NAME}).
    for (const p of manifest.prompts as { arguments?: string[]; text: string }[]) {
      for (const [, name] of p.text.matchAll(/\$\{arguments\.([^}]+)\}/g))
        expect(p.arguments).toContain(name);
    }
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

/**
 * The entries of a zip that `wanted` names, by name, with their bytes (yauzl checks each one's CRC as it reads).
 * Every entry's record is read, so a damaged central directory still fails here; only the wanted ones are
 * inflated (all ~3,400 took ~3 s; the unpack test below extracts every one anyway).
 */
async function readZip(file: string, wanted: (name: string) => boolean): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, strictFileNames: true });
  const entries = new Map<string, Buffer>();
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith("/") || !wanted(entry.fileName)) continue;
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      entries.set(entry.fileName, Buffer.concat(chunks));
    }
  } finally {
    zip.close();
  }
  return entries;
}

describe("libsql's platform packages", () => {
  const libsqlPackages = libsqlPlatformPackages(join(ROOT, "node_modules"));

  it("include macOS, Windows and Linux for x64, and macOS and Linux for arm64", () => {
    const names = libsqlPackages.map((p) => p.name);
    for (const name of [
      "darwin-x64",
      "darwin-arm64",
      "win32-x64-msvc",
      "linux-x64-gnu",
      "linux-arm64-musl",
    ]) {
      expect(names).toContain(`@libsql/${name}`);
    }
  });

  it("a staged package whose binary is built for another platform than it declares is refused", () => {
    const nodeModules = tempDir("pmcp-bundle-mismatch-");
    const dir = join(nodeModules, "@libsql", "darwin-arm64");
    mkdirSync(dir, { recursive: true });
    // This machine's binary (ELF) under the macOS package's name: what a careless copy would stage.
    const own = libsqlPackages.find((p) => existsSync(join(ROOT, "node_modules", p.name, "index.node")));
    if (!own) throw new Error("npm installed no @libsql platform package here");
    copyFileSync(join(ROOT, "node_modules", own.name, "index.node"), join(dir, "index.node"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "@libsql/darwin-arm64", version: own.version, os: ["darwin"], cpu: ["arm64"] }),
    );
    const built = fileBinaryTarget(join(dir, "index.node"));
    expect(platformPackageProblem(nodeModules, { name: "@libsql/darwin-arm64", version: own.version })).toBe(
      `@libsql/darwin-arm64: declares darwin-arm64, its binary is built for ${built.platform}-${built.arch}`,
    );
  });
});

describe("the packed bundle", () => {
  let file = "";
  beforeAll(() => {
    file = join(tempDir("pmcp-bundle-test-"), "preservation-mcp.mcpb");
    execFileSync(process.execPath, [join(ROOT, "scripts", "bundle.mjs"), "--out", file], {
      cwd: ROOT,
      // The system's temporary directory, not the test file's own: the script keeps the tarballs it fetched
      // there between runs (scripts/libsql-binaries.mjs), and removes the rest it makes there.
      env: { ...process.env, TMPDIR: outerTmpdir() },
      stdio: ["ignore", "ignore", "pipe"],
    });
  }, 150_000);

  it("carries a libsql binary built for each platform it claims, one per package libsql pins", async () => {
    const entries = await readZip(
      file,
      (name) => name === "manifest.json" || name.startsWith("node_modules/@libsql/"),
    );
    const claimed = (JSON.parse(entries.get("manifest.json")?.toString() ?? "{}") as typeof manifest)
      .compatibility.platforms as string[];
    expect(claimed.sort()).toEqual(["darwin", "linux", "win32"]);

    const built = new Map<string, BinaryTarget>();
    for (const { name, version } of libsqlPlatformPackages(join(ROOT, "node_modules"))) {
      const binary = entries.get(`node_modules/${name}/index.node`);
      const json = entries.get(`node_modules/${name}/package.json`);
      expect(binary, `${name} in the bundle`).toBeDefined();
      const declared = JSON.parse(json?.toString() ?? "{}") as {
        version: string;
        os: string[];
        cpu: string[];
      };
      expect(declared.version).toBe(version);
      const target = binaryTarget(binary ?? Buffer.alloc(0));
      // The loader picks the package by platform and arch: its binary must be built for exactly those.
      expect(`${target.platform}-${target.arch}`, name).toBe(`${declared.os[0]}-${declared.cpu[0]}`);
      built.set(name, target);
    }
    const platforms = new Set([...built.values()].map((t) => t.platform));
    for (const platform of claimed) expect(platforms, platform).toContain(platform);
    // What libsql's loader requires on the machines Claude Desktop runs on.
    expect(built.get("@libsql/darwin-arm64")).toEqual({ platform: "darwin", arch: "arm64" });
    expect(built.get("@libsql/darwin-x64")).toEqual({ platform: "darwin", arch: "x64" });
    expect(built.get("@libsql/win32-x64-msvc")).toEqual({ platform: "win32", arch: "x64" });
  });

  it("unpacked into an empty folder, starts as a host starts it, lists tools and answers a search", async () => {
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
