import { FORMATS } from "./seed/files.js";

/**
 * Format identification of uploaded files, good enough for the formats the demo holds: by signature
 * bytes first (as PRONOM/DROID would), then, for text and for files no signature recognises, by the
 * file name's extension. The PRONOM identifiers for formats the seed also stores come from the seed's
 * own table, so an uploaded PDF 1.4 or PNG is described exactly as a seeded one.
 */

export interface IdentifiedFormat {
  mimeType: string;
  /** PRONOM unique identifier; null when the format is unknown. */
  puid: string | null;
  formatName: string | null;
  formatVersion: string | null;
  formatGroup: string | null;
  /** How the format was recognised. */
  method: "Signature" | "Extension" | "None";
}

type Known = Omit<IdentifiedFormat, "method">;

const known = (f: {
  mimeType: string;
  puid: string;
  formatName: string;
  formatVersion: string | null;
  formatGroup: string;
}): Known => ({
  mimeType: f.mimeType,
  puid: f.puid,
  formatName: f.formatName,
  formatVersion: f.formatVersion,
  formatGroup: f.formatGroup,
});

const TXT = known(FORMATS.txt);
const CSV = known(FORMATS.csv);
const XML = known(FORMATS.xml);
const PNG = known(FORMATS.png);
const JSON_FORMAT: Known = {
  mimeType: "application/json",
  puid: "fmt/817",
  formatName: "JSON Data Interchange Format",
  formatVersion: null,
  formatGroup: "json",
};
const ZIP: Known = {
  mimeType: "application/zip",
  puid: "x-fmt/263",
  formatName: "ZIP Format",
  formatVersion: null,
  formatGroup: "zip",
};
const TIFF: Known = {
  mimeType: "image/tiff",
  puid: "fmt/353",
  formatName: "Tagged Image File Format",
  formatVersion: null,
  formatGroup: "tiff",
};
const JPEG: Known = {
  mimeType: "image/jpeg",
  puid: "fmt/41",
  formatName: "Raw JPEG Stream",
  formatVersion: null,
  formatGroup: "jpeg",
};
const GIF89A: Known = {
  mimeType: "image/gif",
  puid: "fmt/4",
  formatName: "Graphics Interchange Format",
  formatVersion: "89a",
  formatGroup: "gif",
};
const GIF87A: Known = { ...GIF89A, puid: "fmt/3", formatVersion: "87a" };
const WAV: Known = {
  mimeType: "audio/x-wav",
  puid: "fmt/6",
  formatName: "Waveform Audio",
  formatVersion: null,
  formatGroup: "wav",
};

/** PDF versions and their PRONOM identifiers. */
const PDF_PUIDS: Record<string, string> = {
  "1.0": "fmt/14",
  "1.1": "fmt/15",
  "1.2": "fmt/16",
  "1.3": "fmt/17",
  "1.4": FORMATS.pdf.puid,
  "1.5": "fmt/19",
  "1.6": "fmt/20",
  "1.7": "fmt/276",
  "2.0": "fmt/1129",
};
function pdf(version: string | null): Known {
  const v = version && version in PDF_PUIDS ? version : "1.7";
  return {
    mimeType: FORMATS.pdf.mimeType,
    puid: PDF_PUIDS[v] as string,
    formatName: `Acrobat PDF ${v} - Portable Document Format`,
    formatVersion: v,
    formatGroup: FORMATS.pdf.formatGroup,
  };
}

/** JPEG File Interchange Format versions (the JFIF header names them). */
const JFIF_PUIDS: Record<string, string> = { "1.00": "fmt/42", "1.01": "fmt/43", "1.02": "fmt/44" };

/** WAV by the size of its `fmt ` chunk, which says which header structure it uses. */
const WAV_BY_FMT_SIZE: Record<number, Known> = {
  16: known(FORMATS.wav),
  18: { ...WAV, puid: "fmt/142", formatName: "Waveform Audio (WAVEFORMATEX)" },
  40: { ...WAV, puid: "fmt/143", formatName: "Waveform Audio (WAVEFORMATEXTENSIBLE)" },
};

const ascii = (head: Uint8Array, start: number, end: number) =>
  Buffer.from(head.subarray(start, end)).toString("latin1");

const startsWith = (head: Uint8Array, bytes: readonly number[], at = 0) =>
  head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);

/** Binary formats recognised by their first bytes. */
function bySignature(head: Uint8Array): Known | undefined {
  if (ascii(head, 0, 5) === "%PDF-") return pdf(/^%PDF-(\d\.\d)/.exec(ascii(head, 0, 8))?.[1] ?? null);
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG;
  if (startsWith(head, [0xff, 0xd8, 0xff])) {
    if (ascii(head, 6, 11) === "JFIF\0" && head.length >= 13) {
      const version = `${head[11]}.${String(head[12]).padStart(2, "0")}`;
      const puid = JFIF_PUIDS[version];
      if (puid) {
        return { ...JPEG, puid, formatName: "JPEG File Interchange Format", formatVersion: version };
      }
    }
    return JPEG;
  }
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return TIFF;
  if (ascii(head, 0, 6) === "GIF89a") return GIF89A;
  if (ascii(head, 0, 6) === "GIF87a") return GIF87A;
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WAVE") {
    const fmtSize =
      ascii(head, 12, 16) === "fmt " && head.length >= 20 ? Buffer.from(head).readUInt32LE(16) : 0;
    return WAV_BY_FMT_SIZE[fmtSize] ?? WAV;
  }
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) return ZIP;
  return undefined;
}

const BY_EXTENSION: Record<string, Known> = {
  txt: TXT,
  text: TXT,
  csv: CSV,
  xml: XML,
  json: JSON_FORMAT,
  pdf: pdf(null),
  png: PNG,
  jpg: JPEG,
  jpeg: JPEG,
  tif: TIFF,
  tiff: TIFF,
  gif: GIF89A,
  wav: WAV,
  zip: ZIP,
};

/** Whether the first bytes look like text: valid UTF-8 (a cut-off last character allowed), no NULs. */
function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

const TEXT_FORMATS: ReadonlySet<Known> = new Set([TXT, CSV, XML, JSON_FORMAT]);

/** Text: an XML declaration is a signature; otherwise a text extension decides, else the first character. */
function textFormat(head: Uint8Array, ext: string): IdentifiedFormat {
  const text = Buffer.from(head)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  if (text.startsWith("<?xml")) return { ...XML, method: "Signature" };
  const byExt = BY_EXTENSION[ext];
  if (byExt && TEXT_FORMATS.has(byExt)) return { ...byExt, method: "Extension" };
  const first = text.trimStart()[0];
  if (first === "{" || first === "[") return { ...JSON_FORMAT, method: "Signature" };
  if (first === "<") return { ...XML, method: "Signature" };
  return { ...TXT, method: "Signature" };
}

/** How many leading bytes `identifyFormat` looks at. */
export const IDENTIFY_HEAD_BYTES = 4096;

/** Identifies a file from its first bytes (up to IDENTIFY_HEAD_BYTES) and its name. */
export function identifyFormat(head: Uint8Array, filename: string): IdentifiedFormat {
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  const signed = bySignature(head);
  if (signed) return { ...signed, method: "Signature" };
  if (head.length > 0 && looksLikeText(head)) return textFormat(head, ext);
  const byExt = BY_EXTENSION[ext];
  if (byExt) return { ...byExt, method: "Extension" };
  return {
    mimeType: "application/octet-stream",
    puid: null,
    formatName: null,
    formatVersion: null,
    formatGroup: null,
    method: "None",
  };
}
