import { type FileHandle, lstat, readdir, realpath, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, join, relative, sep } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import zlib from "node:zlib";
import yazl from "yazl";
import { opexManifest } from "../api/ingest.js";
import { openChecked, readFromStart } from "./open-file.js";
import { type LocalPath, LocalPathError, shownPath } from "./roots.js";

/**
 * Turns a local file or folder (already confined to the allowed roots by ./roots.ts) into a package the
 * service ingests, as a stream: a ready package (a `.zip`) is sent as it is; a folder or a single file is
 * zipped on the fly with yazl, stored (not compressed), read one file at a time, so memory does not grow
 * with the package. Every entry's size is known from the walk, so the package's exact length is known
 * before the first byte is sent (Content-Length). The walk happens first and refuses the whole package
 * (nothing sent) when a symbolic link inside leads out of the allowed folders; each file is then opened
 * once, when its turn comes, without following links and only if it is still the file the walk saw
 * (open-file.ts), so a file swapped for a link in the meantime cuts the upload instead of being sent.
 */

type Crc32Module = { unsigned: (data: unknown, previous?: unknown) => number };

/**
 * The buffer-crc32 module instance yazl computes its CRC-32 with. In the bundle (dist/bundle, CommonJS, with yazl
 * and buffer-crc32 inlined by rolldown) `require` exists and rolldown turns require("buffer-crc32") into the
 * bundle's own copy, the one its yazl calls: looking the package up on disk there (as below) would find
 * node_modules' copy, which the bundle never calls. As an ES module (dist/src, the tests) there is no `require`:
 * yazl's copy is the one found from yazl's own folder. An ES `import` would reach neither: buffer-crc32 maps
 * `import` to a separate ES build of itself (dist/index.mjs) while yazl's `require` loads dist/index.cjs.
 * The repository service's exports (repository/export/package-writer.ts) have their own copy of this and of
 * useNativeCrc32: the service shares no code with src/ (ARCHITECTURE.md).
 */
function yazlCrc32(): Crc32Module {
  if (typeof require === "function") return require("buffer-crc32") as Crc32Module;
  return createRequire(createRequire(import.meta.url).resolve("yazl"))("buffer-crc32") as Crc32Module;
}

/**
 * yazl's CRC-32 is a pure-JavaScript loop (about 200 MB/s); Node's zlib.crc32 is native (about 2 GB/s).
 * Point yazl's buffer-crc32 at it for what yazl passes (a Buffer and a numeric running value), after
 * checking both against the standard test vector; left alone if anything differs, or on a Node without
 * zlib.crc32 (before 20.15). Done before the first zip, not when this module loads: finding and loading
 * buffer-crc32 costs every unbundled server start ~4 ms.
 */
let crc32Checked = false;
function useNativeCrc32(): void {
  if (crc32Checked) return;
  crc32Checked = true;
  try {
    const native = (zlib as unknown as { crc32?: (d: Buffer, v?: number) => number }).crc32;
    if (!native) return;
    const mod = yazlCrc32();
    const original = mod.unsigned;
    const vector = Buffer.from("123456789");
    if (original(vector) !== 0xcbf43926 || native(vector) !== 0xcbf43926) return;
    mod.unsigned = (data, previous) =>
      Buffer.isBuffer(data) && (previous === undefined || typeof previous === "number")
        ? native(data, previous ?? 0)
        : original(data, previous);
  } catch {
    // Another layout of node_modules: yazl keeps its own CRC-32.
  }
}

/** Operating-system clutter the service skips anyway: not sent at all. */
const CLUTTER = new Set([".DS_Store", "Thumbs.db", "desktop.ini", "__MACOSX"]);
/** The service's limit of entries per package. */
export const MAX_ENTRIES = 100_000;
const READ_CHUNK = 1024 * 1024;

export interface PackageEntry {
  /** Path inside the package, "/"-separated. */
  name: string;
  /** Absolute path on disk (undefined for a generated manifest or an empty folder). */
  source?: string;
  size: number;
  mtime?: Date;
  directory?: boolean;
  data?: Buffer;
  /** Which file the walk saw (device, inode): what is opened must be the same. */
  dev?: number;
  ino?: number;
}

