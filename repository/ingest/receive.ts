import { open, rename, rm } from "node:fs/promises";
import { writeChunksToFile } from "../store/chunks-to-file.js";

/**
 * Writes an uploaded package to disk as it arrives, never holding it in memory: to `<path>.part`,
 * renamed to `path` only once the whole body has arrived. Anything else (the client gave up, the
 * connection broke, the body passed `maxBytes`) removes the partial file and rethrows, so an
 * interrupted upload leaves nothing behind.
 */

/** More bytes arrived than a package may have; nothing was kept. */
export class PackageTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
  }
}

export async function receivePackage(
  body: ReadableStream<Uint8Array>,
  path: string,
  maxBytes: number,
): Promise<number> {
  const part = `${path}.part`;
  const reader = body.getReader();
  try {
    const size = await writeChunksToFile(() => reader.read() as Promise<IteratorResult<Uint8Array>>, part, {
      maxBytes,
      tooLarge: () => new PackageTooLarge(maxBytes),
    });
    await rename(part, path);
    return size;
  } catch (err) {
    // Left unread past the cap, not cancelled: cancelling the request body would reset the connection
    // before the refusal is answered (the reply closes the connection instead).
    reader.releaseLock();
    await rm(part, { force: true });
    throw err;
  }
}

/** Whether the file at `path` starts like a zip (checked before an ingest or a part is accepted). */
export async function fileLooksLikeZip(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await file.read(buf, 0, 4, 0);
    return looksLikeZip(buf.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** Whether bytes start like a zip (a local file header, or the end record of an empty zip). */
function looksLikeZip(head: Uint8Array): boolean {
  return (
    head.length >= 4 &&
    head[0] === 0x50 &&
    head[1] === 0x4b &&
    ((head[2] === 0x03 && head[3] === 0x04) || (head[2] === 0x05 && head[3] === 0x06))
  );
}
