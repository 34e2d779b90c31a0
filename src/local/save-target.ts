import { lstat, readlink } from "node:fs/promises";
import { LocalPathError, shownPath } from "./roots.js";

/**
 * What is already at a path a download or an export would be saved to. Looked at without following a
 * link: a link there (even one that leads nowhere) is refused with a clear answer, since saving through it
 * would write somewhere the person did not choose, and a dangling one would otherwise look like a free
 * name until the final link() fails.
 */
export async function existingSaveTarget(target: string): Promise<{ size: number } | undefined> {
  const st = await lstat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (!st) return undefined;
  if (st.isSymbolicLink()) {
    const to = await readlink(target).catch(() => "somewhere unreadable");
    throw new LocalPathError(
      `${shownPath(target)} is a link (to ${shownPath(to)}); files are saved only under a new name, never through a link. Remove the link or move it aside, then ask again. Nothing was saved.`,
    );
  }
  if (!st.isFile()) {
    throw new LocalPathError(
      `${shownPath(target)} exists and is not a regular file; remove it or move it aside, then ask again. Nothing was saved.`,
    );
  }
  return { size: st.size };
}
