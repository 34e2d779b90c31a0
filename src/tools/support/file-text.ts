import type { Readable } from "node:stream";
import type { FileFormat } from "../../api/entity.js";

/**
 * Deciding whether a file is text a model can read inline (by name, identified format or media type), and
 * reading a bounded slice of it as UTF-8 without splitting a character. Binary files are never downloaded
 * by the tools: they get a resource link. The bitstream resource uses the same media-type rules.
 */

const TEXT_EXTENSIONS = new Set([
  "txt",
  "text",
  "csv",
  "tsv",
  "tab",
  "xml",
  "json",
  "jsonld",
  "geojson",
  "md",
  "markdown",
  "html",
  "htm",
  "xhtml",
  "yaml",
  "yml",
  "log",
  "ini",
  "cfg",
  "conf",
  "sql",
  "srt",
  "vtt",
  "ttl",
  "rdf",
  "nt",
  "kml",
  "gpx",
  "svg",
  "css",
  "js",
  "py",
  "r",
  "sh",
  "tex",
  "bib",
  "ris",
  "eml",
  "mrk",
  "xsd",
  "xsl",
  "xslt",
  "ead",
  "mets",
]);

/** PRONOM identifiers of text formats (plain text, CSV, XML, JSON, HTML, Markdown, TSV). */
const TEXT_PUIDS = new Set([
  "x-fmt/111",
  "x-fmt/18",
  "fmt/101",
  "fmt/817",
  "fmt/96",
  "fmt/100",
  "fmt/471",
  "fmt/1149",
  "x-fmt/13",
]);

const MIME_BY_EXTENSION: Record<string, string> = {
  txt: "text/plain",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  xml: "application/xml",
  json: "application/json",
  html: "text/html",
  htm: "text/html",
  md: "text/markdown",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  tif: "image/tiff",
  tiff: "image/tiff",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  zip: "application/zip",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

function extension(filename: string): string | undefined {
  return filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
}

/** A media type guessed from the file name (for resource links); undefined when unknown. */
export function guessMime(filename: string): string | undefined {
  const ext = extension(filename);
  return ext ? MIME_BY_EXTENSION[ext] : undefined;
}

/** The media type of a file: the service's Content-Type, else a guess from the name. */
export function mediaType(contentType: string | undefined, filename: string): string {
  const declared = contentType?.split(";")[0]?.trim().toLowerCase();
  if (declared && declared !== "application/octet-stream") return declared;
  return guessMime(filename) || declared || "application/octet-stream";
}

/** Whether a media type's bytes are text a model can read as is. */
export function isTextMediaType(mime: string): boolean {
  const m = mime.toLowerCase();
  return (
    m.startsWith("text/") ||
    /^application\/(xml|json|csv|javascript|x-yaml|yaml|x-sh|sql|rtf)$/.test(m) ||
    m.endsWith("+xml") ||
    m.endsWith("+json")
  );
}

/** Whether the file's name or identified format says it is text. */
export function looksLikeText(filename: string, formats: FileFormat[]): boolean {
  const ext = extension(filename);
  if (ext && TEXT_EXTENSIONS.has(ext)) return true;
  return formats.some((f) => f.puid !== undefined && TEXT_PUIDS.has(f.puid));
}

/** Whether a Content-Type the service sent rules text out (images, audio, PDF, archives…). */
export function binaryContentType(contentType: string | undefined): boolean {
  const t = contentType?.split(";")[0]?.trim().toLowerCase();
  if (!t || t === "application/octet-stream") return false;
  return !isTextMediaType(t);
}

/** Reads at most `max` bytes of a stream, then lets the rest go (the connection is released). */
export async function readAtMost(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(buf);
      got += buf.length;
      if (got >= max) break;
    }
  } finally {
    if (!stream.destroyed) stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, max);
}

/** Bytes at the end of `buf` that start a UTF-8 sequence the buffer does not finish (0–3). */
export function incompleteTail(buf: Buffer): number {
  for (let back = 1; back <= Math.min(4, buf.length); back++) {
    const byte = buf[buf.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // continuation: keep looking for the lead byte
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

/** Continuation bytes at the start of `buf` (a slice that began mid-character). */
export function leadingContinuation(buf: Buffer): number {
  let n = 0;
  while (n < Math.min(3, buf.length) && ((buf[n] as number) & 0xc0) === 0x80) n++;
  return n;
}

/** Whether decoded text looks like binary after all (NUL bytes, or many undecodable sequences). */
export function looksBinary(text: string): boolean {
  if (text.includes("\u0000")) return true;
  let bad = 0;
  for (const ch of text) if (ch === "\uFFFD") bad++;
  return bad > 8 && bad > text.length / 100;
}
