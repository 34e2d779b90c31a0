import type { Readable } from "node:stream";
import { looksLikeToken } from "./actions.js";
import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";

/**
 * Export of folders and assets as packages. Thin typed methods; nothing MCP-specific.
 * `POST …/{structural-objects|information-objects}/{ref}/exports` with an `<ExportAction>` answers 202 with
 * a progress token; once the action has ended with a package, `GET /api/entity/actions/exports/{token}/content`
 * streams it (a zip).
 */

export interface ExportOptions {
  /** Content files in the package (default true); false = manifests only. */
  content?: boolean;
  metadata?: "Metadata" | "NoMetadata" | "MetadataWithEvents";
  generations?: "LatestActive" | "AllActive" | "All";
  /** Enclose the entity in the folders above it. */
  parentHierarchy?: boolean;
}

export interface ExportPackage {
  stream: Readable;
  /** Content-Length, when the service sent one. */
  length?: number;
  filename?: string;
  /**
   * Digests the service states for the whole package (from Repr-Digest, Digest or Content-MD5 headers),
   * algorithm (sha-256, sha-512, sha-1, md5) → lower-case hex.
   */
  digests: Record<string, string>;
}

const ENTITY_NS = "http://preservica.com/EntityAPI/v7.7";
const REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ALGORITHMS: Record<string, string> = {
  "sha-256": "sha256",
  sha256: "sha256",
  "sha-512": "sha512",
  sha512: "sha512",
  sha: "sha1",
  "sha-1": "sha1",
  sha1: "sha1",
  md5: "md5",
};

/** `Repr-Digest: sha-256=:…:` / `Digest: SHA-256=…` (base64) and `Content-MD5` → hex by Node hash name. */
export function digestsFromHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["repr-digest", "content-digest", "digest"]) {
    const v = headers[name];
    if (!v) continue;
    for (const part of v.split(",")) {
      const m = part.trim().match(/^([A-Za-z0-9-]+)=:?([A-Za-z0-9+/=]+):?$/);
      const alg = m?.[1] ? ALGORITHMS[m[1].toLowerCase()] : undefined;
      if (alg && m?.[2] && !out[alg]) out[alg] = Buffer.from(m[2], "base64").toString("hex");
    }
  }
  const md5 = headers["content-md5"];
  if (md5 && !out.md5) out.md5 = Buffer.from(md5.trim(), "base64").toString("hex");
  return out;
}

function exportActionXml(o: ExportOptions): string {
  return (
    `<ExportAction xmlns="${ENTITY_NS}">` +
    `<IncludeContent>${o.content === false ? "NoContent" : "Content"}</IncludeContent>` +
    `<IncludeMetadata>${o.metadata ?? "Metadata"}</IncludeMetadata>` +
    `<IncludedGenerations>${o.generations ?? "LatestActive"}</IncludedGenerations>` +
    `<IncludeParentHierarchy>${o.parentHierarchy ? "true" : "false"}</IncludeParentHierarchy>` +
    "</ExportAction>"
  );
}

export class ExportApi {
  constructor(private readonly http: HttpClient) {}

  /** Starts an export of folder (`SO`) or asset (`IO`) `ref`; resolves with its progress token. */
  async start(
    ref: string,
    type: "SO" | "IO",
    options: ExportOptions = {},
    signal?: AbortSignal,
  ): Promise<string> {
    if (!REF.test(ref)) throw new TypeError(`Not a valid reference: "${ref}" (expected a UUID)`);
    const p = `/api/entity/${type === "SO" ? "structural-objects" : "information-objects"}/${encodeURIComponent(ref)}/exports`;
    const res = await this.http.request<string>({
      method: "POST",
      path: p,
      body: exportActionXml(options),
      headers: { "content-type": "application/xml;charset=UTF-8" },
      accept: "text/plain, */*;q=0.5",
      operation: "export.start",
      idempotent: false,
      responseType: "text",
      signal,
    });
    const token = (res.data ?? "").trim();
    if (!looksLikeToken(token)) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation: "export.start",
        method: "POST",
        path: p,
        detail: "the reply carried no progress token (expected a UUID as the whole body)",
      });
    }
    return token;
  }

  /** The package of a finished export, streamed. */
  async download(token: string, signal?: AbortSignal): Promise<ExportPackage> {
    if (!looksLikeToken(token))
      throw new TypeError(`Not a valid progress token: "${token}" (expected a UUID)`);
    const res = await this.http.request<Readable>({
      path: `/api/entity/actions/exports/${encodeURIComponent(token)}/content`,
      accept: "application/zip, application/octet-stream;q=0.9, */*;q=0.5",
      operation: "export.download",
      responseType: "stream",
      signal,
    });
    const length = res.headers["content-length"];
    const filename = res.headers["content-disposition"]?.match(/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i)?.[1];
    return {
      stream: res.data,
      ...(length && /^\d+$/.test(length) ? { length: Number(length) } : {}),
      ...(filename ? { filename } : {}),
      digests: digestsFromHeaders(res.headers),
    };
  }
}
