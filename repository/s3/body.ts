import { createHash, type Hash } from "node:crypto";
import { rm } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { writeChunksToFile } from "../store/chunks-to-file.js";
import type { ExpectedDigests } from "./digests.js";
import { S3Error } from "./errors.js";

/**
 * Writes an S3 request body (an object or one part) to a file as it arrives, never holding it in
 * memory, while computing its MD5 (the ETag) and whatever digests the client declared. The file is
 * complete and verified when this returns; on any failure (too large, a digest mismatch, the client
 * gave up) it is removed and the error rethrown, so nothing half-written or wrong is ever kept.
 */

export interface ReceivedBody {
  size: number;
  /** MD5 of the bytes: S3's ETag of an object or a part. */
  md5: Buffer;
}

/** More bytes than allowed arrived; nothing was kept. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

export async function receiveBody(
  body: ReadableStream<Uint8Array>,
  path: string,
  maxBytes: number,
  expected: ExpectedDigests,
): Promise<ReceivedBody> {
  const md5 = createHash("md5");
  const extra: [string, Hash, Buffer, string][] = [];
  if (expected.contentSha256) {
    extra.push([
      "X-Amz-Content-SHA256",
      createHash("sha256"),
      expected.contentSha256,
      "XAmzContentSHA256Mismatch",
    ]);
  }
  if (expected.sha256)
    extra.push(["x-amz-checksum-sha256", createHash("sha256"), expected.sha256, "BadDigest"]);
  if (expected.sha1) extra.push(["x-amz-checksum-sha1", createHash("sha1"), expected.sha1, "BadDigest"]);
  let crc = 0;

  const reader = body.getReader();
  try {
    const size = await writeChunksToFile(() => reader.read() as Promise<IteratorResult<Uint8Array>>, path, {
      maxBytes,
      tooLarge: () => new BodyTooLarge(maxBytes),
      onChunk: (chunk) => {
        md5.update(chunk);
        for (const [, h] of extra) h.update(chunk);
        if (expected.crc32) crc = crc32(chunk, crc);
      },
    });
    const digest = md5.digest();
    if (expected.md5 && !expected.md5.equals(digest)) {
      throw new S3Error(
        400,
        "BadDigest",
        `The Content-MD5 you specified did not match what was received: the body's MD5 is ${digest.toString("base64")}, the header said ${expected.md5.toString("base64")}; nothing was stored. Send the body again`,
      );
    }
    for (const [header, h, want, code] of extra) {
      const got = h.digest();
      if (!got.equals(want)) {
        throw new S3Error(
          400,
          code,
          `The ${header} you specified did not match the body that was received; nothing was stored. Send the body again`,
        );
      }
    }
    if (expected.crc32) {
      const got = Buffer.alloc(4);
      got.writeUInt32BE(crc >>> 0);
      if (!got.equals(expected.crc32)) {
        throw new S3Error(
          400,
          "BadDigest",
          "The x-amz-checksum-crc32 you specified did not match the body that was received; nothing was stored. Send the body again",
        );
      }
    }
    return { size, md5: digest };
  } catch (err) {
    // Left unread past the cap, not cancelled: cancelling the request body would reset the connection
    // before the refusal is answered (the reply closes the connection instead).
    reader.releaseLock();
    await rm(path, { force: true });
    throw err;
  }
}
