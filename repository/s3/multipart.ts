import { randomBytes, randomUUID } from "node:crypto";
import { createReadStream, existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ReceivedBody, receiveBody } from "./body.js";
import type { ExpectedDigests } from "./digests.js";

/**
 * Multipart uploads in progress, kept on disk only (no table: an upload is its folder):
 * `<dataDir>/s3-uploads/<uploadId>/upload.json` says whose upload it is and for which bucket, key and
 * folder; each part that arrived is a file `<number>-<md5 hex>.part` (so the part's ETag is in its
 * name and a part is never seen half-written: it is received under a temporary name, verified, then
 * renamed). Completing claims the folder by renaming it (`<uploadId>.assembling`), so a second
 * completion or an abort racing with it finds no upload; the parts are then concatenated, streamed,
 * into one package file and the folder removed. Folders untouched for a day are removed at start-up
 * and whenever an upload starts (`sweepUploads`).
 */

export const S3_UPLOADS_DIR = "s3-uploads";
/** Uploads whose newest file is older than this are abandoned and removed. */
export const STALE_UPLOAD_MS = 24 * 3_600_000;
/** S3's limits: part numbers 1..10000, every part but the last at least 5 MiB. */
export const MAX_PART_NUMBER = 10_000;
export const MIN_PART_BYTES = 5 * 1024 * 1024;

export interface UploadRecord {
  uploadId: string;
  bucket: string;
  key: string;
  /** Who started it: only they may add parts, complete or abort it. */
  username: string;
  /** The folder from `x-amz-meta-structuralobjectreference`, or null (the package's own parent). */
  parentRef: string | null;
  initiated: string;
}

export interface StoredPart {
  partNumber: number;
  /** MD5 of the part in hex: its ETag without the quotes. */
  md5: string;
  size: number;
  path: string;
  /** When it arrived (ms since the epoch). */
  modified: number;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{32}$/;
const PART_FILE = /^(\d{5})-([0-9a-f]{32})\.part$/;
const RECORD = "upload.json";

function uploadsRoot(dataDir: string): string {
  return join(dataDir, S3_UPLOADS_DIR);
}

function uploadDir(dataDir: string, uploadId: string): string {
  return join(uploadsRoot(dataDir), uploadId);
}

export async function createUpload(
  dataDir: string,
  info: Omit<UploadRecord, "uploadId">,
): Promise<UploadRecord> {
  const record: UploadRecord = { uploadId: randomBytes(24).toString("base64url"), ...info };
  const dir = uploadDir(dataDir, record.uploadId);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, RECORD), JSON.stringify(record));
  return record;
}

/** The upload, or undefined when there is none by that id (malformed ids included: never a path). */
export async function findUpload(dataDir: string, uploadId: string): Promise<UploadRecord | undefined> {
  if (!UPLOAD_ID.test(uploadId)) return undefined;
  try {
    return JSON.parse(await readFile(join(uploadDir(dataDir, uploadId), RECORD), "utf8")) as UploadRecord;
  } catch {
    return undefined;
  }
}

/** The parts that arrived, one per part number (a part sent again replaced the earlier one). */
export async function storedParts(dataDir: string, uploadId: string): Promise<Map<number, StoredPart>> {
  return partsIn(uploadDir(dataDir, uploadId));
}

async function partsIn(dir: string): Promise<Map<number, StoredPart>> {
  const out = new Map<number, StoredPart>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = PART_FILE.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info) continue; // replaced meanwhile
    const partNumber = Number(m[1]);
    const prev = out.get(partNumber);
    // Two files for one number exist only for the moment between a re-sent part's rename and the
    // removal of the one it replaces: the newer one is the part.
    if (!prev || info.mtimeMs >= prev.modified) {
      out.set(partNumber, { partNumber, md5: m[2] as string, size: info.size, path, modified: info.mtimeMs });
    }
  }
  return out;
}

/** The upload folder disappeared (aborted, completed or swept) while a part was arriving. */
export class UploadGone extends Error {}

