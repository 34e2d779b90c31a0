import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * The words of a PDF, for full-text search, extracted with unpdf (PDF.js in a serverless build: pure
 * JavaScript, no native module, no dependencies).
 *
 * PDF files come from depositors, so a file may be hostile: a content stream that loops, a page tree that
 * never ends, a stream that inflates to gigabytes. Extraction therefore runs in a worker thread with a heap
 * limit and a deadline per file; on a timeout or a crash the worker is terminated (which stops even a
 * synchronous loop) and the file simply contributes no words. Files are extracted one at a time; the
 * worker is started on the first PDF, does not keep the process alive, and stops after a quiet spell.
 */

/** A larger PDF is not read at all: PDF.js needs the whole file (the cross-reference table is at its end). */
export const PDF_MAX_BYTES = 32 * 1024 * 1024;
/** Time one file may take, loading included. */
export const PDF_TIMEOUT_MS = 15_000;
/** Heap of the extraction worker: a PDF needing more is given up, the service is not. */
const WORKER_HEAP_MB = 256;
/** The worker is stopped after this long without work (it holds PDF.js, tens of MiB). */
const IDLE_MS = 30_000;

const PDF_MIME = /^application\/(x-)?pdf(;.*)?$/i;

/** Whether a file is read as a PDF: by media type, or by extension when the type is generic. */
export function isPdfFile(filename: string, mimeType: string): boolean {
  return PDF_MIME.test(mimeType.trim()) || /\.pdf$/i.test(filename);
}

/**
 * Runs in the worker (CommonJS, `eval`): one message = one file; answers its text (at most maxChars,
 * pages in order, stopping at the cap) or an error. The library's own module path comes in workerData,
 * resolved by the service, so it works whatever the working directory.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
// Nothing the library prints may leave this thread (on stdio the parent's stdout is the MCP channel), and
// piping the output to the parent instead would keep the parent's process alive while the worker lives.
for (const k of ["log", "info", "warn", "error", "debug", "trace"]) console[k] = () => {};
process.stdout.write = process.stderr.write = () => true;
const unpdf = require(workerData.library);
parentPort.on("message", async ({ bytes, maxChars }) => {
  let pdf;
  try {
    pdf = await unpdf.getDocumentProxy(bytes, {
      isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0,
    });
    const parts = [];
    let length = 0;
    for (let n = 1; n <= pdf.numPages && length < maxChars; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const text = content.items.map((i) => (i.str ?? "") + (i.hasEOL ? "\\n" : "")).join("");
      parts.push(text);
      length += text.length + 1;
      page.cleanup();
    }
    parentPort.postMessage({ text: parts.join("\\n").slice(0, maxChars), pages: pdf.numPages });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  } finally {
    if (pdf) await pdf.destroy().catch(() => {});
  }
});
`;

let library: string | undefined;
function libraryPath(): string {
  library ??= createRequire(import.meta.url).resolve("unpdf");
  return library;
}

/** What one reading of a PDF gave: its text (up to the cap asked for) and its page count. */
interface PdfRead {
  text: string;
  pages: number | null;
}
const UNREAD: PdfRead = { text: "", pages: null };

interface Job {
  bytes: Uint8Array;
  maxChars: number;
  timeoutMs: number;
  resolve: (read: PdfRead) => void;
}

/** One extraction worker, fed one file at a time. */
class PdfExtractor {
  private worker: Worker | undefined;
  private queue: Job[] = [];
  private busy = false;
  private idle: NodeJS.Timeout | undefined;

  extract(bytes: Uint8Array, maxChars: number, timeoutMs: number): Promise<PdfRead> {
    return new Promise((resolve) => {
      this.queue.push({ bytes, maxChars, timeoutMs, resolve });
      this.next();
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Not the parent's flags: `--input-type=module` would make this CommonJS source fail to load.
      execArgv: [],
      workerData: { library: libraryPath() },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.unref();
    // A worker that dies between files (out of memory) is not handed the next one.
    worker.once("exit", () => {
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }

  private stop(): void {
    const w = this.worker;
    this.worker = undefined;
    if (w) void w.terminate();
  }

  private next(): void {
    if (this.busy) return;
    const job = this.queue.shift();
    if (!job) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => this.stop(), IDLE_MS);
      this.idle.unref();
      return;
    }
    clearTimeout(this.idle);
    this.busy = true;
    this.worker ??= this.start();
    const worker = this.worker;
    const finish = (read: PdfRead, broken: boolean) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", onFailure);
      worker.off("exit", onFailure);
      // A worker that timed out or died is replaced for the next file.
      if (broken && this.worker === worker) this.stop();
      this.busy = false;
      job.resolve(read);
      this.next();
    };
    const onMessage = (m: { text?: string; pages?: number }) =>
      finish({ text: m.text ?? "", pages: m.pages ?? null }, false);
    const onFailure = () => finish(UNREAD, true);
    const timer = setTimeout(() => finish(UNREAD, true), job.timeoutMs);
    worker.on("message", onMessage);
    worker.once("error", onFailure);
    worker.once("exit", onFailure);
    // A copy the worker owns: the caller's buffer may be a slice of a shared pool.
    const copy = new Uint8Array(job.bytes);
    worker.postMessage({ bytes: copy, maxChars: job.maxChars }, [copy.buffer]);
  }
}

const extractor = new PdfExtractor();

/**
 * The text of a PDF, pages in order, at most `maxChars` characters; "" when it is not a readable PDF,
 * is larger than PDF_MAX_BYTES, or takes longer than `timeoutMs`. Never throws.
 */
export async function pdfText(
  bytes: Uint8Array,
  opts: { maxChars: number; timeoutMs?: number },
): Promise<string> {
  if (bytes.length === 0 || bytes.length > PDF_MAX_BYTES) return "";
  return (await extractor.extract(bytes, opts.maxChars, opts.timeoutMs ?? PDF_TIMEOUT_MS)).text;
}

/**
 * The number of pages of a PDF (characterisation), read by the same worker without extracting any text;
 * null when it is not a readable PDF, is larger than PDF_MAX_BYTES, or takes longer than `timeoutMs`.
 */
export async function pdfPageCount(bytes: Uint8Array, timeoutMs = PDF_TIMEOUT_MS): Promise<number | null> {
  if (bytes.length === 0 || bytes.length > PDF_MAX_BYTES) return null;
  return (await extractor.extract(bytes, 0, timeoutMs)).pages;
}
