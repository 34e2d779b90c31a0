import { createHash, randomUUID } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { writeChunksToFile } from "./chunks-to-file.js";

export interface StoredBlob {
  sha256: string;
  size: number;
  fixity: { MD5: string; SHA1: string; SHA256: string; SHA512: string };
}

export interface PutStreamOptions {
  /** Refuse (BlobTooLargeError) as soon as more than this many bytes arrive. */
  maxBytes?: number;
  /** Called with the blob's size and fixities before it is stored; throw to refuse it. */
  verify?: (blob: StoredBlob) => void;
}

/** More bytes arrived than `putStream` was allowed to store; nothing was stored. */
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

/** Where streamed uploads are written until their hash is known (same file system as the blobs). */
const INCOMING_DIR = ".incoming";

/**
 * Reads a web or Node stream chunk by chunk. `release` lets go of it without cancelling it (see
 * `putStream`).
 */
function chunkReader(source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>): {
  next(): Promise<IteratorResult<Uint8Array>>;
  release(): void;
} {
  if ("getReader" in source) {
    const reader = source.getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      release: () => reader.releaseLock(),
    };
  }
  const it = source[Symbol.asyncIterator]();
  return { next: () => it.next(), release: () => {} };
}

/**
 * Content-addressed blob store on disk: each blob lives at content/<aa>/<sha256>. Writes go to a temp
 * file and are renamed into place, so a crash never leaves a half-written blob under its final name.
 */
export class ContentStore {
  constructor(private readonly root: string) {
    mkdirSync(root, { recursive: true });
    this.sweepIncoming();
  }

  /**
   * Removes uploads a crash left half-written under .incoming. Only old ones: another process may be
   * serving the same data directory (the embedded default started twice) with an upload under way.
   */
  private sweepIncoming(olderThanMs = 24 * 3_600_000): void {
    const incoming = join(this.root, INCOMING_DIR);
    if (!existsSync(incoming)) return;
    const cutoff = Date.now() - olderThanMs;
    for (const name of readdirSync(incoming)) {
      const path = join(incoming, name);
      try {
        if (name.endsWith(".part") && statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
      } catch {
        // Gone already (the other process finished it): nothing to sweep.
      }
    }
  }

  put(bytes: Buffer): StoredBlob {
    const fixity = {
      MD5: createHash("md5").update(bytes).digest("hex"),
      SHA1: createHash("sha1").update(bytes).digest("hex"),
      SHA256: createHash("sha256").update(bytes).digest("hex"),
      SHA512: createHash("sha512").update(bytes).digest("hex"),
    };
    const path = this.pathOf(fixity.SHA256);
    if (!existsSync(path)) {
      mkdirSync(join(this.root, fixity.SHA256.slice(0, 2)), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
    }
    return { sha256: fixity.SHA256, size: bytes.length, fixity };
  }

  has(sha256: string): boolean {
    return existsSync(this.pathOf(sha256));
  }

  size(sha256: string): number {
    return statSync(this.pathOf(sha256)).size;
  }

  /**
   * Stores a blob read from a stream without holding it in memory: the bytes go to a temporary file
   * while all four fixities are computed in the same pass; then `verify` (if given) may refuse the blob
   * by throwing, and only then is the file renamed into place under its SHA-256 (or dropped, when that
   * blob is already stored). On any error, a refusal or more than `maxBytes`, the temporary file is
   * removed and nothing is stored. Over `maxBytes` the rest of the source is left unread (and the
   * source not cancelled: cancelling an HTTP request body would reset the connection before the
   * refusal is answered).
   */
  async putStream(
    source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    opts: PutStreamOptions = {},
  ): Promise<StoredBlob> {
    const incoming = join(this.root, INCOMING_DIR);
    mkdirSync(incoming, { recursive: true });
    const tmp = join(incoming, `${randomUUID()}.part`);
    const hashes = {
      MD5: createHash("md5"),
      SHA1: createHash("sha1"),
      SHA256: createHash("sha256"),
      SHA512: createHash("sha512"),
    };
    const chunks = chunkReader(source);
    try {
      const size = await writeChunksToFile(chunks.next, tmp, {
        maxBytes: opts.maxBytes,
        tooLarge: () => new BlobTooLargeError(opts.maxBytes as number),
        onChunk: (chunk) => {
          for (const h of Object.values(hashes)) h.update(chunk);
        },
      });
      const fixity = {
        MD5: hashes.MD5.digest("hex"),
        SHA1: hashes.SHA1.digest("hex"),
        SHA256: hashes.SHA256.digest("hex"),
        SHA512: hashes.SHA512.digest("hex"),
      };
      const blob: StoredBlob = { sha256: fixity.SHA256, size, fixity };
      opts.verify?.(blob);
      // Synchronous from here to the return, so a caller that records the blob right after the await
      // does so before any other request can see (or remove) it.
      const path = this.pathOf(fixity.SHA256);
      if (existsSync(path)) {
        rmSync(tmp, { force: true });
      } else {
        mkdirSync(join(this.root, fixity.SHA256.slice(0, 2)), { recursive: true });
        renameSync(tmp, path);
      }
      return blob;
    } catch (err) {
      chunks.release();
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  /** A stream of the blob, or of bytes start..end inclusive (HTTP Range semantics). */
  read(sha256: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(sha256), range);
  }

  /**
   * The blob's file on disk, for libraries that read a file by parts themselves (EXIF readers seek to a
   * TIFF directory that may sit at the end of a large scan); read only, never written through.
   */
  filePath(sha256: string): string {
    return this.pathOf(sha256);
  }

  /** Removes a blob; false when it was not there. Callers first make sure nothing references it. */
  remove(sha256: string): boolean {
    const path = this.pathOf(sha256);
    if (!existsSync(path)) return false;
    rmSync(path, { force: true });
    return true;
  }

  private pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a content hash: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256);
  }
}