export interface PackagePlan {
  /** "package": a ready zip sent as is; "folder" or "file": zipped here. */
  kind: "package" | "folder" | "file";
  /** The package's name as the service shows it. */
  filename: string;
  /** Content files in the package (for a ready package: unknown, 0). */
  files: number;
  /** Their bytes. */
  contentBytes: number;
  /** The exact length of the package. */
  size: number;
  /** Whether a folder is sent as a ready OPEX/XIP package (its contents at the top). */
  readyFolder: boolean;
  /** Paths left out, with why (links to folders, special files, clutter). */
  skipped: string[];
  /** The package's bytes, from the start; call once. */
  open(): Readable;
}

export interface PackageOptions {
  title?: string;
  description?: string;
  /** Roots the walk confines links to. */
  roots: readonly string[];
}

function insideAny(roots: readonly string[], p: string): boolean {
  return roots.some((r) => {
    const rel = relative(r, p);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
  });
}

async function isZip(fh: FileHandle): Promise<boolean> {
  const buf = Buffer.alloc(4);
  const { bytesRead } = await fh.read(buf, 0, 4, 0);
  return bytesRead === 4 && buf[0] === 0x50 && buf[1] === 0x4b && (buf[2] === 3 || buf[2] === 5);
}

/** Whether a folder is a ready package: OPEX manifests or an XIP document at its top. */
async function looksReady(dir: string): Promise<boolean> {
  const names = await readdir(dir);
  return names.some((n) => n.toLowerCase().endsWith(".opex") || n.toLowerCase().endsWith(".xip"));
}

/** Every file and empty folder below `dir`, in name order; links followed only while inside the roots. */
async function walk(
  dir: string,
  prefix: string,
  roots: readonly string[],
  out: PackageEntry[],
  skipped: string[],
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const names = (await readdir(dir)).sort();
  for (const n of names) {
    const abs = join(dir, n);
    const name = prefix ? `${prefix}/${n}` : n;
    if (CLUTTER.has(n)) {
      skipped.push(`${name} (operating-system clutter)`);
      continue;
    }
    let st = await lstat(abs);
    let source = abs;
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = await realpath(abs);
      } catch {
        skipped.push(`${name} (a broken link)`);
        continue;
      }
      if (!insideAny(roots, target)) {
        throw new LocalPathError(
          `${shownPath(abs)} is a link that leads outside the allowed folders (to ${shownPath(target)}); remove it or copy the file in. Nothing was uploaded.`,
        );
      }
      st = await stat(target);
      if (st.isDirectory()) {
        skipped.push(`${name} (a link to a folder)`);
        continue;
      }
      source = target;
    }
    if (st.isDirectory()) {
      const before = out.length;
      await walk(abs, name, roots, out, skipped, signal);
      if (out.length === before) out.push({ name: `${name}/`, size: 0, directory: true, mtime: st.mtime });
    } else if (st.isFile()) {
      out.push({ name, source, size: st.size, mtime: st.mtime, dev: st.dev, ino: st.ino });
    } else {
      skipped.push(`${name} (not a regular file)`);
    }
    if (out.length > MAX_ENTRIES) {
      throw new LocalPathError(
        `The folder holds more than ${MAX_ENTRIES.toLocaleString("en")} files, more than one package may; ingest its sub-folders one by one. Nothing was uploaded.`,
      );
    }
  }
}

/**
 * A zip of `entries`, stored, streamed: its exact length (known from the sizes alone) and the stream that
 * makes it. No file is opened until `open()` is called, so a plan that is never sent holds nothing open.
 */
function zipOf(entries: PackageEntry[]): { size: number; open(): Readable } {
  useNativeCrc32();
  const zip = new yazl.ZipFile();
  const out = new PassThrough({ highWaterMark: READ_CHUNK });
  let opened!: () => void;
  const gate = new Promise<void>((resolve) => {
    opened = resolve;
  });
  zip.on("error", (err: Error) => out.destroy(err));
  for (const e of entries) {
    const common = { compress: false, ...(e.mtime ? { mtime: e.mtime } : {}) };
    if (e.directory) zip.addEmptyDirectory(e.name.replace(/\/$/, ""), e.mtime ? { mtime: e.mtime } : {});
    else if (e.data) zip.addBuffer(e.data, e.name, common);
    else if (e.source) {
      const source = e.source;
      const identity = { dev: e.dev ?? -1, ino: e.ino ?? -1 };
      zip.addReadStreamLazy(e.name, { ...common, size: e.size }, (cb) => {
        void gate
          .then(() => openChecked(source, identity, e.name))
          .then(
            ({ handle }) => {
              const rs = readFromStart(handle, { highWaterMark: READ_CHUNK });
              rs.on("error", (err) => out.destroy(err));
              cb(null, rs);
            },
            (err: Error) => out.destroy(err),
          );
      });
    }
  }
  let size = -1;
  // @types/yazl declares the callback without its argument (the total size, or -1 when unknown).
  const end = zip.end as unknown as (this: yazl.ZipFile, o: object, cb: (n: number) => void) => void;
  end.call(zip, {}, (n) => {
    size = n;
  });
  zip.outputStream.on("error", (err: Error) => out.destroy(err));
  let used = false;
  return {
    size,
    open() {
      if (used) throw new Error("a package stream can be opened once");
      used = true;
      zip.outputStream.pipe(out);
      opened();
      return out;
    },
  };
}

