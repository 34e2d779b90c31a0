/**
 * Fetching one exact package version from the npm registry as its tarball, and unpacking it, with nothing
 * but npm and Node (no tar program, no tar library: a package tarball is a gzipped ustar archive).
 *
 * Tarballs are kept in a cache folder between runs, each beside the integrity the registry gave for it;
 * a cached tarball is used only while its bytes still match that integrity.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { gunzipSync } from "node:zlib";

function integrityOf(bytes, algorithm) {
  return `${algorithm}-${createHash(algorithm).update(bytes).digest("base64")}`;
}

function matchesIntegrity(bytes, integrity) {
  // Subresource-integrity form, possibly several hashes: any one that matches will do.
  return integrity
    .split(/\s+/)
    .filter(Boolean)
    .some((entry) => {
      const algorithm = entry.slice(0, entry.indexOf("-"));
      return (
        ["sha512", "sha384", "sha256", "sha1"].includes(algorithm) && integrityOf(bytes, algorithm) === entry
      );
    });
}

/**
 * The path of the tarball of `name@version` in `cacheDir`, fetched with `npm pack` (which checks it
 * against the registry's integrity) unless a cached copy still matches its recorded integrity.
 */
export function fetchTarball(name, version, cacheDir) {
  const base = join(cacheDir, `${name.replace(/^@/, "").replace(/\//g, "-")}-${version}`);
  const tarball = `${base}.tgz`;
  const integrityFile = `${base}.integrity`;
  if (existsSync(tarball) && existsSync(integrityFile)) {
    if (matchesIntegrity(readFileSync(tarball), readFileSync(integrityFile, "utf8").trim())) return tarball;
  }
  mkdirSync(cacheDir, { recursive: true });
  const scratch = mkdtempSync(join(cacheDir, ".fetch-"));
  try {
    const out = execFileSync(
      "npm",
      ["pack", `${name}@${version}`, "--json", "--pack-destination", scratch, "--ignore-scripts"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" },
    );
    const [packed] = JSON.parse(out);
    if (!packed || packed.name !== name || packed.version !== version || !packed.integrity) {
      throw new Error(`npm pack ${name}@${version} answered something else: ${out.slice(0, 200)}`);
    }
    const fetched = join(scratch, packed.filename);
    if (!matchesIntegrity(readFileSync(fetched), packed.integrity)) {
      throw new Error(`${name}@${version}: the tarball does not match the registry's integrity`);
    }
    // Rename into place, integrity last: a concurrent run sees either nothing or a complete pair.
    renameSync(fetched, tarball);
    writeFileSync(`${integrityFile}.${process.pid}`, `${packed.integrity}\n`);
    renameSync(`${integrityFile}.${process.pid}`, integrityFile);
    return tarball;
  } catch (err) {
    const stderr = err.stderr ? `: ${String(err.stderr).trim().split("\n").slice(-3).join(" ")}` : "";
    throw new Error(`could not fetch ${name}@${version} from the npm registry (${err.message}${stderr})`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function tarString(block, start, length) {
  const end = block.indexOf(0, start);
  return block.toString("utf8", start, end >= 0 && end < start + length ? end : start + length);
}

function tarSize(block) {
  if (block[124] & 0x80) {
    // Base-256 (GNU) for sizes past 8 GiB: not in any package we unpack, but read rather than misread.
    let size = 0;
    for (let i = 125; i < 136; i++) size = size * 256 + block[i];
    return size;
  }
  return Number.parseInt(tarString(block, 124, 12).trim() || "0", 8);
}

/**
 * Unpacks a package tarball into `dest`, dropping the archive's top folder (`package/`), as npm installs it.
 * Regular files only; an entry that would land outside `dest` stops the unpacking.
 */
export function unpackTarball(tarball, dest) {
  const tar = gunzipSync(readFileSync(tarball));
  let offset = 0;
  let longName;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = tarSize(header);
    const type = String.fromCharCode(header[156] || 48);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      // pax extended header: "<len> path=<name>\n" names the next entry when its own name is too long.
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      longName = path?.[1];
      continue;
    }
    if (type === "L") {
      longName = body.toString("utf8").replace(/\0+$/, "");
      continue;
    }
    const prefix = tarString(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${tarString(header, 0, 100)}` : tarString(header, 0, 100));
    longName = undefined;
    if (type !== "0" && type !== "7") continue; // directories are made as needed; links are not followed
    const inner = name.split("/").slice(1).join("/");
    const target = normalize(join(dest, inner));
    if (!inner || isAbsolute(inner) || !target.startsWith(normalize(dest) + sep)) {
      throw new Error(`${tarball}: entry ${JSON.stringify(name)} would land outside ${dest}`);
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, body, {
      mode: Number.parseInt(tarString(header, 100, 8).trim() || "644", 8) & 0o755,
    });
  }
}
