/**
 * libsql's prebuilt SQLite binaries for every platform it publishes, staged into a bundle's node_modules.
 *
 * npm installs only the machine's own `@libsql/<platform>` package (they are optional dependencies limited
 * by `os`/`cpu`), and libsql's loader requires `@libsql/<platform>-<arch>[-<abi>]` at run time, so a
 * bundle built from this machine's tree would load nowhere else. Each package libsql lists as an optional
 * dependency is fetched at the exact version it pins, from the npm registry, and checked: its package.json
 * names it and that version, and its binary's header is built for the `os` and `cpu` it declares.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileBinaryTarget } from "./native-binary.mjs";
import { fetchTarball, unpackTarball } from "./npm-tarball.mjs";

/** Where fetched tarballs are kept between runs (the OS temp folder: a cache, never needed). */
export const TARBALL_CACHE = join(tmpdir(), "preservation-mcp-npm-cache");

/** libsql's platform packages as it pins them: `[{ name, version }]`. */
export function libsqlPlatformPackages(nodeModules) {
  const libsql = JSON.parse(readFileSync(join(nodeModules, "libsql", "package.json"), "utf8"));
  return Object.entries(libsql.optionalDependencies ?? {})
    .filter(([name]) => name.startsWith("@libsql/"))
    .map(([name, version]) => ({ name, version }));
}

/**
 * Why the staged package `name@version` would not serve its platform, or undefined when it would: present,
 * that version, its `main` binary present and built for its declared os and cpu.
 */
export function platformPackageProblem(nodeModules, { name, version }) {
  const dir = join(nodeModules, ...name.split("/"));
  if (!existsSync(join(dir, "package.json"))) return `${name}: not staged`;
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (pkg.name !== name || pkg.version !== version) {
    return `${name}: staged ${pkg.name}@${pkg.version}, libsql needs ${version}`;
  }
  const binary = join(dir, pkg.main ?? "index.node");
  if (!binary.endsWith(".node") || !existsSync(binary)) return `${name}: no native binary (${pkg.main})`;
  const built = fileBinaryTarget(binary);
  const os = pkg.os?.[0];
  const cpu = pkg.cpu?.[0];
  if (built.platform !== os || built.arch !== cpu) {
    return `${name}: declares ${os}-${cpu}, its binary is built for ${built.platform}-${built.arch}`;
  }
  return undefined;
}

/**
 * Makes `nodeModules` hold every platform package libsql pins, fetching the ones missing or wrong.
 * Returns what was staged, each with the platform and cpu its binary was checked against.
 */
export function stageLibsqlBinaries(nodeModules, { cacheDir = TARBALL_CACHE, log = () => {} } = {}) {
  const staged = [];
  for (const wanted of libsqlPlatformPackages(nodeModules)) {
    const dir = join(nodeModules, ...wanted.name.split("/"));
    if (platformPackageProblem(nodeModules, wanted) !== undefined) {
      rmSync(dir, { recursive: true, force: true });
      unpackTarball(fetchTarball(wanted.name, wanted.version, cacheDir), dir);
      log(`staged ${wanted.name}@${wanted.version} from the registry (or its cached tarball)`);
    }
    const problem = platformPackageProblem(nodeModules, wanted);
    if (problem) throw new Error(`libsql binary from the registry is not usable: ${problem}`);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    staged.push({ ...wanted, os: pkg.os[0], cpu: pkg.cpu[0] });
  }
  return staged;
}
