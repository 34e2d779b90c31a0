import type { Readable } from "node:stream";
import { looksLikeToken } from "./actions.js";
import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";
import { escapeXml } from "./xml.js";

/**
 * Ingest of packages into a folder. Thin typed methods; nothing MCP-specific.
 *
 * The package (a zip: plain folders and files, OPEX or XIP) is POSTed as the body of
 * `POST /api/entity/structural-objects/{folder}`, streamed (never read into memory here); the service
 * answers 202 with a progress token as the whole text/plain body. An upload is never retried (a stream
 * cannot be replayed, and a second package would be a second ingest).
 */

export interface UploadOptions {
  /** Names the package in the service's listings and messages. */
  filename: string;
  /** Bytes the body will hold, when known beforehand (sent as Content-Length; else chunked). */
  length?: number;
  signal?: AbortSignal;
}

const REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A header value safe to send: printable ASCII, percent-encoding the rest (a file name may be any text). */
function headerSafe(name: string): string {
  return name.replace(/[^\x20-\x7e]|%/g, (c) => encodeURIComponent(c)).replace(/"/g, "%22");
}

export class IngestApi {
  constructor(private readonly http: HttpClient) {}

  /** Uploads a package into folder `folderRef`; resolves with the ingest's progress token once the service has it all. */
  async uploadPackage(folderRef: string, body: Readable, opts: UploadOptions): Promise<string> {
    if (!REF.test(folderRef))
      throw new TypeError(`Not a valid folder reference: "${folderRef}" (expected a UUID)`);
    const p = `/api/entity/structural-objects/${encodeURIComponent(folderRef)}`;
    const headers: Record<string, string> = {
      "content-type": "application/octet-stream",
      filename: headerSafe(opts.filename),
    };
    if (opts.length !== undefined) headers["content-length"] = String(opts.length);
    const res = await this.http.request<string>({
      method: "POST",
      path: p,
      body,
      headers,
      accept: "text/plain, */*;q=0.5",
      operation: "ingest.upload",
      idempotent: false,
      responseType: "text",
      signal: opts.signal,
    });
    const token = (res.data ?? "").trim();
    if (!looksLikeToken(token)) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation: "ingest.upload",
        method: "POST",
        path: p,
        detail: "the reply carried no progress token (expected a UUID as the whole body)",
      });
    }
    return token;
  }
}

const OPEX_NS = "http://www.openpreservationexchange.org/opex/v1.2";

/**
 * An OPEX manifest that gives one folder or file of a package its title and description (both optional):
 * put inside a folder as `<name>/<name>.opex`, or beside a file as `<file>.opex`.
 */
export function opexManifest(props: { title?: string; description?: string }): Buffer {
  const clean = (s: string) =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: characters XML 1.0 cannot hold are dropped.
    escapeXml(s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, ""));
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<opex:OPEXMetadata xmlns:opex="${OPEX_NS}"><opex:Properties>` +
      (props.title !== undefined ? `<opex:Title>${clean(props.title)}</opex:Title>` : "") +
      (props.description !== undefined
        ? `<opex:Description>${clean(props.description)}</opex:Description>`
        : "") +
      "</opex:Properties></opex:OPEXMetadata>\n",
    "utf8",
  );
}
