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
