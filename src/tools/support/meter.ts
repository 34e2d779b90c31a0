import { Transform } from "node:stream";

/**
 * A pass-through that counts the bytes of a transfer (an upload, a download being saved), shows each chunk
 * to `onChunk` (the hashes a saved file is verified with) and calls `report` each time another `every`
 * bytes went through: progress notifications at a steady pace whatever the chunk sizes.
 */
export function byteMeter(
  every: number,
  report: (bytes: number) => void,
  onChunk?: (chunk: Buffer) => void,
): { meter: Transform; bytes: () => number } {
  let bytes = 0;
  let nextReport = every;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      onChunk?.(chunk);
      if (bytes >= nextReport) {
        nextReport = bytes + every;
        report(bytes);
      }
      done(null, chunk);
    },
  });
  return { meter, bytes: () => bytes };
}
