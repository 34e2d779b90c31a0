import { open } from "node:fs/promises";
import type { IdentifiedFormat } from "../formats.js";
import { PDF_MAX_BYTES, pdfPageCount } from "../search/pdf-text.js";
import type { TechnicalProperty } from "../store/characterisation/properties.js";
import type { ContentStore, StoredBlob } from "../store/content-store.js";
import { audioProperties } from "./audio.js";
import { identifyContent } from "./identify.js";
import { imageProperties } from "./image.js";
import { PROPERTY } from "./property-ids.js";

/**
 * Characterisation of a stored file: its format, identified from its content (identify.ts), and the
 * technical properties its format allows reading (image.ts, audio.ts, PDF page counts). It reads what it
 * needs, not the file: the first 512 KiB for the format and image dimensions, the EXIF reader seeks to
 * the TIFF directories itself, and a PDF's page count needs the whole file (PDF.js reads the
 * cross-reference table at its end) up to the text extractor's cap. A file it cannot read is characterised
 * with what is known (its format, maybe nothing more); characterisation never fails a store.
 */

export interface Characterisation {
  format: IdentifiedFormat;
  properties: TechnicalProperty[];
}

/** Bytes read from the start of every file. */
export const CHARACTERISE_HEAD_BYTES = 512 * 1024;

export async function characteriseStoredBlob(
  content: ContentStore,
  blob: Pick<StoredBlob, "sha256" | "size">,
  filename: string,
): Promise<Characterisation> {
  const path = content.filePath(blob.sha256);
  const head = await readBytes(path, Math.min(blob.size, CHARACTERISE_HEAD_BYTES));
  const format = await identifyContent(head, filename);
  let properties: TechnicalProperty[] = [];
  try {
    properties = await propertiesOf(format, head, path, blob.size);
  } catch {
    // A file that defeats a reader keeps its format and no properties.
  }
  return { format, properties };
}

async function propertiesOf(
  format: IdentifiedFormat,
  head: Buffer,
  path: string,
  size: number,
): Promise<TechnicalProperty[]> {
  const mime = format.mimeType;
  if (mime.startsWith("image/")) return imageProperties(head, path);
  if (mime === "application/pdf") {
    if (size > PDF_MAX_BYTES) return [];
    const pages = await oneWholePdfAtATime(async () =>
      pdfPageCount(size <= head.length ? head : await readBytes(path, size)),
    );
    return pages === null ? [] : [{ ...PROPERTY.pageCount, value: String(pages) }];
  }
  if (mime.startsWith("audio/")) return audioProperties(head, size);
  return [];
}

/**
 * A PDF is read whole (up to PDF_MAX_BYTES), and an ingest characterises several files at once: one PDF at
 * a time is in memory (the worker reads them one after another anyway), so a package of large PDFs costs
 * one of them, not one per file in flight.
 */
let pdfTurn: Promise<unknown> = Promise.resolve();
function oneWholePdfAtATime<T>(work: () => Promise<T>): Promise<T> {
  const mine = pdfTurn.then(work);
  pdfTurn = mine.catch(() => undefined);
  return mine;
}

async function readBytes(path: string, length: number): Promise<Buffer> {
  if (length <= 0) return Buffer.alloc(0);
  const file = await open(path, "r");
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await file.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
