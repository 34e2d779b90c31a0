import { Readable } from "node:stream";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { EntityFile } from "../search/files.js";
import type { ContentStore } from "../store/content-store.js";

/** Serving stored files over HTTP: single byte ranges, Content-Disposition, and the streamed reply. */

/**
 * HTTP Range (RFC 9110 §14) for single byte ranges: `bytes=a-b`, `bytes=a-`, `bytes=-n`.
 * - `full`: no usable Range header (absent, not bytes, malformed, or several ranges, which a server may
 *   answer with the whole representation), so send 200 with everything;
 * - `partial`: send 206 with bytes start..end inclusive;
 * - `unsatisfiable`: send 416 with `Content-Range: bytes *\/size`.
 */
export type RangeDecision =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (!header) return { kind: "full" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return { kind: "full" };
  const [, first = "", last = ""] = m;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // Suffix range: the last n bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return { kind: "full" }; // invalid range-spec: ignore the header
  if (start >= size) return { kind: "unsatisfiable" };
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: "partial", start, end };
}

/** `Content-Disposition` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 / 8187). */
export function contentDisposition(filename: string, type: "attachment" | "inline" = "attachment"): string {
  const fallback = filename.replace(/[^\x20-\x7E]/g, "_").replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * A stored file's bytes, streamed from the content store (never buffered whole): 200 with everything,
 * 206 for a satisfiable single Range, 416 otherwise. HEAD gets the headers without opening the blob.
 * Shared by the Entity API's bitstream content and the Content API's download and thumbnail.
 */
export function streamStoredFile(
  c: Context,
  content: ContentStore,
  file: EntityFile,
  disposition: "attachment" | "inline" = "attachment",
): Response {
  if (!content.has(file.sha256)) {
    throw new HTTPException(500, {
      message: `The bytes of ${file.filename} (sha256 ${file.sha256}) are missing from the content store`,
    });
  }
  const decision = decideRange(c.req.header("range"), file.size);
  if (decision.kind === "unsatisfiable") {
    return c.json(
      { success: false, message: `Range not satisfiable: the file is ${file.size} bytes long` },
      416,
      {
        "Content-Range": `bytes */${file.size}`,
        "Accept-Ranges": "bytes",
      },
    );
  }
  const range = decision.kind === "partial" ? { start: decision.start, end: decision.end } : undefined;
  const length = range ? range.end - range.start + 1 : file.size;
  const headers: Record<string, string> = {
    "Content-Type": file.mimeType || "application/octet-stream",
    "Content-Disposition": contentDisposition(file.filename, disposition),
    "Accept-Ranges": "bytes",
    ETag: `"${file.sha256}"`,
    "Content-Length": String(length),
  };
  if (range) headers["Content-Range"] = `bytes ${range.start}-${range.end}/${file.size}`;
  const status = range ? 206 : 200;
  if (c.req.method === "HEAD" || length === 0) return new Response(null, { status, headers });
  const body = Readable.toWeb(content.read(file.sha256, range)) as unknown as ReadableStream<Uint8Array>;
  return new Response(body, { status, headers });
}
