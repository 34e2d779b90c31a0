import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { isPdfFile, PDF_MAX_BYTES, pdfText } from "../../../repository/search/pdf-text.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { pdfWithPages, tenPagePdf } from "./pdf-fixture.js";

/** PDF text extraction (repository/search/pdf-text.ts): real PDFs through unpdf in its worker. */
describe("pdfText", () => {
  it("reads every page's words, in order", async () => {
    const text = await pdfText(
      pdfWithPages([["Minutes of the quarry committee"], ["The ferrymen (1887) objected"]]),
      {
        maxChars: 10_000,
      },
    );
    expect(text).toMatch(/Minutes of the quarry committee\s+The ferrymen \(1887\) objected/);
  });

  it("stops at maxChars", async () => {
    const text = await pdfText(tenPagePdf(), { maxChars: 500 });
    expect(text.length).toBe(500);
    expect(text).toMatch(/^Page 1 line 1: the harbour master/);
  });

  it("gives nothing for a file that is not a readable PDF, and goes on with the next", async () => {
    expect(await pdfText(Buffer.from("%PDF-1.4 walrus walrus walrus"), { maxChars: 100 })).toBe("");
    expect(await pdfText(Buffer.from("not a pdf at all"), { maxChars: 100 })).toBe("");
    expect(await pdfText(pdfWithPages([["still working"]]), { maxChars: 100 })).toMatch(/still working/);
  });

  it("does not read a PDF over the size cap", async () => {
    const big = Buffer.concat([pdfWithPages([["oversized"]]), Buffer.alloc(PDF_MAX_BYTES)]);
    expect(await pdfText(big, { maxChars: 100 })).toBe("");
  });

  it("gives up on a file past the deadline, and the next file is read by a fresh worker", async () => {
    // Ten thousand pages take far longer than 1 ms: the worker is stopped mid-file.
    const slow = pdfWithPages(Array.from({ length: 10_000 }, (_, i) => [`page ${i}`]));
    expect(await pdfText(slow, { maxChars: 1 << 20, timeoutMs: 1 })).toBe("");
    expect(await pdfText(pdfWithPages([["afterwards"]]), { maxChars: 100 })).toMatch(/afterwards/);
  });

  it("lets a process that read a PDF exit at once (the idle worker holds nothing open)", () => {
    // A short-lived process (the tour, a CLI run) used to wait out the worker's 30-second idle time.
    // The built module (npm test builds first), as the CLI runs it.
    const built = fileURLToPath(new URL("../../../dist/repository/search/pdf-text.js", import.meta.url));
    const script = `
      import { pdfText } from ${JSON.stringify(pathToFileURL(built).href)};
      const bytes = new Uint8Array(Buffer.from(${JSON.stringify(pdfWithPages([["quick exit"]]).toString("base64"))}, "base64"));
      const text = await pdfText(bytes, { maxChars: 100 });
      if (!text.includes("quick exit")) { console.error(JSON.stringify(text)); process.exit(3); }`;
    const started = Date.now();
    const file = join(tempDir("pdf-exit-"), "read-one.mjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], {
      timeout: 20_000,
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("recognises PDFs by media type or extension", () => {
    expect(isPdfFile("scan.bin", "application/pdf")).toBe(true);
    expect(isPdfFile("Scan.PDF", "application/octet-stream")).toBe(true);
    expect(isPdfFile("notes.txt", "text/plain")).toBe(false);
  });
});
