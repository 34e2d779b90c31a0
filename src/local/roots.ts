import { realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * The person's own disk, as far as they allowed it: tools read local files (to ingest, to replace content)
 * only inside the folders configured in PRESERVATION_INGEST_ROOTS. A requested path is normalised, its
 * symlinks resolved, and it must still lie inside a root (itself resolved), so `..`, absolute paths
 * elsewhere and links pointing out of a root are all refused the same way.
 */

/** A local path the person did not allow, or that does not exist; the message says what to do. */
export class LocalPathError extends Error {
  override readonly name = "LocalPathError";
}

/** Characters of a path a refusal shows at most: a bad path can be megabytes of anything. */
export const SHOWN_PATH_MAX = 200;

/** `path` for a message: whole when short, else its start and end around an ellipsis (the end names the file). */
export function shownPath(path: string): string {
  if (path.length <= SHOWN_PATH_MAX) return path;
  const head = Math.floor(SHOWN_PATH_MAX / 2);
  return `${path.slice(0, head)}…${path.slice(path.length - (SHOWN_PATH_MAX - head - 1))}`;
}

export interface LocalPath {
  /** The resolved absolute path (symlinks followed). */
  path: string;
  /** The configured root it lies in (resolved). */
  root: string;
  size: number;
  isDirectory: boolean;
  /** Which file was checked (device, inode): opening it later must find the same one (open-file.ts). */
  dev: number;
  ino: number;
}

function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Resolves `requested` (absolute, or relative to the first root) to a file or folder inside one of `roots`.
 */
export async function resolveLocalPath(roots: readonly string[], requested: string): Promise<LocalPath> {
  if (roots.length === 0) {
    throw new LocalPathError(
      "No local folders are allowed: set PRESERVATION_INGEST_ROOTS (or --ingest-roots) to the folders files may be read from.",
    );
  }
  const resolvedRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => resolve(r))));
  const allowed = `the allowed folders are ${resolvedRoots.join(", ")}`;
  if (requested.includes("\0")) throw new LocalPathError(`The path contains a NUL character; ${allowed}.`);
  const shown = shownPath(requested);
  const candidate = isAbsolute(requested) ? resolve(requested) : resolve(resolvedRoots[0] ?? "", requested);
  // Refuse before touching the disk when the normalised path is plainly outside: no probing of other folders.
  if (!resolvedRoots.some((r) => inside(r, candidate)) && !roots.some((r) => inside(resolve(r), candidate))) {
    throw new LocalPathError(`${shown} is outside the folders the person allowed; ${allowed}.`);
  }
  let real: string;
  try {
    real = await realpath(candidate);
  } catch {
    throw new LocalPathError(`${shown} does not exist; ${allowed}.`);
  }
  const root = resolvedRoots.find((r) => inside(r, real));
  if (!root) {
    throw new LocalPathError(`${shown} leads outside the allowed folders (through a link); ${allowed}.`);
  }
  const st = await stat(real);
  if (!st.isFile() && !st.isDirectory()) {
    throw new LocalPathError(`${shown} is neither a file nor a folder.`);
  }
  return { path: real, root, size: st.size, isDirectory: st.isDirectory(), dev: st.dev, ino: st.ino };
}
