import { XmlWriter } from "../xml/writer.js";

/**
 * Errors of the S3-compatible upload, answered the way S3 answers them: an `<Error>` document (no
 * namespace) with a Code that S3 clients turn into the exception's name (`NoSuchBucket`, `BadDigest`,
 * ...), a Message that says what is wrong and what to do, the Resource and a RequestId. The rest of the
 * service answers JSON; inside /api/s3 every reply is S3's shape, because that is what the clients parse.
 */

export type S3Status = 400 | 401 | 403 | 404 | 405 | 411 | 413 | 500 | 501;

export class S3Error extends Error {
  constructor(
    readonly status: S3Status,
    readonly code: string,
    message: string,
    /** Extra reply headers (Allow on a 405). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The `<Error>` document of a refusal. */
export function errorDocument(err: S3Error, resource: string, requestId: string): string {
  return new XmlWriter()
    .open("Error")
    .leaf("Code", err.code)
    .leaf("Message", err.message)
    .leaf("Resource", resource)
    .leaf("RequestId", requestId)
    .close("Error")
    .toString();
}

// The refusals the routes share, each with the way out.

export function noSuchBucket(bucket: string, yours: string): S3Error {
  return new S3Error(
    404,
    "NoSuchBucket",
    `The bucket "${clip(bucket)}" does not exist for you; packages for your tenant go to the bucket "${yours}" (path /api/s3/buckets/${yours}/<key>)`,
  );
}

export function noSuchUpload(uploadId: string): S3Error {
  return new S3Error(
    404,
    "NoSuchUpload",
    `There is no multipart upload "${clip(uploadId)}" of yours for this key: it was completed, aborted, or left unused for a day and removed; start a new one with POST ?uploads`,
  );
}

export function accessDenied(message: string): S3Error {
  return new S3Error(403, "AccessDenied", message);
}

export function invalidArgument(message: string): S3Error {
  return new S3Error(400, "InvalidArgument", message);
}

/** A client-supplied value shown in a message, cut short (it may be megabytes of junk). */
export function clip(s: string, max = 100): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
