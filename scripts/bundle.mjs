#!/usr/bin/env node
/**
 * `npm run bundle`: builds the MCP Bundle (.mcpb) from the build in dist/ and the production dependencies.
 *
 *   node scripts/bundle.mjs [--out FILE]    default: preservation-mcp-<version>.mcpb at the top level
 *
 * Steps: manifest.json must match the tool registry and package.json (scripts/manifest.mjs); a staging folder
 * gets the manifest, package.json, LICENSE, README and dist/{src,repository}, plus a copy of every package
 * `npm ls --omit=dev` lists (the production tree as installed: nothing compiles); libsql's prebuilt binary
 * packages for every platform it publishes, fetched from the npm registry at the versions libsql pins (npm
 * installed only this machine's; scripts/libsql-binaries.mjs); the native binaries staged must support every
 * platform the manifest claims; then `mcpb validate` and `mcpb pack`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stageLibsqlBinaries } from "./libsql-binaries.mjs";
import { loadPrompts, loadRegistry, manifestDrift, readJson } from "./manifest.mjs";
import { fileBinaryTarget } from "./native-binary.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MCPB = join(ROOT, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const ALL_PLATFORMS = ["darwin", "linux", "win32"];

/** Which operating system a native addon was built for, from its file header (ELF, Mach-O, PE). */
export function binaryPlatform(file) {
  return fileBinaryTarget(file).platform;
}

function filesUnder(dir, keep) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(path)) out.push(path);
  }
  return out;
}

/**
 * The platforms and Node versions the staged production tree really runs on. A package with native
 * addons covers the platforms its binaries are built for; platform packages that are optional
 * dependencies of one parent (libsql's @libsql/<platform>) are alternatives and pool their platforms.
 * An addon built by node-gyp (a binding.gyp) is tied to this Node's major version (its ABI).
 */
export function honestCompatibility(nodeModules, pkgEngines) {
  const packages = new Map();
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const path = join(dir, name);
      if (name.startsWith("@")) walk(path);
      else if (existsSync(join(path, "package.json"))) {
        packages.set(path, JSON.parse(readFileSync(join(path, "package.json"), "utf8")));
        walk(join(path, "node_modules"));
      }
    }
  };
  walk(nodeModules);
  const parentOf = new Map();
  for (const pkg of packages.values()) {
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) parentOf.set(dep, pkg.name);
  }
  const covered = new Map();
  let abiTied = false;
  const natives = [];
  for (const [path, pkg] of packages) {
    const own = filesUnder(path, (f) => f.endsWith(".node") && !relative(path, f).includes("node_modules"));
    if (own.length === 0) continue;
    natives.push(...own.map((f) => relative(nodeModules, f)));
    if (existsSync(join(path, "binding.gyp"))) abiTied = true;
    const need = parentOf.get(pkg.name) ?? pkg.name;
    const set = covered.get(need) ?? new Set();
    for (const f of own) set.add(binaryPlatform(f));
    covered.set(need, set);
  }
  let platforms = ALL_PLATFORMS;
  for (const set of covered.values()) platforms = platforms.filter((p) => set.has(p));
  const major = Number(process.versions.node.split(".")[0]);
  const node = abiTied ? `${pkgEngines} <${major + 1}` : pkgEngines;
  return { platforms, node, abiTied, natives };
}

async function main(args) {
  const pkg = readJson("package.json");
  const manifest = readJson("manifest.json");
  const outArg = args.indexOf("--out");
  const out = resolve(outArg >= 0 ? args[outArg + 1] : join(ROOT, `${pkg.name}-${pkg.version}.mcpb`));
  if (!existsSync(join(ROOT, "dist", "src", "cli.js"))) throw new Error("no dist/ build: run npm run build");

  const drift = manifestDrift(manifest, pkg, await loadRegistry(), await loadPrompts());
  if (drift.length > 0) {
    throw new Error(
      `manifest.json has drifted from the code (run npm run manifest):\n  ${drift.join("\n  ")}`,
    );
  }

  const stage = mkdtempSync(join(tmpdir(), "pmcp-bundle-"));
  try {
    for (const file of ["manifest.json", "package.json", "LICENSE", "README.md"]) {
      cpSync(join(ROOT, file), join(stage, file));
    }
    // The bundled CLI (the entry point: it starts fastest) and the compiled sources it was made from.
    for (const dir of ["bundle", "src", "repository"]) {
      cpSync(join(ROOT, "dist", dir), join(stage, "dist", dir), {
        recursive: true,
        filter: (f) => !f.endsWith(".map") && !f.endsWith(".d.ts"),
      });
    }
    // The production tree as installed here: each package without its own node_modules (its nested
    // dependencies are listed separately) and without .bin links.
    const listed = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      shell: process.platform === "win32",
    })
      .split(/\r?\n/)
      .filter((p) => p && resolve(p) !== resolve(ROOT));
    for (const path of listed) {
      const rel = relative(ROOT, path);
      if (!rel.startsWith("node_modules") || !statSync(path).isDirectory()) continue;
      cpSync(path, join(stage, rel), {
        recursive: true,
        filter: (f) => {
          const inner = relative(path, f);
          return !inner.split(/[\\/]/).includes("node_modules") || inner === "";
        },
      });
    }

    // npm installed libsql's binary for this machine only; the bundle carries them all.
    const libsql = stageLibsqlBinaries(join(stage, "node_modules"));
    process.stderr.write(
      `libsql binaries: ${libsql.map((p) => `${p.name.replace("@libsql/", "")} (${p.os}-${p.cpu})`).join(", ")}\n`,
    );

    const engines = pkg.engines?.node ? `>=${pkg.engines.node.replace(/^>=\s*/, "")}` : ">=20";
    const truth = honestCompatibility(join(stage, "node_modules"), engines);
    const claimed = manifest.compatibility?.platforms ?? ALL_PLATFORMS;
    const unsupported = claimed.filter((p) => !truth.platforms.includes(p));
    if (
      unsupported.length > 0 ||
      (truth.abiTied && !/<\s*\d/.test(manifest.compatibility?.runtimes?.node ?? ""))
    ) {
      throw new Error(
        `manifest.json claims more than the bundle supports: its native addons (${truth.natives.join(", ")}) run on ${truth.platforms.join(", ") || "no platform"}` +
          `${truth.abiTied ? ` with Node ${truth.node}` : ""}; set compatibility to ${JSON.stringify({ platforms: truth.platforms, runtimes: { node: truth.node } })}`,
      );
    }
    process.stderr.write(
      `bundle supports ${truth.platforms.join(", ")} (node ${truth.node}); native addons: ${truth.natives.join(", ") || "none"}\n`,
    );

    execFileSync(process.execPath, [MCPB, "validate", join(stage, "manifest.json")], { stdio: "inherit" });
    execFileSync(process.execPath, [MCPB, "pack", stage, out], { stdio: ["ignore", "ignore", "inherit"] });
    process.stderr.write(`wrote ${out}\n`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`bundle: ${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
