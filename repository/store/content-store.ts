import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";

export interface StoredBlob {
  sha256: string;
  size: number;
  fixity: { MD5: string; SHA1: string; SHA256: string; SHA512: string };
}

/**
 * Content-addressed blob store on disk: each blob lives at content/<aa>/<sha256>. Writes go to a temp
 * file and are renamed into place, so a crash never leaves a half-written blob under its final name.
 */
export class ContentStore {
  constructor(private readonly root: string) {
    mkdirSync(root, { recursive: true });
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

  /** A stream of the blob, or of bytes start..end inclusive (HTTP Range semantics). */
  read(sha256: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.pathOf(sha256), range);
  }

  private pathOf(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a content hash: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256);
  }
}