/**
 * Receives one part: at most `maxBytes`, verified against the declared digests, then put in place
 * under its number (replacing a part sent earlier with that number, as S3 does).
 */
export async function storePart(
  dataDir: string,
  uploadId: string,
  partNumber: number,
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  expected: ExpectedDigests,
): Promise<ReceivedBody> {
  const dir = uploadDir(dataDir, uploadId);
  const incoming = join(dir, `incoming-${randomUUID()}`);
  let received: ReceivedBody;
  try {
    received = await receiveBody(body, incoming, maxBytes, expected);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new UploadGone();
    throw err;
  }
  const prefix = `${String(partNumber).padStart(5, "0")}-`;
  const name = `${prefix}${received.md5.toString("hex")}.part`;
  try {
    await rename(incoming, join(dir, name));
  } catch (err) {
    await rm(incoming, { force: true });
    if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new UploadGone();
    throw err;
  }
  for (const other of await readdir(dir).catch(() => [] as string[])) {
    if (other.startsWith(prefix) && other !== name) await rm(join(dir, other), { force: true });
  }
  return received;
}

/**
 * Takes the upload for completion: afterwards no part can be added and no other completion or abort
 * finds it. Returns the folder it now lives in, or undefined when it was already gone.
 */
export async function claimUpload(dataDir: string, uploadId: string): Promise<string | undefined> {
  const from = uploadDir(dataDir, uploadId);
  const to = `${from}.assembling`;
  try {
    await rename(from, to);
    return to;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Gives a claimed upload back (its completion was refused), so the client may fix it or abort it. */
export async function releaseUpload(dataDir: string, uploadId: string, claimedDir: string): Promise<void> {
  await rename(claimedDir, uploadDir(dataDir, uploadId));
}

/** The parts of a claimed upload folder (see claimUpload). */
export function claimedParts(claimedDir: string): Promise<Map<number, StoredPart>> {
  return partsIn(claimedDir);
}

/**
 * Concatenates the parts, in the order given, into `dest` (streamed, one part open at a time). The
 * bytes go to `<dest>.part` first, so `dest` appears only complete; on failure nothing is left.
 */
export async function assembleParts(parts: readonly StoredPart[], dest: string): Promise<void> {
  const partial = `${dest}.part`;
  try {
    const out = await open(partial, "wx");
    try {
      for (const part of parts) {
        for await (const chunk of createReadStream(part.path, {
          highWaterMark: 1 << 20,
        }) as AsyncIterable<Buffer>) {
          for (let off = 0; off < chunk.byteLength; ) {
            off += (await out.write(chunk, off, chunk.byteLength - off)).bytesWritten;
          }
        }
      }
    } finally {
      await out.close();
    }
    await rename(partial, dest);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
}

export async function removeUploadFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Aborts an upload: its parts are removed. False when there was none. */
export async function abortUpload(dataDir: string, uploadId: string): Promise<boolean> {
  if (!UPLOAD_ID.test(uploadId)) return false;
  const dir = uploadDir(dataDir, uploadId);
  if (!existsSync(dir)) return false;
  await rm(dir, { recursive: true, force: true });
  return true;
}

/**
 * Removes abandoned uploads: folders (in progress or left mid-assembly by a crash) whose newest file
 * is older than `olderThanMs`. A slow upload that still sends parts keeps its folder fresh.
 */
export function sweepUploads(dataDir: string, now = Date.now(), olderThanMs = STALE_UPLOAD_MS): number {
  const root = uploadsRoot(dataDir);
  if (!existsSync(root)) return 0;
  let removed = 0;
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    try {
      let newest = statSync(dir).mtimeMs;
      for (const f of readdirSync(dir)) newest = Math.max(newest, statSync(join(dir, f)).mtimeMs);
      if (newest < now - olderThanMs) {
        rmSync(dir, { recursive: true, force: true });
        removed++;
      }
    } catch {
      // Completed or aborted meanwhile: nothing to sweep.
    }
  }
  return removed;
}
