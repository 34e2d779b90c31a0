import { characteriseStoredBlob } from "../characterise/characterise.js";
import type { ContentStore, StoredBlob } from "../store/content-store.js";
import { filesOf, type IngestPlan, type PlannedAsset, type PlannedFile } from "./plan.js";
import { EntryDamaged, type PackageEntry, type ZipPackage } from "./zip.js";

/**
 * Streams the package's files into the content store, each once: the bytes go from the zip (inflated
 * on the fly) to the store while MD5, SHA-1, SHA-256 and SHA-512 are computed, then the fixities the
 * package declared (and its declared size) are checked, and a file that does not match is refused by
 * the store (nothing kept) and fails with a message naming it; so does its asset. Only files of assets
 * that passed the checks are read. Nothing here touches entities: the commit does, in one transaction.
 */

/** A file whose bytes do not match what the package declares of them. */
class DeclaredMismatch extends Error {}

export interface StreamProgress {
  /** Called after each file, with the counts so far. */
  fileDone(counts: { done: number; failed: number }): Promise<void>;
}

/** The distinct files of the plan, in order, each with the assets it belongs to failing or not. */
export function plannedFiles(plan: IngestPlan): PlannedFile[] {
  const out = new Set<PlannedFile>();
  for (const a of plan.assets) for (const f of filesOf(a)) out.add(f);
  return [...out];
}

/**
 * How many files stream at once. Small files spend most of their time waiting on the file system
 * (open, write, close, rename), so a few at a time overlap those waits; large ones are bound by
 * hashing on the main thread either way.
 */
const STREAM_CONCURRENCY = 4;

export async function streamFiles(
  pkg: ZipPackage,
  plan: IngestPlan,
  content: ContentStore,
  progress: StreamProgress,
): Promise<void> {
  const entries = new Map(pkg.files().map((e) => [e.path, e]));
  const tasks: { asset: PlannedAsset; file: PlannedFile }[] = [];
  const queued = new Set<PlannedFile>();
  for (const asset of plan.assets) {
    for (const file of filesOf(asset)) {
      // A file two assets share (an XIP may name one twice) is streamed once.
      if (!queued.has(file)) tasks.push({ asset, file });
      queued.add(file);
    }
  }
  let done = 0;
  let failed = 0;
  let next = 0;
  let stopped: unknown;

  const streamOne = async ({ asset, file }: (typeof tasks)[number]) => {
    if (asset.problem || file.problem) {
      failed++;
      return;
    }
    const entry = entries.get(file.entryPath) as PackageEntry;
    try {
      file.blob = await content.putStream(coalesce(pkg.chunks(entry)), {
        verify: (blob) => verifyDeclared(file, blob),
      });
      // Identified and characterised from the stored file: the parts its readers need, not the whole.
      const { format, properties } = await characteriseStoredBlob(content, file.blob, file.filename);
      file.format = format;
      file.properties = properties;
      done++;
    } catch (err) {
      if (!(err instanceof DeclaredMismatch) && !(err instanceof EntryDamaged)) throw err;
      file.problem = err.message;
      asset.problem ??= err.message;
      failed++;
    }
  };
  const worker = async () => {
    while (stopped === undefined && next < tasks.length) {
      try {
        await streamOne(tasks[next++] as (typeof tasks)[number]);
        await progress.fileDone({ done, failed });
      } catch (err) {
        stopped ??= err;
      }
    }
  };
  // Every worker finishes its file before the error (a stop, a full disk) is passed on.
  await Promise.all(Array.from({ length: STREAM_CONCURRENCY }, worker));
  if (stopped !== undefined) throw stopped;
}

/** Chunks handed to the content store at once: larger than the zip reader's (16 KiB), so far fewer writes. */
const STORE_CHUNK_BYTES = 1024 * 1024;

/** The chunks of `source` gathered into pieces of about STORE_CHUNK_BYTES . */
async function* coalesce(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    parts.push(chunk);
    size += chunk.length;
    if (size >= STORE_CHUNK_BYTES) {
      yield parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
      parts = [];
      size = 0;
    }
  }
  if (size > 0) yield parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
}

function verifyDeclared(file: PlannedFile, blob: StoredBlob): void {
  if (file.declaredSize !== undefined && file.declaredSize !== blob.size) {
    throw new DeclaredMismatch(
      `${file.entryPath}: the package declares ${file.declaredSize} bytes, the file holds ${blob.size}; it was not ingested`,
    );
  }
  for (const d of file.fixities) {
    const actual = blob.fixity[d.algorithm];
    if (actual !== d.value) {
      throw new DeclaredMismatch(
        `${file.entryPath}: fixity mismatch, ${d.declaredIn} declares ${d.algorithm} ${d.value} but the file's ${blob.size} bytes have ${actual}; it was not ingested. Check the file and its declared fixity, and send it again`,
      );
    }
  }
}
