import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { FileFormat } from "../../api/entity.js";

/**
 * The text of a PDF for `get_file`, extracted on our side from the downloaded bytes: the service's API has
 * no per-file extracted text (only `xip.full_text`, one text per asset, through search). unpdf (PDF.js,
 * pure JavaScript) runs in a worker thread, started on the first PDF and stopped when idle, so the server
 * stays light: nothing of PDF.js is loaded until a PDF is asked for. A hostile or huge PDF is cut off by a
 * deadline and a heap limit (the worker is terminated; the file is then offered as a link).
 */

/** Larger PDFs are not downloaded for their text (PDF.js needs the whole file). */
export const PDF_TEXT_MAX_BYTES = 16 * 1024 * 1024;
/** Characters of text extracted at most (pages in order). */
export const PDF_TEXT_MAX_CHARS = 1024 * 1024;
const TIMEOUT_MS = 15_000;
const WORKER_HEAP_MB = 256;
const IDLE_MS = 30_000;

/** PRONOM ids of PDF (1.0–2.0) and PDF/A. */
const PDF_PUIDS = new Set([
  "fmt/14",
  "fmt/15",
  "fmt/16",
  "fmt/17",
  "fmt/18",
  "fmt/19",
  "fmt/20",
  "fmt/276",
  "fmt/1129",
  "fmt/95",
  "fmt/354",
  "fmt/476",
  "fmt/477",
  "fmt/478",
  "fmt/479",
  "fmt/480",
  "fmt/481",
]);

/** Whether the file's name or identified format says it is a PDF. */
export function looksLikePdf(filename: string, formats: readonly FileFormat[]): boolean {
  return /\.pdf$/i.test(filename) || formats.some((f) => f.puid !== undefined && PDF_PUIDS.has(f.puid));
}

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

export type PdfTextResult = { text: string; pages: number } | { error: string };

let worker: Worker | undefined;
let queue: Promise<unknown> = Promise.resolve();
let idle: NodeJS.Timeout | undefined;

function startWorker(): Worker {
  const w = new Worker(WORKER_SOURCE, {
    eval: true,
    // Not the parent's flags: `--input-type=module` would make this CommonJS source fail to load.
    execArgv: [],
    workerData: { library: createRequire(import.meta.url).resolve("unpdf") },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  w.unref();
  w.once("exit", () => {
    if (worker === w) worker = undefined;
  });
  return w;
}

function stopWorker(): void {
  const w = worker;
  worker = undefined;
  if (w) void w.terminate();
}

function runOne(bytes: Uint8Array, maxChars: number, signal?: AbortSignal): Promise<PdfTextResult> {
  clearTimeout(idle);
  worker ??= startWorker();
  const w = worker;
  return new Promise<PdfTextResult>((resolve) => {
    const finish = (result: PdfTextResult, broken: boolean) => {
      clearTimeout(timer);
      w.off("message", onMessage);
      w.off("error", onError);
      w.off("exit", onExit);
      signal?.removeEventListener("abort", onAbort);
      if (broken && worker === w) stopWorker();
      idle = setTimeout(stopWorker, IDLE_MS);
      idle.unref();
      resolve(result);
    };
    const onMessage = (m: { text?: string; pages?: number; error?: string }) =>
      finish(m.error !== undefined ? { error: m.error } : { text: m.text ?? "", pages: m.pages ?? 0 }, false);
    const onError = () => finish({ error: "the PDF reader failed on it (too large or malformed)" }, true);
    const onExit = () => finish({ error: "the PDF reader stopped on it" }, true);
    const onAbort = () => finish({ error: "the call was cancelled" }, true);
    const timer = setTimeout(
      () => finish({ error: `reading its text took longer than ${TIMEOUT_MS / 1000} s` }, true),
      TIMEOUT_MS,
    );
    w.on("message", onMessage);
    w.once("error", onError);
    w.once("exit", onExit);
    signal?.addEventListener("abort", onAbort, { once: true });
    const copy = new Uint8Array(bytes);
    w.postMessage({ bytes: copy, maxChars }, [copy.buffer]);
  });
}

/** The text of a PDF (at most `maxChars`), or why there is none. One file at a time; never throws. */
export function extractPdfText(
  bytes: Uint8Array,
  maxChars: number,
  signal?: AbortSignal,
): Promise<PdfTextResult> {
  const run = queue.then(() => runOne(bytes, Math.min(maxChars, PDF_TEXT_MAX_CHARS), signal));
  queue = run.catch(() => undefined);
  return run;
}