/**
 * What will be sent for `local`: a ready `.zip` as is; a folder zipped with the folder itself as a new
 * folder (titled `title`, else its name) unless it is a ready OPEX/XIP package, whose contents go at the
 * top; a single file zipped as one asset (titled `title`, else its name).
 */
export async function planPackage(
  local: LocalPath,
  opts: PackageOptions,
  signal?: AbortSignal,
): Promise<PackagePlan> {
  const name = basename(local.path);
  const props = {
    ...(opts.title !== undefined ? { title: opts.title } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
  };
  const describing = props.title !== undefined || props.description !== undefined;
  if (!local.isDirectory && name.toLowerCase().endsWith(".zip")) {
    if (describing) {
      throw new LocalPathError(
        `${shownPath(local.path)} is a ready package; it carries its own titles and descriptions, so leave title and description out (or ingest the unpacked folder).`,
      );
    }
    // Opened once, here: the check and the bytes sent come from the same handle.
    const { handle } = await openChecked(local.path, local, name);
    if (!(await isZip(handle).catch(() => false))) {
      await handle.close();
      throw new LocalPathError(
        `${shownPath(local.path)} ends in .zip but is not a zip file. Nothing was uploaded.`,
      );
    }
    let used = false;
    return {
      kind: "package",
      filename: name,
      files: 0,
      contentBytes: local.size,
      size: local.size,
      readyFolder: false,
      skipped: [],
      open() {
        if (used) throw new Error("a package stream can be opened once");
        used = true;
        return readFromStart(handle, { highWaterMark: READ_CHUNK });
      },
    };
  }
  const skipped: string[] = [];
  const entries: PackageEntry[] = [];
  let readyFolder = false;
  if (local.isDirectory) {
    readyFolder = await looksReady(local.path);
    if (readyFolder && describing) {
      throw new LocalPathError(
        `${shownPath(local.path)} is a ready OPEX/XIP package (it has manifests at its top); its manifests give titles and descriptions, so leave title and description out.`,
      );
    }
    await walk(local.path, readyFolder ? "" : name, opts.roots, entries, skipped, signal);
    if (!entries.some((e) => !e.directory)) {
      throw new LocalPathError(`${shownPath(local.path)} holds no files to ingest. Nothing was uploaded.`);
    }
    if (describing) {
      const manifest = `${name}/${name}.opex`;
      if (entries.some((e) => e.name === manifest)) {
        throw new LocalPathError(
          `${shownPath(local.path)} already has a manifest ${name}.opex; edit it instead of passing title or description.`,
        );
      }
      entries.unshift({ name: manifest, size: 0, data: opexManifest(props) });
    }
  } else {
    const st = await stat(local.path);
    // The file the path check saw, whatever the path names by now.
    entries.push({
      name,
      source: local.path,
      size: local.size,
      mtime: st.mtime,
      dev: local.dev,
      ino: local.ino,
    });
    if (describing) entries.push({ name: `${name}.opex`, size: 0, data: opexManifest(props) });
  }
  const files = entries.filter((e) => e.source);
  const zip = zipOf(entries);
  if (zip.size < 0) throw new Error("the package's length could not be computed");
  return {
    kind: local.isDirectory ? "folder" : "file",
    filename: `${name}.zip`,
    files: files.length,
    contentBytes: files.reduce((n, e) => n + e.size, 0),
    size: zip.size,
    readyFolder,
    skipped,
    open: () => zip.open(),
  };
}
