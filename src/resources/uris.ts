/**
 * The `preservation://` URI scheme: one place that spells it, so tools (resource links in answers) and the
 * resource templates (which read them back) cannot drift apart. Refs are UUIDs and need no escaping, but
 * they are encoded anyway so a stray character can never change the shape of a URI.
 */

export const SCHEME = "preservation:";

/** The top-level folders (a static resource). */
export const ROOT_URI = "preservation://root";

const seg = (s: string | number) => encodeURIComponent(String(s));

export function folderUri(ref: string): string {
  return `preservation://folder/${seg(ref)}`;
}

export function assetUri(ref: string): string {
  return `preservation://asset/${seg(ref)}`;
}

export function contentObjectUri(ref: string): string {
  return `preservation://content-object/${seg(ref)}`;
}

/** One metadata fragment of an entity (any type), by the fragment's own ref. */
export function metadataUri(entityRef: string, mref: string): string {
  return `preservation://metadata/${seg(entityRef)}/${seg(mref)}`;
}

/** One file: bitstream `index` of `generation` of content object `coRef` (both 1-based, as the service counts). */
export function bitstreamUri(coRef: string, generation: number, index: number): string {
  return `preservation://bitstream/${seg(coRef)}/${seg(generation)}/${seg(index)}`;
}

/** The full result (CSV) of a finished report run, by its job handle (the service's progress token). */
export function reportUri(job: string): string {
  return `preservation://report/${seg(job)}`;
}

/** The URI of an entity by its type code (SO folder, IO asset, CO content object). */
export function entityUri(type: "SO" | "IO" | "CO", ref: string): string {
  return type === "SO" ? folderUri(ref) : type === "IO" ? assetUri(ref) : contentObjectUri(ref);
}
