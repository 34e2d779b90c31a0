/**
 * Names of folders and files inside an export package. Folders and PAX asset folders are named after
 * the entity's title, content files keep their stored file names; both are made safe to unpack on any
 * system and unique among their siblings. The title (and every other property) travels in the
 * `.opex` manifest anyway, so a changed name loses nothing.
 */

/** Longest name segment written (bytes count in zips; most file systems allow 255). */
const MAX_NAME_CHARS = 120;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this replaces.
const UNSAFE = /[\u0000-\u001f\u007f/\\:*?"<>|]/g;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$/i;

/**
 * A name segment from free text: characters that are path separators, control characters or illegal
 * on common file systems become `_`; leading/trailing spaces and trailing dots go; `.`/`..` and
 * Windows device names are avoided; long names are shortened. Empty results become `fallback`.
 */
export function safeName(text: string, fallback: string): string {
  let name = text
    .normalize("NFC")
    .replace(UNSAFE, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[. ]+$/, "");
  if (name.length > MAX_NAME_CHARS)
    name = name
      .slice(0, MAX_NAME_CHARS)
      .trim()
      .replace(/[. ]+$/, "");
  if (name === "" || /^\.+$/.test(name)) return fallback;
  if (WINDOWS_RESERVED.test(name)) return `_${name}`;
  return name;
}

/**
 * Hands out sibling names, unique without regard to case (so the package unpacks the same on
 * case-insensitive file systems). A name already taken gets ` (2)`, ` (3)` … before its extension.
 */
export class SiblingNames {
  private readonly taken = new Set<string>();

  /** Marks a name as used (e.g. a manifest's own file name). */
  reserve(name: string): void {
    this.taken.add(name.toLowerCase());
  }

  has(name: string): boolean {
    return this.taken.has(name.toLowerCase());
  }

  /** `wanted` if free, else the first free numbered variant; `keepExtension` numbers before the dot. */
  claim(wanted: string, keepExtension = false): string {
    let name = wanted;
    const dot = keepExtension ? wanted.lastIndexOf(".") : -1;
    const stem = dot > 0 ? wanted.slice(0, dot) : wanted;
    const ext = dot > 0 ? wanted.slice(dot) : "";
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) name = `${stem} (${n})${ext}`;
    this.taken.add(name.toLowerCase());
    return name;
  }
}

/** Suffix that makes a folder an asset (Preservation Asset eXchange) in OPEX 1.2. */
export const PAX_SUFFIX = ".pax";
/** Suffix of OPEX manifests. */
export const OPEX_SUFFIX = ".opex";

/**
 * A folder name for a plain (non-asset) folder: it must not end in `.pax` (which would make a reader
 * take it for an asset) or `.opex` (a manifest).
 */
export function folderName(title: string, ref: string): string {
  const name = safeName(title, ref);
  return /\.(pax|opex)$/i.test(name) ? `${name}_` : name;
}

/** A file name for content: it must not end in `.opex`, which readers take for a manifest. */
export function contentFileName(filename: string, fallback: string): string {
  const name = safeName(filename, fallback);
  return /\.opex$/i.test(name) ? `${name}_` : name;
}
