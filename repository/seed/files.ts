/**
 * Small, valid files generated in code for the seeds: plain text, CSV, XML, PDF, PNG and WAV. Every
 * generator is a pure function of its arguments (no clock, no randomness, no zlib build differences),
 * so the same demo holds byte-identical files, and so identical fixities, on every machine.
 */

/**
 * What the repository records about a file format: PRONOM identification plus a format group, named as
 * the real service names it: the format's own short name in lower case (`tiff`, `jpeg`, `pdf` in real
 * GenerationResponses and pyPreservica's tests; the others follow the same rule).
 */
export interface FileFormat {
  extension: string;
  mimeType: string;
  puid: string;
  formatName: string;
  formatVersion: string | null;
  formatGroup: string;
}

export const FORMATS = {
  txt: {
    extension: "txt",
    mimeType: "text/plain",
    puid: "x-fmt/111",
    formatName: "Plain Text File",
    formatVersion: null,
    formatGroup: "txt",
  },
  csv: {
    extension: "csv",
    mimeType: "text/csv",
    puid: "x-fmt/18",
    formatName: "Comma Separated Values",
    formatVersion: null,
    formatGroup: "csv",
  },
  xml: {
    extension: "xml",
    mimeType: "application/xml",
    puid: "fmt/101",
    formatName: "Extensible Markup Language",
    formatVersion: "1.0",
    formatGroup: "xml",
  },
  pdf: {
    extension: "pdf",
    mimeType: "application/pdf",
    puid: "fmt/18",
    formatName: "Acrobat PDF 1.4 - Portable Document Format",
    formatVersion: "1.4",
    formatGroup: "pdf",
  },
  png: {
    extension: "png",
    mimeType: "image/png",
    puid: "fmt/11",
    formatName: "Portable Network Graphics",
    formatVersion: "1.0",
    formatGroup: "png",
  },
  wav: {
    extension: "wav",
    mimeType: "audio/x-wav",
    puid: "fmt/141",
    formatName: "Waveform Audio (PCMWAVEFORMAT)",
    formatVersion: null,
    formatGroup: "wav",
  },
} as const satisfies Record<string, FileFormat>;

export type FormatKey = keyof typeof FORMATS;

/** UTF-8 text with a final newline. */
export function textFile(text: string): Buffer {
  return Buffer.from(text.endsWith("\n") ? text : `${text}\n`, "utf8");
}

