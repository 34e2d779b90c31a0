/**
 * Names of entries in an uploaded package, checked before anything is read or created (zip slip).
 * A package is untrusted input: a name that would land outside the folder it is unpacked into (`..`,
 * an absolute path, a drive letter, a UNC path, backslashes used as separators to do any of these) is
 * refused, and the whole package with it. Backslashes count as separators (Windows tools wrote them),
 * so `a\..\..\x` is caught like `a/../../x`.
 */

export type CheckedName = { path: string; directory: boolean } | { problem: string };

/** Longest name of one path segment, and of a whole path, accepted in a package. */
const MAX_SEGMENT = 255;
const MAX_PATH = 4096;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The entry's path with `/` separators, no empty or `.` segments, no leading or trailing slash; or why
 * the name is refused. `directory` is true for names ending in a separator (zip directory entries).
 */
export function checkEntryName(raw: string): CheckedName {
  if (CONTROL.test(raw)) return { problem: "its name holds control characters" };
  const name = raw.replace(/\\/g, "/");
  if (name.startsWith("/")) return { problem: "it is an absolute path" };
  if (/^[A-Za-z]:/.test(name)) return { problem: "it starts with a drive letter" };
  const segments = name.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) return { problem: "it leads out of the package (a .. segment)" };
  if (segments.some((s) => s.length > MAX_SEGMENT) || name.length > MAX_PATH) {
    return { problem: `its name is longer than ${MAX_SEGMENT} characters per folder or ${MAX_PATH} in all` };
  }
  return { path: segments.join("/"), directory: name.endsWith("/") };
}

/** The last segment of a checked path. */
export function baseName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? path : path.slice(i + 1);
}

/** The folder part of a checked path ("" at the top of the package). */
export function dirName(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/** `dir` and `name` joined (either may be empty). */
export function joinPath(dir: string, name: string): string {
  if (dir === "") return name;
  if (name === "") return dir;
  return `${dir}/${name}`;
}
