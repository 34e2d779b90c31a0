import type { ContentStore } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import { prepared } from "../store/statements.js";
import { isPdfFile, PDF_MAX_BYTES, pdfText } from "./pdf-text.js";

/**
 * The words inside an asset's files, for full-text search: the text of the small text files (plain
 * text, CSV, XML, JSON) and of the PDFs (pdf-text.ts: unpdf in a worker, capped in size and time) of
 * the active generations of its content objects goes into the `file_text` column of the asset's
 * `entity_fts` row, so a search finds an asset by a word of its transcript, register or report. Other
 * binary formats (images, audio) are not read.
 *
 * Kept current without hooks in the writers: bitstream rows are only ever added (a new file, a new
 * generation, a new representation), so a watermark (the highest bitstream id already indexed, in
 * `meta`) tells which assets have new files. Before a text search, `ensureFileText` indexes the assets
 * owning bitstreams above the watermark, then moves it. A store upgraded to schema 4 starts at 0, so
 * its first text search fills the column; the seeds write the words of their text files themselves and
 * set the watermark (see `markFileTextIndexed`).
 *
 * PDFs have a watermark of their own: their text can only be extracted asynchronously, which the
 * seeds (one synchronous transaction) cannot do, and stores indexed before PDFs were read hold their
 * PDFs below the text watermark. The catch-up indexes the assets owning PDFs above the PDF watermark,
 * so a freshly seeded or upgraded store has its PDFs' words read by its first text search.
 */

/** Bytes read of one file: enough for any transcript or register; the rest of a larger file is not indexed. */
export const FILE_TEXT_MAX_BYTES = 1024 * 1024;
/** Characters indexed per asset, all its text files together. */
const ASSET_TEXT_MAX_CHARS = 1024 * 1024;
/** Assets indexed per write transaction while catching up. */
const BATCH = 500;
const MARK_KEY = "file_text_bitstream_mark";
const PDF_MARK_KEY = "file_text_pdf_bitstream_mark";

const TEXT_EXTENSIONS = new Set(["txt", "text", "csv", "tsv", "xml", "json", "md"]);
const TEXT_MIME = /^(text\/[\w.+-]+|application\/(xml|json|[\w.+-]+\+(xml|json)))(;.*)?$/i;
const MARKUP_EXTENSIONS = new Set(["xml"]);
const MARKUP_MIME = /xml/i;

/** Whether a file is read for its words: by media type, or by extension when the type is generic. */
export function isTextFile(filename: string, mimeType: string): boolean {
  if (TEXT_MIME.test(mimeType.trim())) return true;
  const ext = filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";
  return TEXT_EXTENSIONS.has(ext);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The words of an XML document: markup removed, entity and character references decoded. */
function markupText(xml: string): string {
  return xml
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, " $1 ")
    .replace(/<[^>]*>?/g, " ")
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
      if (name.startsWith("#")) {
        const code =
          name[1]?.toLowerCase() === "x" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : " ";
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    });
}

/**
 * The searchable text of a file's first bytes (at most FILE_TEXT_MAX_BYTES); "" for a file that is
 * not a text file by name and type (isTextFile), or not text after all (a NUL byte in it).
 */
export function textOfFile(bytes: Buffer, filename: string, mimeType: string): string {
  if (!isTextFile(filename, mimeType)) return "";
  const head = bytes.subarray(0, FILE_TEXT_MAX_BYTES);
  if (head.includes(0)) return "";
  const text = head.toString("utf8");
  const ext = filename.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";
  const words = MARKUP_EXTENSIONS.has(ext) || MARKUP_MIME.test(mimeType) ? markupText(text) : text;
  return words.replace(/\s+/g, " ").trim();
}

/** Whether a file's words are indexed: a text file or a PDF. */
export function isIndexedFile(filename: string, mimeType: string): boolean {
  return isTextFile(filename, mimeType) || isPdfFile(filename, mimeType);
}

