import { createWriteStream, rmSync, type WriteStream } from "node:fs";
import { createRequire } from "node:module";
import zlib from "node:zlib";
import yazl from "yazl";
import type { ContentStore } from "../store/content-store.js";

type Crc32Module = { unsigned: (data: unknown, previous?: unknown) => number };

/**
 * The buffer-crc32 module instance yazl calls. In the bundle (dist/bundle, CommonJS, with yazl and buffer-crc32
 * inlined by rolldown) `require` exists and rolldown turns require("buffer-crc32") into the bundle's own copy, the
 * one its yazl calls, where a look-up on disk would find node_modules' copy, which the bundle never calls. As an
 * ES module there is no `require`: yazl's copy is found from yazl's own folder. An ES `import` would reach
 * neither: buffer-crc32 maps `import` to a separate ES build of itself. The MCP server's packaging
 * (src/local/packaging.ts) has its own copy of this and of useNativeCrc32: the service shares no code with src/.
 */
function yazlCrc32(): Crc32Module {
  if (typeof require === "function") return require("buffer-crc32") as Crc32Module;
  return createRequire(createRequire(import.meta.url).resolve("yazl"))("buffer-crc32") as Crc32Module;
}

/**
 * yazl computes each entry's CRC-32 with its dependency buffer-crc32, a pure-JavaScript table loop
 * (about 200 MB/s on this project's machines, half the speed of everything else an export does). Node
 * has the same function natively (zlib.crc32, about 2 GB/s), so yazl's copy of buffer-crc32 is pointed
 * at it for what yazl passes (a Buffer and a numeric running value); anything else still goes to the
 * original. Checked against the standard test vector first; left alone if anything differs.
 */
function useNativeCrc32(): void {
  try {
    const mod = yazlCrc32();
    const original = mod.unsigned;
    const vector = Buffer.from("123456789");
    if (original(vector) !== 0xcbf43926 || zlib.crc32(vector) !== 0xcbf43926) return;
    mod.unsigned = (data, previous) =>
      Buffer.isBuffer(data) && (previous === undefined || typeof previous === "number")
        ? zlib.crc32(data, previous ?? 0)
        : original(data, previous);
  } catch {
    // Another layout of node_modules, or an older Node: yazl keeps its own CRC-32.
  }
}
useNativeCrc32();

/**
 * Writes an export package (a zip) to a file on disk, streaming: content files are piped from the
 * content store into the zip one at a time (never held in memory whole, and only one blob open at a
 * time), manifests are added as small buffers. Content is stored uncompressed (preservation formats
 * are mostly compressed already, and storing keeps the bytes and the throughput as they are); manifests
 * are deflated. yazl writes ZIP64 records on its own when a file or the package passes 4 GiB.
 *
 * `addBlob` resolves once the blob's bytes have gone into the zip, so the caller can pause (and stop)
 * between files; an error of the zip, the output file or a blob rejects whatever is waiting.
 */
export class PackageWriter {
  private readonly zip = new yazl.ZipFile();
  private readonly out: WriteStream;
  private readonly closed: Promise<void>;
  private failure: Error | undefined;
  private failed: Promise<never>;
  private aborted = false;

  constructor(
    private readonly path: string,
    private readonly content: ContentStore,
    /** Modification time stamped on every entry. */
    private readonly mtime: Date,
  ) {
    this.out = createWriteStream(path);
    let fail: (err: Error) => void = () => {};
    this.failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    // Nobody may be waiting when a failure happens; it is rethrown by the next call.
    this.failed.catch(() => {});
    const onError = (err: Error) => {
      this.failure ??= err;
      fail(err);
    };
    this.zip.on("error", onError);
    this.zip.outputStream.on("error", onError);
    this.out.on("error", onError);
    this.closed = new Promise<void>((resolve, reject) => {
      this.out.on("close", () => (this.failure ? reject(this.failure) : resolve()));
    });
    this.closed.catch(() => {});
    this.zip.outputStream.pipe(this.out);
  }

  addText(path: string, text: string): void {
    this.check();
    this.zip.addBuffer(Buffer.from(text, "utf8"), path, { mtime: this.mtime, compress: true });
  }

  addDirectory(path: string): void {
    this.check();
    this.zip.addEmptyDirectory(path, { mtime: this.mtime });
  }

  /** Adds a stored blob under `path`; resolves when all of its bytes have been read into the zip. */
  async addBlob(path: string, sha256: string, size: number): Promise<void> {
    this.check();
    const consumed = new Promise<void>((resolve, reject) => {
      this.zip.addReadStreamLazy(path, { mtime: this.mtime, compress: false, size }, (cb) => {
        const stream = this.content.read(sha256);
        stream.once("end", () => resolve());
        stream.once("error", (err) =>
          reject(
            new Error(`reading ${path} (sha256 ${sha256}) from the content store failed: ${err.message}`),
          ),
        );
        cb(null, stream);
      });
    });
    await Promise.race([consumed, this.failed]);
  }

  /** Ends the zip and waits until the file is complete on disk; returns its size in bytes. */
  async finish(): Promise<number> {
    this.check();
    this.zip.end();
    await Promise.race([this.closed, this.failed]);
    return this.out.bytesWritten;
  }

  /** Stops writing and removes the partial file (a stop, a cancellation or a failure). */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.zip.outputStream.unpipe(this.out);
    this.out.destroy();
    rmSync(this.path, { force: true });
  }

  private check(): void {
    if (this.failure) throw this.failure;
    if (this.aborted) throw new Error("the package writer was aborted");
  }
}
