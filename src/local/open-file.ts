import { createHash } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { basename } from "node:path";
import type { Readable } from "node:stream";
import { type LocalPath, LocalPathError, resolveLocalPath, shownPath } from "./roots.js";

/**
 * Local files are checked (inside the allowed folders, no link leading out) when a path is resolved or a
 * folder walked, and read later: one at a time while a package uploads, or after a preview. A file swapped
 * for a link (or for another file) in between must not be read in its place. So a file is opened once,
 * without following a link in its last component (O_NOFOLLOW), and the open handle must be the very file
 * the check saw (same device and inode, by fstat of the handle); everything hashed and sent is read from
 * that handle.
 */

/** Which file a check saw: device and inode, from its stat. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** O_NOFOLLOW where the platform has it (not on Windows, where the identity check still holds). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Opens `path` for reading, refusing a link and anything but a regular file, and checking that the handle
 * is `expected` (the file a walk or path check saw). `shown` is how the path is named in a refusal.
 */
export async function openChecked(
  path: string,
  expected: FileIdentity,
  shown = path,
): Promise<{ handle: FileHandle; stat: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") {
      throw new LocalPathError(
        `${shownPath(shown)} became a link after it was checked; links are not followed when a file is read. Nothing was uploaded.`,
      );
    }
    if (code === "ENOENT") {
      throw new LocalPathError(`${shownPath(shown)} was removed after it was checked. Nothing was uploaded.`);
    }
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new LocalPathError(`${shownPath(shown)} is not a regular file. Nothing was uploaded.`);
    }
    if (stat.dev !== expected.dev || stat.ino !== expected.ino) {
      throw new LocalPathError(
        `${shownPath(shown)} was replaced by another file after it was checked (a link on the way to it, or a rename); check the folder and try again. Nothing was uploaded.`,
      );
    }
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The whole of an open file from its start, closing the handle at the end (or on error). */
export function readFromStart(
  handle: FileHandle,
  opts: { signal?: AbortSignal; highWaterMark?: number } = {},
) {
  return handle.createReadStream({
    start: 0,
    autoClose: true,
    ...(opts.highWaterMark ? { highWaterMark: opts.highWaterMark } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  }) as Readable;
}

/** SHA-256 of an open file, read from its start; the handle stays open. */
export async function sha256Of(handle: FileHandle, signal?: AbortSignal): Promise<string> {
  const hash = createHash("sha256");
  const stream = handle.createReadStream({ start: 0, autoClose: false, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A local file opened once for an upload: its facts, its SHA-256, and the handle both came from. */
export interface OpenedLocalFile extends LocalPath {
  filename: string;
  sha256: string;
  /** The file's bytes from its start, from the handle that was hashed; closes it at the end. */
  stream(signal?: AbortSignal): Readable;
  /** Closes the handle (safe to call again, and after the stream ended). */
  close(): Promise<void>;
}

/**
 * One local file for an upload (`replace_content`, `add_representation`): resolved inside the allowed
 * folders, opened once without following links, hashed and later sent from that one handle, so the bytes
 * sent are the bytes hashed and shown in the preview.
 */
export async function openLocalFile(
  roots: readonly string[],
  requested: string,
  signal?: AbortSignal,
): Promise<OpenedLocalFile> {
  const found = await resolveLocalPath(roots, requested);
  const shown = shownPath(requested);
  if (found.isDirectory)
    throw new LocalPathError(`${shown} is a folder; give one file. Nothing was changed.`);
  const { handle, stat } = await openChecked(found.path, found, requested);
  try {
    if (stat.size === 0)
      throw new LocalPathError(`${shown} is empty; the service takes no empty files. Nothing was changed.`);
    const sha256 = await sha256Of(handle, signal);
    return {
      ...found,
      size: stat.size,
      filename: basename(found.path),
      sha256,
      stream: (s) => readFromStart(handle, s ? { signal: s } : {}),
      close: () => handle.close(),
    };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The whole of a local file inside the allowed folders, read from one handle opened without following links. */
export async function readLocalFile(local: LocalPath): Promise<Buffer> {
  const { handle } = await openChecked(local.path, local);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
