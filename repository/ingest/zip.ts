import { once } from "node:events";
import { type FileHandle, open } from "node:fs/promises";
import { crc32, createInflateRaw, inflateRawSync } from "node:zlib";
import type yauzl from "yauzl";
import { baseName, checkEntryName } from "./entry-names.js";

/**
 * Reading an uploaded package (a zip file on disk) with yauzl: the central directory is read and every
 * entry checked before anything else happens, and each file is then read as a stream, never whole.
 * yauzl reads the central directory only (never trusting local headers), supports ZIP64, and checks
 * each entry's size; it does not check CRC-32, so `chunks` does, and a damaged entry fails.
 */

/** A package is refused whole, before anything is created; the message names the entry at fault. */
export class PackageRefused extends Error {}

/** One entry of the package could not be read intact (its bytes fail the package's own CRC-32). */
export class EntryDamaged extends Error {}

export interface PackageEntry {
  /** Path inside the package, `/`-separated, no leading or trailing slash. */
  path: string;
  /** The name as stored in the zip, for messages. */
  rawName: string;
  directory: boolean;
  /** Uncompressed size in bytes. */
  size: number;
  /** Where its data is, and how to check it (from the central directory; ZIP64 resolved by yauzl). */
  data: {
    localHeaderOffset: number;
    compressedSize: number;
    compressionMethod: number;
    crc32: number;
  };
}

export interface PackageLimits {
  /** Most entries a package may hold. */
  maxEntries: number;
  /** Most bytes its files may hold once uncompressed, in all. */
  maxContentBytes: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  maxEntries: 100_000,
  maxContentBytes: 64 * 1024 ** 3,
};

const UNIX = 3;
const NTFS = 10;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const WINDOWS_REPARSE_POINT = 0x400;

/** Operating-system clutter some zip tools add; it describes nothing in the package and is skipped. */
function isClutter(path: string): boolean {
  const name = baseName(path);
  return (
    path === "__MACOSX" ||
    path.startsWith("__MACOSX/") ||
    name === ".DS_Store" ||
    name === "Thumbs.db" ||
    name === "desktop.ini"
  );
}

/** Why an entry's type makes the package unsafe (a link or a device), or undefined for files and folders. */
function linkProblem(e: yauzl.Entry): string | undefined {
  const system = e.versionMadeBy >> 8;
  if (system === UNIX) {
    const type = (e.externalFileAttributes >>> 16) & S_IFMT;
    if (type === 0o120000) return "it is a symbolic link";
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
      return "it is a device, pipe or socket, not a file";
  }
  if ((system === 0 || system === NTFS) && (e.externalFileAttributes & WINDOWS_REPARSE_POINT) !== 0) {
    return "it is a link (a Windows reparse point)";
  }
  return undefined;
}

function decodeName(zipLib: typeof yauzl, e: yauzl.Entry): string {
  // Names are decoded here (not by yauzl) so a bad one is reported with this package's own message,
  // and backslashes are kept for checkEntryName to judge.
  return zipLib.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, true);
}

const LOCAL_HEADER_SIGNATURE = 0x04034b50;
const LOCAL_HEADER_BYTES = 30;
/** Bytes read from the zip file at a time. */
const READ_BYTES = 1024 * 1024;

const shown = (raw: string) => JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);

export class ZipPackage {
  private constructor(
    /** Every file and folder entry, in the zip's order (clutter left out). */
    readonly entries: readonly PackageEntry[],
    /** The zip file, for reading entries' data in large pieces. */
    private readonly file: FileHandle,
    private readonly size: number,
  ) {}

