/**
 * Small real PDFs for tests: PDF 1.4, Helvetica, one uncompressed content stream per page, a
 * cross-reference table with the true byte offsets (so a strict reader needs no repair).
 */

/** Text a PDF string literal can hold: printable ASCII with ( ) \ escaped. */
function literal(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, "").replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A PDF with one page per entry, each page showing its lines top to bottom. */
export function pdfWithPages(pages: readonly (readonly string[])[]): Buffer {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${4 + i * 2} 0 R`).join(" ")}] /Count ${pages.length} >>`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
  ];
  pages.forEach((lines, i) => {
    const stream = ["BT /F1 11 Tf 72 770 Td 14 TL", ...lines.map((l) => `(${literal(l)}) Tj T*`), "ET"].join(
      "\n",
    );
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`,
      `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
    );
  });
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** Ten pages of 50 lines each (about 48 KB, 40,000 characters of text). */
export function tenPagePdf(): Buffer {
  return pdfWithPages(
    Array.from({ length: 10 }, (_, p) =>
      Array.from(
        { length: 50 },
        (_, l) => `Page ${p + 1} line ${l + 1}: the harbour master recorded the tides and the keepers.`,
      ),
    ),
  );
}
