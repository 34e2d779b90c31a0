import type { IdentifiedFormat } from "../formats.js";

/**
 * PRONOM identifiers for what the `file-type` library recognises by signature (its `ext` names), for the
 * formats repository/formats.ts does not already identify with their versions (PDF, PNG, JPEG, TIFF, GIF,
 * WAV, ZIP and text come from there). Source: The National Archives' PRONOM registry
 * (nationalarchives.gov.uk/PRONOM), the version-independent entry of each format where PRONOM has one,
 * else the version a signature alone cannot tell apart from the others (noted). The format group is the
 * format's own short name, as the real service's `xip:FormatGroup` gives it (`tiff`, `jpeg`, `pdf`, …).
 */

type Pronom = Omit<IdentifiedFormat, "method" | "mimeType">;

const f = (
  puid: string,
  formatName: string,
  formatGroup: string,
  formatVersion: string | null = null,
): Pronom => ({
  puid,
  formatName,
  formatVersion,
  formatGroup,
});

/** By file-type's `ext`. */
export const PRONOM_BY_FILE_TYPE: Readonly<Record<string, Pronom>> = {
  // Images
  jp2: f("x-fmt/392", "JP2 (JPEG 2000 part 1)", "jpeg2000"),
  webp: f("fmt/567", "WebP", "webp"),
  bmp: f("fmt/116", "Windows Bitmap", "bmp", "3.0"), // the common BMP; v4/v5 headers share the signature
  psd: f("x-fmt/92", "Adobe Photoshop", "psd"),
  ico: f("x-fmt/418", "Icon file format", "ico"),
  cr2: f("fmt/592", "Canon RAW", "raw", "2"),
  tif: f("fmt/353", "Tagged Image File Format", "tiff"),
  // Audio and video
  mp3: f("fmt/134", "MPEG 1/2 Audio Layer 3", "mp3"),
  flac: f("fmt/279", "FLAC (Free Lossless Audio Codec)", "flac"),
  ogg: f("fmt/203", "Ogg Vorbis Codec Compressed Multimedia File", "ogg"),
  aif: f("x-fmt/135", "Audio Interchange File Format", "aiff"),
  mp4: f("fmt/199", "MPEG-4 Media File", "mp4"),
  mov: f("x-fmt/384", "Quicktime", "quicktime"),
  avi: f("fmt/5", "Audio/Video Interleaved Format", "avi"),
  mkv: f("fmt/569", "Matroska", "matroska"),
  webm: f("fmt/573", "WebM", "webm"),
  // Documents and containers
  docx: f("fmt/412", "Microsoft Word for Windows", "word", "2007 onwards"),
  xlsx: f("fmt/214", "Microsoft Excel for Windows", "excel", "2007 onwards"),
  pptx: f("fmt/215", "Microsoft Powerpoint for Windows", "powerpoint", "2007 onwards"),
  epub: f("fmt/483", "ePub format", "epub"),
  cfb: f("fmt/111", "OLE2 Compound Document Format", "ole2"),
  gz: f("x-fmt/266", "GZIP Format", "gzip"),
  tar: f("x-fmt/265", "Tape Archive Format", "tar"),
  "7z": f("fmt/484", "7Zip format", "7zip"),
};