  /**
   * Opens the zip at `path` and checks every entry: names (zip slip), links, encryption, compression
   * methods, duplicates, a file that is also a folder, and the limits. Throws PackageRefused, saying
   * which entry and why, when any check fails; nothing has been read from any file by then.
   */
  static async open(path: string, limits: PackageLimits = DEFAULT_PACKAGE_LIMITS): Promise<ZipPackage> {
    // Loaded on first use: only an ingest reads a zip, and every start of the service would load it for nothing.
    const { default: zipLib } = await import("yauzl");
    let zip: yauzl.ZipFile;
    let file: FileHandle;
    try {
      file = await open(path, "r");
    } catch (err) {
      throw new PackageRefused(
        `The package file cannot be opened (${(err as NodeJS.ErrnoException).code}); nothing was ingested`,
      );
    }
    try {
      zip = await zipLib.openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: false });
    } catch (err) {
      await file.close();
      throw new PackageRefused(
        `The package is not a readable zip file (${(err as Error).message}); nothing was ingested. Send a zip of the folders and files to ingest`,
      );
    }
    try {
      if (zip.entryCount > limits.maxEntries) {
        throw new PackageRefused(
          `The package holds ${zip.entryCount} entries, more than the ${limits.maxEntries} one ingest takes; nothing was ingested. Split it into several packages`,
        );
      }
      const entries: PackageEntry[] = [];
      const seen = new Map<string, boolean>();
      let content = 0;
      for await (const e of zip.eachEntry()) {
        const rawName = decodeName(zipLib, e);
        const refuse = (why: string) =>
          new PackageRefused(
            `The package was refused: entry ${shown(rawName)} is unsafe, ${why}; nothing was ingested`,
          );
        const checked = checkEntryName(rawName);
        if ("problem" in checked) throw refuse(checked.problem);
        const link = linkProblem(e);
        if (link) throw refuse(link);
        const directory = checked.directory || ((e.externalFileAttributes >>> 16) & S_IFMT) === S_IFDIR;
        if (checked.path === "" || isClutter(checked.path)) continue;
        if (!directory) {
          if (e.isEncrypted()) {
            throw new PackageRefused(
              `The package was refused: entry ${shown(rawName)} is encrypted; nothing was ingested. Send the package without a password`,
            );
          }
          if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
            throw new PackageRefused(
              `The package was refused: entry ${shown(rawName)} uses compression method ${e.compressionMethod}; nothing was ingested. Zip it again with Deflate or no compression`,
            );
          }
          content += e.uncompressedSize;
          if (content > limits.maxContentBytes) {
            throw new PackageRefused(
              `The package's files hold more than ${limits.maxContentBytes} bytes uncompressed, more than one ingest takes; nothing was ingested. Split it into several packages`,
            );
          }
        }
        const before = seen.get(checked.path);
        if (before !== undefined && !(before && directory)) {
          throw new PackageRefused(
            `The package was refused: it holds ${shown(checked.path)} twice; nothing was ingested. Each file may appear once`,
          );
        }
        seen.set(checked.path, directory);
        // Only these facts are kept: yauzl's own entry objects weigh ~2 KB each, held for a whole ingest.
        entries.push({
          path: checked.path,
          rawName,
          directory,
          size: e.uncompressedSize,
          data: {
            localHeaderOffset: e.relativeOffsetOfLocalHeader,
            compressedSize: e.compressedSize,
            compressionMethod: e.compressionMethod,
            crc32: e.crc32,
          },
        });
      }
      // A file whose name is also a folder of other entries ("a" and "a/b") cannot be unpacked.
      const pkg = new ZipPackage(entries, file, (await file.stat()).size);
      const folders = pkg.folders();
      const clash = entries.find((f) => !f.directory && folders.has(f.path));
      if (clash) {
        throw new PackageRefused(
          `The package was refused: ${shown(clash.path)} is both a file and a folder of other entries; nothing was ingested`,
        );
      }
      return pkg;
    } catch (err) {
      await file.close();
      if (err instanceof PackageRefused) throw err;
      throw new PackageRefused(
        `The package's zip directory could not be read (${(err as Error).message}); nothing was ingested. Check the zip file and send it again`,
      );
    } finally {
      zip.close(); // the directory is read; entries' data is read through `file`
    }
  }

  /** File entries only. */
  files(): PackageEntry[] {
    return this.entries.filter((e) => !e.directory);
  }

  /** Every folder path of the package, named by a directory entry or implied by a file's path. */
  folders(): Set<string> {
    const out = new Set<string>();
    for (const e of this.entries) {
      const parts = e.path.split("/");
      const depth = e.directory ? parts.length : parts.length - 1;
      for (let i = 1; i <= depth; i++) out.add(parts.slice(0, i).join("/"));
    }
    return out;
  }

  /**
   * The bytes of one file, chunk by chunk, checked against the zip's CRC-32 and declared size at the
   * end (EntryDamaged when they differ, or when the compressed data cannot be read). yauzl locates the
   * data (its local header is checked); the data itself is read here in large pieces, not in yauzl's
   * 16 KiB ones: a gigabyte is then a thousand reads instead of sixty thousand. A small deflated entry
   * is inflated in one call, without a stream.
   */
  async *chunks(e: PackageEntry): AsyncGenerator<Buffer> {
    const entry = { ...e.data, uncompressedSize: e.size };
    // The local header: its signature, then the lengths of the name and extra field its data follows.
    const header = await this.read(entry.localHeaderOffset, LOCAL_HEADER_BYTES).catch(() => undefined);
    if (header?.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) {
      throw new EntryDamaged(
        `${e.path} cannot be read from the package: its local header is missing or damaged`,
      );
    }
    const start =
      entry.localHeaderOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (start + entry.compressedSize > this.size) {
      throw new EntryDamaged(
        `${e.path} is damaged in the package: its data runs past the end of the zip file`,
      );
    }
    let crc = 0;
    let size = 0;
    const check = (chunk: Buffer): Buffer => {
      crc = crc32(chunk, crc);
      size += chunk.length;
      if (size > entry.uncompressedSize) {
        throw new EntryDamaged(
          `${e.path} is damaged in the package: it holds more bytes than its directory declares`,
        );
      }
      return chunk;
    };
    try {
      if (entry.compressionMethod === 0) {
        for (let at = 0; at < entry.compressedSize; at += READ_BYTES) {
          yield check(await this.read(start + at, Math.min(READ_BYTES, entry.compressedSize - at)));
        }
      } else if (entry.compressedSize <= READ_BYTES && entry.uncompressedSize <= READ_BYTES) {
        const raw = await this.read(start, entry.compressedSize);
        yield check(inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) }));
      } else {
        const inflate = createInflateRaw({ chunkSize: 256 * 1024 });
        const feed = (async () => {
          try {
            for (let at = 0; at < entry.compressedSize; at += READ_BYTES) {
              const piece = await this.read(start + at, Math.min(READ_BYTES, entry.compressedSize - at));
              if (!inflate.write(piece)) await once(inflate, "drain");
            }
            inflate.end();
          } catch (err) {
            inflate.destroy(err as Error);
          }
        })();
        try {
          for await (const chunk of inflate) yield check(chunk as Buffer);
        } finally {
          inflate.destroy();
          await feed;
        }
      }
    } catch (err) {
      if (err instanceof EntryDamaged) throw err;
      throw new EntryDamaged(`${e.path} is damaged in the package (${(err as Error).message})`);
    }
    if (size !== entry.uncompressedSize) {
      throw new EntryDamaged(
        `${e.path} is damaged in the package: it holds ${size} bytes, its directory declares ${entry.uncompressedSize}`,
      );
    }
    if (crc >>> 0 !== entry.crc32 >>> 0) {
      throw new EntryDamaged(
        `${e.path} is damaged in the package: its bytes do not match the zip's own CRC-32 checksum`,
      );
    }
  }

  /** `length` bytes of the zip file from `position`. */
  private async read(position: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await this.file.read(buf, got, length - got, position + got);
      if (bytesRead === 0) throw new EntryDamaged("the zip file ends early");
      got += bytesRead;
    }
    return buf;
  }

  /** A small file (a manifest) as text; refused when larger than `maxBytes`. */
  async readText(e: PackageEntry, maxBytes: number): Promise<string> {
    if (e.size > maxBytes) {
      throw new PackageRefused(
        `${e.path} is ${e.size} bytes, larger than the ${maxBytes} bytes a manifest may be; nothing was ingested`,
      );
    }
    const parts: Buffer[] = [];
    try {
      for await (const chunk of this.chunks(e)) parts.push(chunk);
    } catch (err) {
      if (err instanceof EntryDamaged) throw new PackageRefused(`${err.message}; nothing was ingested`);
      throw err;
    }
    return Buffer.concat(parts).toString("utf8");
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}
