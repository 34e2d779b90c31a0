import { open } from "node:fs/promises";

/** Where the chunks come from: a stream's reader (`reader.read()`) or an async iterator (`it.next()`). */
export type NextChunk = () => Promise<IteratorResult<Uint8Array>>;

/**
 * Writes a body to a new file (`wx`: never over an existing one) as its chunks arrive, never holding it
 * in memory. Each chunk is first counted against `maxBytes` (past it, `tooLarge()` is thrown before
 * that chunk is written) and then handed to `onChunk` (digests). Returns the size. On any failure the
 * file stays as far as it got: the caller removes it (every caller keeps it under a name of its own).
 */
export async function writeChunksToFile(
  next: NextChunk,
  path: string,
  opts: { maxBytes?: number; tooLarge: () => Error; onChunk?: (chunk: Uint8Array) => void },
): Promise<number> {
  let size = 0;
  const file = await open(path, "wx");
  try {
    for (let r = await next(); !r.done; r = await next()) {
      const chunk = r.value;
      size += chunk.byteLength;
      if (opts.maxBytes !== undefined && size > opts.maxBytes) throw opts.tooLarge();
      opts.onChunk?.(chunk);
      for (let off = 0; off < chunk.byteLength; ) {
        off += (await file.write(chunk, off, chunk.byteLength - off)).bytesWritten;
      }
    }
  } finally {
    await file.close();
  }
  return size;
}