/**
 * The searchable text of a file (text files as `textOfFile`; PDFs extracted, at most
 * FILE_TEXT_MAX_BYTES characters, "" when larger than PDF_MAX_BYTES or unreadable).
 */
export async function textOfFileAsync(bytes: Buffer, filename: string, mimeType: string): Promise<string> {
  if (isTextFile(filename, mimeType)) return textOfFile(bytes, filename, mimeType);
  if (!isPdfFile(filename, mimeType)) return "";
  const text = await pdfText(bytes, { maxChars: FILE_TEXT_MAX_BYTES });
  return text.replace(/\s+/g, " ").trim();
}

async function readHead(content: ContentStore, sha256: string, size: number, max: number): Promise<Buffer> {
  if (size === 0 || !content.has(sha256)) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  const end = Math.min(size, max) - 1;
  for await (const chunk of content.read(sha256, { start: 0, end })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface FileRow {
  filename: string;
  mime_type: string;
  size: number;
  sha256: string;
}

/** The bytes of a file that are read: the first MiB of a text file, the whole of a PDF up to its cap. */
async function readIndexed(content: ContentStore, f: FileRow): Promise<Buffer> {
  if (!isTextFile(f.filename, f.mime_type)) {
    if (f.size > PDF_MAX_BYTES) return Buffer.alloc(0);
    return readHead(content, f.sha256, f.size, PDF_MAX_BYTES);
  }
  return readHead(content, f.sha256, f.size, FILE_TEXT_MAX_BYTES);
}

/** The text of an asset's text files and PDFs (active generations, every representation), capped. */
async function assetFileText(
  db: Db,
  content: ContentStore,
  ioRef: string,
  cache: Map<string, string>,
): Promise<string> {
  const files = prepared(
    db,
    `SELECT b.filename, b.mime_type, b.size, b.content_sha256 AS sha256
     FROM entities c
     JOIN generations g ON g.co_ref = c.ref AND g.active = 1
     JOIN bitstreams b ON b.generation_id = g.id
     WHERE c.parent_ref = ? AND c.type = 'CO' AND c.deleted = 0
     ORDER BY c.id, g.idx, b.idx`,
  ).all(ioRef) as FileRow[];
  const parts: string[] = [];
  const seen = new Set<string>();
  let length = 0;
  for (const f of files) {
    if (length >= ASSET_TEXT_MAX_CHARS) break;
    if (seen.has(f.sha256) || !isIndexedFile(f.filename, f.mime_type)) continue;
    seen.add(f.sha256);
    // A text file's words depend on its name and type (markup or not); a PDF's only on its bytes.
    const key = isTextFile(f.filename, f.mime_type)
      ? `${f.sha256}\n${f.filename}\n${f.mime_type}`
      : `${f.sha256}\npdf`;
    let text = cache.get(key);
    if (text === undefined) {
      text = await textOfFileAsync(await readIndexed(content, f), f.filename, f.mime_type);
      cache.set(key, text);
    }
    if (text !== "") {
      parts.push(text);
      length += text.length + 1;
    }
  }
  return parts.join(" ").slice(0, ASSET_TEXT_MAX_CHARS);
}

/** An asset's text from its files' texts in order (as `textOfFile` gives them): duplicates once, capped. */
export function joinFileTexts(texts: readonly string[]): string {
  return [...new Set(texts.filter((t) => t !== ""))].join(" ").slice(0, ASSET_TEXT_MAX_CHARS);
}

/** Writes one asset's file text into its FTS row, skipping rows already holding that text. */
export function storeFileText(db: Db, ioRef: string, text: string): void {
  const row = prepared(
    db,
    "SELECT f.rowid AS id, f.file_text AS text FROM entities e JOIN entity_fts f ON f.rowid = e.id WHERE e.ref = ?",
  ).get(ioRef) as { id: number; text: string | null } | undefined;
  if (!row || (row.text ?? "") === text) return;
  prepared(db, "UPDATE entity_fts SET file_text = ? WHERE rowid = ?").run(text, row.id);
}

function readMark(db: Db, key = MARK_KEY): number {
  const row = prepared(db, "SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

function writeMark(db: Db, mark: number, key = MARK_KEY): void {
  prepared(
    db,
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(key, String(mark));
}

function latestBitstream(db: Db): number {
  return (prepared(db, "SELECT coalesce(max(id), 0) AS n FROM bitstreams").get() as { n: number }).n;
}

/**
 * For bulk writers that fill `file_text` themselves with `textOfFile` (synchronous, text files only):
 * every bitstream written so far is indexed, except PDFs, left to the catch-up's PDF watermark.
 */
export function markFileTextIndexed(db: Db): void {
  writeMark(db, latestBitstream(db));
}

/**
 * The assets to index: those that gained a text file above the text watermark or a PDF above the PDF
 * watermark, and those that gained other files above the text watermark while their row holds file
 * text (a text file replaced by an image must lose its words). Assets that gained only non-indexed
 * files and hold no text (most of a store, on its first catch-up) are skipped without a query each.
 */
function assetsToIndex(db: Db, marks: { text: number; pdf: number }, to: number): string[] {
  const added = prepared(
    db,
    `SELECT b.id, c.parent_ref AS ref, b.filename, b.mime_type FROM bitstreams b
     JOIN generations g ON g.id = b.generation_id
     JOIN entities c ON c.ref = g.co_ref
     WHERE b.id > ? AND b.id <= ? AND c.parent_ref IS NOT NULL`,
  ).all(Math.min(marks.text, marks.pdf), to) as {
    id: number;
    ref: string;
    filename: string;
    mime_type: string;
  }[];
  const withText = new Set<string>();
  const others = new Set<string>();
  for (const b of added) {
    const pdf = isPdfFile(b.filename, b.mime_type) && !isTextFile(b.filename, b.mime_type);
    if (pdf ? b.id > marks.pdf : b.id > marks.text && isTextFile(b.filename, b.mime_type))
      withText.add(b.ref);
    else if (b.id > marks.text) others.add(b.ref);
  }
  for (const ref of withText) others.delete(ref);
  if (others.size === 0) return [...withText];
  const holdingText = new Set(
    prepared(
      db,
      "SELECT e.ref FROM entity_fts f JOIN entities e ON e.id = f.rowid WHERE coalesce(f.file_text, '') <> ''",
    )
      .pluck()
      .all() as string[],
  );
  return [...withText, ...[...others].filter((ref) => holdingText.has(ref))];
}

async function catchUp(
  db: Db,
  content: ContentStore,
  marks: { text: number; pdf: number },
  to: number,
): Promise<void> {
  const assets = assetsToIndex(db, marks, to);
  const cache = new Map<string, string>();
  for (let i = 0; i < assets.length || i === 0; i += BATCH) {
    const batch = assets.slice(i, i + BATCH);
    const texts: [string, string][] = [];
    for (const ref of batch) texts.push([ref, await assetFileText(db, content, ref, cache)]);
    const last = i + BATCH >= assets.length;
    db.transaction(() => {
      for (const [ref, text] of texts) storeFileText(db, ref, text);
      // Moved only with the last batch: an interrupted catch-up is redone, never half-skipped.
      if (last && readMark(db) < to) writeMark(db, to);
      if (last && readMark(db, PDF_MARK_KEY) < to) writeMark(db, to, PDF_MARK_KEY);
    })();
  }
}

const running = new WeakMap<Db, Promise<void>>();

/**
 * Indexes the files of every asset that gained files since the last call (across restarts: the
 * watermark is stored). Concurrent callers share one run. Cheap when nothing changed: two lookups.
 */
export function ensureFileText(db: Db, content: ContentStore): Promise<void> {
  const inFlight = running.get(db);
  if (inFlight) return inFlight;
  const latest = latestBitstream(db);
  const marks = { text: readMark(db), pdf: readMark(db, PDF_MARK_KEY) };
  if (latest <= marks.text && latest <= marks.pdf) return Promise.resolve();
  const run = catchUp(db, content, marks, latest).finally(() => running.delete(db));
  running.set(db, run);
  return run;
}