/** RFC 4180 CSV: CRLF line ends, fields quoted when they hold a comma, quote or line break. */
export function csvFile(rows: readonly (readonly (string | number)[])[]): Buffer {
  const field = (v: string | number) => {
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return Buffer.from(rows.map((r) => `${r.map(field).join(",")}\r\n`).join(""), "utf8");
}

export function escapeXml(s: string): string {
  return s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

/** A well-formed XML document: `<root xmlns=ns>` with one child element per field, in order. */
export function xmlFile(root: string, ns: string, fields: readonly (readonly [string, string])[]): Buffer {
  const body = fields.map(([name, value]) => `  <${name}>${escapeXml(value)}</${name}>\n`).join("");
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="${escapeXml(ns)}">\n${body}</${root}>\n`,
    "utf8",
  );
}

/** Text a PDF string literal can hold with the standard Latin encoding: ASCII, with ( ) \ escaped. */
function pdfString(s: string): string {
  const ascii = s
    .normalize("NFKD")
    .replace(/[^\x20-\x7e]/g, (c) => (c === "\u2013" || c === "\u2014" ? "-" : ""));
  return ascii.replaceAll("\\", "\\\\").replaceAll("(", "\\(").replaceAll(")", "\\)");
}

/** Breaks text into lines of at most `width` characters at spaces. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * A one-page PDF 1.4 (A4, Helvetica) showing the title and body lines, with a document information
 * dictionary; the cross-reference table holds the true byte offsets, so strict readers accept it.
 * `date` (ISO 8601) becomes the CreationDate, keeping the bytes free of the clock.
 */
export function pdfFile(doc: {
  title: string;
  author: string;
  date: string;
  lines: readonly string[];
}): Buffer {
  const body = doc.lines.slice(0, 48).map((l) => `(${pdfString(l)}) Tj T*`);
  const stream = [
    "BT /F1 16 Tf 72 770 Td",
    `(${pdfString(doc.title)}) Tj`,
    "ET",
    "BT /F1 11 Tf 72 740 Td 14 TL",
    ...body,
    "ET",
  ].join("\n");
  const d = doc.date.replace(/[-:T]/g, "").slice(0, 14);
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Length ${Buffer.byteLength(stream, "latin1")} >>\nstream\n${stream}\nendstream`,
    `<< /Title (${pdfString(doc.title)}) /Author (${pdfString(doc.author)}) /CreationDate (D:${d}Z) /Producer (preservation-mcp demo seed) >>`,
  ];
  // The second line is the customary binary marker telling transfer tools the file is not plain text.
  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 as PNG chunks use it (ISO 3309 / ITU-T V.42). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const x of bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * A zlib stream of stored (uncompressed) deflate blocks. Valid for every inflater, and unlike
 * `zlib.deflateSync` its bytes cannot change with the zlib build Node was linked against.
 */
export function zlibStored(data: Uint8Array): Buffer {
  const parts: Buffer[] = [Buffer.from([0x78, 0x01])];
  for (let pos = 0; pos < data.length || pos === 0; pos += 65535) {
    const chunk = data.subarray(pos, pos + 65535);
    const last = pos + 65535 >= data.length;
    const head = Buffer.alloc(5);
    head[0] = last ? 1 : 0;
    head.writeUInt16LE(chunk.length, 1);
    head.writeUInt16LE(~chunk.length & 0xffff, 3);
    parts.push(head, Buffer.from(chunk));
    if (last) break;
  }
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(adler32(data));
  parts.push(tail);
  return Buffer.concat(parts);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([len, typed, crc]);
}

export type Rgb = readonly [number, number, number];

/** An 8-bit RGB PNG whose pixels come from `pixel(x, y)`. */
export function pngFile(width: number, height: number, pixel: (x: number, y: number) => Rgb): Buffer {
  const raw = Buffer.alloc(height * (1 + width * 3));
  let i = 0;
  for (let y = 0; y < height; y++) {
    raw[i++] = 0; // filter type None
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      raw[i++] = r;
      raw[i++] = g;
      raw[i++] = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  // compression, filter and interlace methods stay 0
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlibStored(raw)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A picture for a seed asset: a sepia "photograph" or a blueprint-like "plan", drawn from a numeric
 * seed with integer arithmetic only, so each asset gets its own recognisable image.
 */
export function pictureFile(
  style: "photo" | "map" | "plan",
  seed: number,
  width: number,
  height: number,
): Buffer {
  const s = (seed >>> 0) % 997;
  return pngFile(width, height, (x, y) => {
    if (style === "plan") {
      const grid = x % 12 === 0 || y % 12 === 0;
      const shape = Math.abs(((x * 7 + s) % 53) - ((y * 5 + s) % 41)) < 2;
      return grid || shape ? [230, 238, 250] : [28, 64, 128];
    }
    if (style === "map") {
      const coast = y > (height * 2) / 3 + ((x * (3 + (s % 5))) % 9) - 4;
      const road = (x + y + s) % 17 === 0 || (x - y + 2 * height + s) % 23 === 0;
      if (coast) return [120, 160, 190];
      return road ? [150, 90, 60] : [236, 226, 196];
    }
    // photo: a sepia gradient with a horizon and a few darker "buildings"
    const horizon = Math.floor(height / 2) + (s % 7);
    const building = y > horizon - 6 - ((x * 13 + s) % 11) && y < horizon && (x + s) % 9 < 6;
    const v =
      y < horizon ? 200 - Math.floor((y * 60) / height) : 150 - Math.floor(((y - horizon) * 50) / height);
    const d = building ? 70 : 0;
    return [Math.max(0, v - d), Math.max(0, v - 20 - d), Math.max(0, v - 55 - d)];
  });
}

/**
 * A short mono 8-bit PCM WAV (8 kHz) holding a soft triangle tone whose pitch comes from `seed`:
 * a stand-in for an oral-history recording that any player opens.
 */
export function wavFile(seed: number, milliseconds = 400): Buffer {
  const rate = 8000;
  const samples = Math.floor((rate * milliseconds) / 1000);
  const period = 16 + ((seed >>> 0) % 24); // 200-500 Hz
  const data = Buffer.alloc(samples);
  for (let i = 0; i < samples; i++) {
    const phase = i % period;
    const tri = phase < period / 2 ? phase : period - phase; // 0 .. period/2
    data[i] = 128 + Math.round(((tri * 4) / period - 1) * 40);
  }
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "ascii");
  h.writeUInt32LE(36 + samples, 4);
  h.write("WAVE", 8, "ascii");
  h.write("fmt ", 12, "ascii");
  h.writeUInt32LE(16, 16); // PCMWAVEFORMAT: 16-byte fmt chunk
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate, 28); // bytes per second
  h.writeUInt16LE(1, 32); // block align
  h.writeUInt16LE(8, 34); // bits per sample
  h.write("data", 36, "ascii");
  h.writeUInt32LE(samples, 40);
  return Buffer.concat([h, data]);
}
