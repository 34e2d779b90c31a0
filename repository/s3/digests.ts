import { S3Error } from "./errors.js";

/**
 * The digests an S3 client may declare for a body, read from its headers: `Content-MD5` (base64 MD5),
 * `X-Amz-Content-SHA256` (hex SHA-256, or `UNSIGNED-PAYLOAD`), and the newer flexible checksums
 * `x-amz-checksum-crc32|sha1|sha256` (base64). Each one sent is verified against the bytes that arrived
 * (body.ts); a malformed one is refused before any byte is read. `x-amz-checksum-crc32c` and
 * `-crc64nvme` are not verified (Node has no implementation of those polynomials); they are ignored.
 *
 * A body in `aws-chunked` encoding (`X-Amz-Content-SHA256: STREAMING-…`, what SDKs send when their
 * checksum calculation is left on "when supported" for a stream of unknown length) is refused with
 * 501: its framing would otherwise end up inside the package. The real service's clients turn that
 * calculation to "when required", which sends the body plain.
 */

export interface ExpectedDigests {
  /** Content-MD5 (a mismatch is S3's BadDigest). */
  md5?: Buffer;
  /** X-Amz-Content-SHA256 (a mismatch is S3's XAmzContentSHA256Mismatch). */
  contentSha256?: Buffer;
  /** The flexible checksums (a mismatch is BadDigest). */
  sha256?: Buffer;
  sha1?: Buffer;
  crc32?: Buffer;
}

export function expectedDigests(headers: Headers): ExpectedDigests {
  const out: ExpectedDigests = {};

  const contentSha = headers.get("x-amz-content-sha256")?.trim();
  const encoding = headers.get("content-encoding") ?? "";
  if (contentSha?.startsWith("STREAMING-") || /(?:^|,)\s*aws-chunked\s*(?:,|$)/i.test(encoding)) {
    throw new S3Error(
      501,
      "NotImplemented",
      "This service does not read aws-chunked bodies (X-Amz-Content-SHA256: STREAMING-…); send the body plain: set the client's request checksum calculation to WHEN_REQUIRED (requestChecksumCalculation in the JavaScript SDK, request_checksum_calculation in botocore)",
    );
  }
  if (contentSha && contentSha !== "UNSIGNED-PAYLOAD") {
    if (!/^[0-9a-fA-F]{64}$/.test(contentSha)) {
      throw new S3Error(
        400,
        "InvalidArgument",
        `X-Amz-Content-SHA256 must be UNSIGNED-PAYLOAD or the body's SHA-256 in 64 hex digits, got "${contentSha.slice(0, 80)}"`,
      );
    }
    out.contentSha256 = Buffer.from(contentSha, "hex");
  }

  const md5 = headers.get("content-md5");
  if (md5 !== null) {
    const bytes = base64Digest(md5, 16);
    if (!bytes) {
      throw new S3Error(
        400,
        "InvalidDigest",
        `The Content-MD5 you specified is not valid: it must be the body's MD5 in base64 (24 characters), got "${md5.slice(0, 80)}"`,
      );
    }
    out.md5 = bytes;
  }

  for (const [name, key, length] of [
    ["x-amz-checksum-crc32", "crc32", 4],
    ["x-amz-checksum-sha1", "sha1", 20],
    ["x-amz-checksum-sha256", "sha256", 32],
  ] as const) {
    const raw = headers.get(name);
    if (raw === null) continue;
    const bytes = base64Digest(raw, length);
    if (!bytes) {
      throw new S3Error(
        400,
        "InvalidRequest",
        `Value for ${name} header is invalid: it must be the body's checksum in base64 (${length} bytes)`,
      );
    }
    out[key] = bytes;
  }
  return out;
}

/** A base64 digest of exactly `length` bytes, or undefined. */
function base64Digest(raw: string, length: number): Buffer | undefined {
  const s = raw.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(s)) return undefined;
  const bytes = Buffer.from(s, "base64");
  return bytes.length === length ? bytes : undefined;
}
