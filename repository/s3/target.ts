import type { Caller, ServiceContext } from "../context.js";
import { isUuid } from "../http/params.js";
import { Permission } from "../store/auth.js";
import { findEntity } from "../store/entities/read.js";
import { accessDenied, clip, invalidArgument, noSuchBucket, S3Error } from "./errors.js";

/**
 * What every upload request is checked against before a byte of its body is read: the bucket (the
 * caller's tenant's package-upload bucket, no other), the key (the client's name for the package,
 * never used as a path here, but refused when it looks like one that climbs out), and the target
 * folder of `x-amz-meta-structuralobjectreference` with the caller's Ingest permission on its tag.
 */

/** The one bucket a tenant's packages go to: `<tenant lower-case>.package.upload`. */
export function tenantBucket(tenant: string): string {
  return `${tenant.toLowerCase()}.package.upload`;
}

export function requireOwnBucket(caller: Caller, bucket: string): void {
  const yours = tenantBucket(caller.user.tenant);
  if (bucket !== yours) throw noSuchBucket(bucket, yours);
}

/** S3's limit on a key: 1024 bytes of UTF-8. */
const MAX_KEY_BYTES = 1024;

export function requireSafeKey(key: string): string {
  if (key === "")
    throw invalidArgument(
      "The object key is empty; name the package, e.g. /api/s3/buckets/<bucket>/<uuid>.zip",
    );
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) {
    throw new S3Error(
      400,
      "KeyTooLongError",
      `The object key is longer than ${MAX_KEY_BYTES} bytes; use a shorter name such as <uuid>.zip`,
    );
  }
  if (key.startsWith("/")) {
    throw invalidArgument(
      `The object key "${clip(key)}" starts with "/"; name the package without a leading slash, e.g. <uuid>.zip`,
    );
  }
  if (key.split(/[/\\]/).includes("..")) {
    throw invalidArgument(
      `The object key "${clip(key)}" has a ".." segment; name the package without one, e.g. <uuid>.zip`,
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(key)) {
    throw invalidArgument(
      "The object key holds control characters; name the package with printable characters, e.g. <uuid>.zip",
    );
  }
  return key;
}

/** The header naming the folder a package goes into (S3 user metadata `structuralobjectreference`). */
export const FOLDER_HEADER = "x-amz-meta-structuralobjectreference";

/**
 * The target folder (lower-cased ref) when the header names one, after checking it exists and the
 * caller may ingest into it; null when the header is absent (the package's own parent is used, and the
 * ingest checks the caller's rights there). Without a folder the caller must at least hold Ingest on
 * some security tag: a user who may ingest nowhere is refused at once rather than by a failed ingest.
 */
export function requireIngestTarget(svc: ServiceContext, caller: Caller, headers: Headers): string | null {
  return checkIngestTarget(svc, caller, headers.get(FOLDER_HEADER)?.trim() || null);
}

/** As requireIngestTarget, for a folder ref already read (a multipart upload's, checked again at completion). */
export function checkIngestTarget(svc: ServiceContext, caller: Caller, raw: string | null): string | null {
  const { user, permissions } = caller;
  if (!raw) {
    if (permissions.tagsWith(Permission.INGEST).length === 0) {
      throw accessDenied(
        `User ${user.username} lacks the ${Permission.INGEST} permission on every security tag, so may not upload packages; ask a manager for a role that may ingest`,
      );
    }
    return null;
  }
  if (!isUuid(raw)) {
    throw invalidArgument(
      `${FOLDER_HEADER} must be a folder reference (a UUID such as 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f), got "${clip(raw)}"`,
    );
  }
  const ref = raw.toLowerCase();
  const folder = findEntity(svc.db, ref);
  if (folder?.type !== "SO") {
    throw new S3Error(
      404,
      "NoSuchFolder",
      folder
        ? `${FOLDER_HEADER} names ${ref}, which is not a folder (structural object); name the folder the package goes into`
        : `There is no folder ${ref} (${FOLDER_HEADER}); name an existing folder, or leave the header out to use the package's own parent`,
    );
  }
  if (!permissions.permits(folder.security_tag, Permission.INGEST)) {
    throw accessDenied(
      `User ${user.username} lacks the ${Permission.INGEST} permission on security tag "${folder.security_tag}" of folder ${ref}; upload into a folder you may ingest into`,
    );
  }
  return ref;
}
