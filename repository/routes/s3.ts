import { createHash, randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv, ServiceContext } from "../context.js";
import { requestText } from "../http/request-text.js";
import { newPackagePath } from "../ingest/packages.js";
import { packageQuota } from "../ingest/quota.js";
import { fileLooksLikeZip } from "../ingest/receive.js";
import { startIngest } from "../ingest/start.js";
import { BodyTooLarge, type ReceivedBody, receiveBody } from "../s3/body.js";
import { findAccessToken } from "../s3/credentials.js";
import { expectedDigests } from "../s3/digests.js";
import { clip, errorDocument, invalidArgument, noSuchUpload, S3Error } from "../s3/errors.js";
import {
  abortUpload,
  assembleParts,
  claimedParts,
  claimUpload,
  createUpload,
  findUpload,
  MAX_PART_NUMBER,
  MIN_PART_BYTES,
  releaseUpload,
  removeUploadFolder,
  type StoredPart,
  storedParts,
  storePart,
  sweepUploads,
  UploadGone,
  type UploadRecord,
} from "../s3/multipart.js";
import { latestUpload, waitingUploads } from "../s3/objects.js";
import {
  checkIngestTarget,
  requireIngestTarget,
  requireOwnBucket,
  requireSafeKey,
  tenantBucket,
} from "../s3/target.js";
import {
  completeMultipartUploadResult,
  initiateMultipartUploadResult,
  listBucketsResult,
  listObjectsResult,
  listPartsResult,
  parseCompleteMultipartUpload,
} from "../s3/xml.js";
import type { ActionRow } from "../store/actions/read.js";
import { getUser, Permissions } from "../store/auth.js";
import { quotaMessage } from "../store/storage/quota.js";
import { liveToken } from "../store/tokens.js";
import { DEFAULT_MAX_UPLOAD_BYTES } from "./entity-content-writes.js";

/**
 * The S3-compatible package upload (mounted at /api/s3), as the real service offers it and its clients
 * (pyPreservica through boto3, any S3 SDK) use it: path-style `/api/s3/buckets/<tenant>.package.upload/
 * <key>`, the Preservica access token as the access key (signature not verified), single PutObject and
 * multipart uploads. Every package that arrives whole is handed to an ingest at once, and the reply
 * that completes it (PutObject, CompleteMultipartUpload) carries the ingest's progress token in
 * `Preservica-Progress-Token`. Bodies stream to disk, never into memory, capped by `maxUploadBytes`.
 * Replies and errors are S3's XML; a missing or expired token is 401 (the real service's clients log in
 * again on 401), a missing permission 403 AccessDenied, a package over the storage quota 403 QuotaExceeded. See docs/repository-api/s3-upload.md.
 */

type S3Env = { Variables: AppEnv["Variables"] & { requestId: string } };
type S3Context = Context<S3Env>;

export const PROGRESS_TOKEN_HEADER = "Preservica-Progress-Token";
const XML_TYPE = "application/xml";

export function s3Routes(): Hono<AppEnv> {
  const app = new Hono<S3Env>();
  app.onError((err, c) => errorReply(c as S3Context, err));
  app.use(async (c, next) => {
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    c.set("requestId", requestId);
    c.header("x-amz-request-id", requestId);
    authenticate(c);
    await next();
  });
  // Hono answers HEAD with the GET route (body dropped): the GET handlers tell the two apart.
  app.get("/buckets", listBuckets);
  app.get("/buckets/", listBuckets);
  app.get("/buckets/:bucket", bucket);
  app.get("/buckets/:bucket/", bucket);
  app.get("/buckets/:bucket/:key{.+}", getObject);
  app.put("/buckets/:bucket/:key{.+}", putObject);
  app.post("/buckets/:bucket/:key{.+}", postObject);
  app.delete("/buckets/:bucket/:key{.+}", deleteObject);
  app.all("*", (c) => {
    throw unsupported(c.req.method, c.req.path);
  });
  // Its own middleware sets requestId before any handler runs; to the app it is a sub-app like the others.
  return app as unknown as Hono<AppEnv>;
}

// --- authentication and errors ---------------------------------------------------------------------

function authenticate(c: S3Context): void {
  const svc = c.get("svc");
  const found = findAccessToken(c.req.raw.headers, new URL(c.req.url).searchParams);
  if (!found) {
    throw new S3Error(
      401,
      "MissingSecurityHeader",
      "No access token: log in at /api/accesstoken/login and sign the request with the token as the S3 access key (any secret), or send it in Preservica-Access-Token",
    );
  }
  if ("malformed" in found) {
    throw new S3Error(
      400,
      "AuthorizationHeaderMalformed",
      `${found.malformed}: sign with AWS4-HMAC-SHA256 and the Preservica access token as the access key, or send the token in Preservica-Access-Token`,
    );
  }
  const row = liveToken(svc.db, found.token, svc.now());
  const user = row ? getUser(svc.db, row.username) : undefined;
  if (!row || !user?.enabled) {
    throw new S3Error(
      401,
      "InvalidAccessKeyId",
      "The access key (a Preservica access token) is unknown or has expired; log in again at /api/accesstoken/login and sign with the new token as the access key",
    );
  }
  c.set("caller", { user, token: found.token, permissions: new Permissions(svc.db, user.roles) });
}

function errorReply(c: S3Context, err: Error): Response {
  let e: S3Error;
  if (err instanceof S3Error) e = err;
  else if (err instanceof BodyTooLarge) e = entityTooLarge(err.maxBytes);
  else if (err instanceof UploadGone) e = noSuchUpload(c.req.query("uploadId") ?? "");
  else if (err instanceof HTTPException) e = fromHttpException(err);
  else if ((err as NodeJS.ErrnoException).code === "ECONNRESET") {
    e = new S3Error(
      400,
      "IncompleteBody",
      "The request body was cut off; nothing was stored. Send the request again",
    );
  } else {
    // Never a stack trace on the wire; the operator sees it on stderr.
    console.error(`repository: ${c.req.method} ${c.req.path} failed:`, err);
    e = new S3Error(500, "InternalError", "Internal error; see the repository service's log");
  }
  const headers: Record<string, string> = { "Content-Type": XML_TYPE, ...e.headers };
  // The rest of a body refused for its size is never read: the connection cannot carry another request.
  if (e.status === 413) headers.Connection = "close";
  return c.body(errorDocument(e, c.req.path, c.get("requestId") ?? ""), e.status, headers);
}

function fromHttpException(err: HTTPException): S3Error {
  const codes: Record<number, [S3Error["status"], string]> = {
    400: [400, "InvalidRequest"],
    401: [401, "InvalidAccessKeyId"],
    403: [403, "AccessDenied"],
    404: [404, "NoSuchKey"],
    413: [413, "EntityTooLarge"],
  };
  const [status, code] = codes[err.status] ?? [500, "InternalError"];
  return new S3Error(status, code, err.message);
}

function entityTooLarge(maxBytes: number): S3Error {
  return new S3Error(
    413,
    "EntityTooLarge",
    `Your proposed upload exceeds the maximum allowed size: this service accepts packages of at most ${maxBytes} bytes; nothing was stored. Split the content into smaller packages`,
  );
}

/** The reply to a method or path the upload does not offer, saying what it does offer. */
function unsupported(method: string, path: string): S3Error {
  const rest = path.replace(/^\/api\/s3/, "");
  const allowed = /^\/buckets\/?$/.test(rest)
    ? "GET"
    : /^\/buckets\/[^/]+\/?$/.test(rest)
      ? "GET, HEAD"
      : /^\/buckets\/[^/]+\/.+$/.test(rest)
        ? "GET, HEAD, PUT, POST, DELETE"
        : undefined;
  if (!allowed) {
    return new S3Error(
      400,
      "InvalidURI",
      `No such S3 path: ${path.slice(0, 200)}; the upload's paths are /api/s3/buckets (list), /api/s3/buckets/<tenant>.package.upload and /api/s3/buckets/<tenant>.package.upload/<key>`,
    );
  }
  return new S3Error(
    405,
    "MethodNotAllowed",
    `${method} is not offered on ${path.slice(0, 200)}: buckets are fixed (one per tenant) and packages are put, not read back; use ${allowed}`,
    { Allow: allowed },
  );
}

// --- buckets ---------------------------------------------------------------------------------------

function owner(c: S3Context): { id: string; name: string } {
  const { user } = c.get("caller");
  return { id: user.username, name: user.fullName || user.username };
}

/** ListBuckets: the caller's tenant has exactly one bucket, for package uploads. */
function listBuckets(c: S3Context): Response {
  const svc = c.get("svc");
  const { user } = c.get("caller");
  return xmlReply(
    c,
    listBucketsResult(owner(c), [{ name: tenantBucket(user.tenant), created: bucketCreated(svc) }]),
  );
}

/** The bucket's creation date: when the store got its first entity (or now, for an empty store). */
function bucketCreated(svc: ServiceContext): string {
  const row = svc.db.prepare("SELECT min(created) AS d FROM entities").get() as { d: string | null };
  const t = row.d ? Date.parse(row.d) : Number.NaN;
  return new Date(Number.isNaN(t) ? svc.now() : t).toISOString();
}

/** HeadBucket, or ListObjects: the caller's packages still waiting for their ingest. */
function bucket(c: S3Context): Response {
  const name = c.req.param("bucket") ?? "";
  requireOwnBucket(c.get("caller"), name);
  c.header("x-amz-bucket-region", "us-east-1");
  if (c.req.method === "HEAD") return c.body(null, 200);
  const svc = c.get("svc");
  const prefix = c.req.query("prefix") ?? "";
  const rawMax = c.req.query("max-keys");
  const maxKeys = rawMax && /^\d{1,6}$/.test(rawMax) ? Math.min(Number(rawMax), 1000) : 1000;
  const found = waitingUploads(svc.db, svc.dataDir, c.get("caller").user.username, prefix, maxKeys + 1);
  const objects = found.slice(0, maxKeys).map((p) => ({
    key: p.key,
    lastModified: new Date(p.uploaded).toISOString(),
    size: p.size,
  }));
  return xmlReply(c, listObjectsResult(name, prefix, maxKeys, objects, found.length > maxKeys));
}

// --- objects ---------------------------------------------------------------------------------------

function objectParams(c: S3Context): { bucket: string; key: string } {
  const bucketName = c.req.param("bucket") ?? "";
  requireOwnBucket(c.get("caller"), bucketName);
  return { bucket: bucketName, key: requireSafeKey(c.req.param("key") ?? "") };
}

/** HeadObject; GET with ?uploadId is ListParts; GetObject is not offered (packages are not read back). */
async function getObject(c: S3Context): Promise<Response> {
  const { bucket: bucketName, key } = objectParams(c);
  if (c.req.method === "HEAD") return headObject(c, key);
  const uploadId = c.req.query("uploadId");
  if (uploadId !== undefined) return listParts(c, await ownUpload(c, uploadId, bucketName, key));
  throw unsupported("GET", c.req.path);
}

/**
 * HeadObject: 200 while the package under this key (the caller's newest) waits for or is in its ingest;
 * 404 once the ingest consumed it, or when there never was one. Both name the ingest's progress token.
 */
function headObject(c: S3Context, key: string): Response {
  const svc = c.get("svc");
  const pkg = latestUpload(svc.db, svc.dataDir, c.get("caller").user.username, key);
  if (!pkg?.waiting) {
    throw new S3Error(
      404,
      "NoSuchKey",
      pkg
        ? `The package "${key}" was consumed by its ingest (${pkg.status}); follow it with the progress token`
        : `You have uploaded no package "${key}"`,
      pkg ? { [PROGRESS_TOKEN_HEADER]: pkg.actionId } : {},
    );
  }
  return c.body(null, 200, {
    "Content-Type": "application/zip",
    "Content-Length": String(pkg.size),
    "Last-Modified": new Date(pkg.uploaded).toUTCString(),
    [PROGRESS_TOKEN_HEADER]: pkg.actionId,
  });
}

/** PutObject (a whole package → an ingest), or UploadPart when the query names a part. */
async function putObject(c: S3Context): Promise<Response> {
  const uploadId = c.req.query("uploadId");
  const partNumber = c.req.query("partNumber");
  if (uploadId !== undefined || partNumber !== undefined) return uploadPart(c, uploadId, partNumber);
  if (c.req.header("x-amz-copy-source") !== undefined) {
    throw new S3Error(
      501,
      "NotImplemented",
      "CopyObject is not offered: packages are uploaded, not copied; PUT the package's bytes",
    );
  }
  const svc = c.get("svc");
  const caller = c.get("caller");
  const { key } = objectParams(c);
  const parentRef = requireIngestTarget(svc, caller, c.req.raw.headers);
  const maxBytes = maxUploadBytes(svc);
  const declared = declaredLength(c, maxBytes);
  const expected = expectedDigests(c.req.raw.headers);
  const body = c.req.raw.body;
  if (declared === 0 || body === null) throw emptyPackage();

  const path = newPackagePath(svc.dataDir);
  const partial = `${path}.part`;
  const received = await receiveBody(body, partial, maxBytes, expected);
  try {
    if (received.size === 0) throw emptyPackage();
    if (!(await fileLooksLikeZip(partial))) throw notAZip(key);
    // Checked again: the folder may have gone, or the caller's rights changed, during a long upload.
    checkIngestTarget(svc, caller, parentRef);
    await refuseOverQuota(c, partial, parentRef, key, "nothing was stored");
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  const action = ingest(c, path, parentRef, key);
  return c.body(null, 200, { ETag: etagOf(received), [PROGRESS_TOKEN_HEADER]: action.id });
}

/** POST ?uploads starts a multipart upload; POST ?uploadId=U completes one. */
async function postObject(c: S3Context): Promise<Response> {
  if (c.req.query("uploads") !== undefined) return initiateUpload(c);
  const uploadId = c.req.query("uploadId");
  if (uploadId !== undefined) return completeUpload(c, uploadId);
  throw new S3Error(
    400,
    "InvalidRequest",
    "POST on an object needs ?uploads (start a multipart upload) or ?uploadId=<id> (complete one); upload a whole package with PUT",
  );
}

/** DELETE ?uploadId=U aborts a multipart upload; DeleteObject answers 204 (see docs: no effect). */
async function deleteObject(c: S3Context): Promise<Response> {
  const { bucket: bucketName, key } = objectParams(c);
  const uploadId = c.req.query("uploadId");
  if (uploadId !== undefined) {
    await ownUpload(c, uploadId, bucketName, key);
    if (!(await abortUpload(c.get("svc").dataDir, uploadId))) throw noSuchUpload(uploadId);
  }
  // A package put here was handed to its ingest on arrival: there is no object left to delete.
  return c.body(null, 204);
}

// --- multipart -------------------------------------------------------------------------------------

async function initiateUpload(c: S3Context): Promise<Response> {
  const svc = c.get("svc");
  const caller = c.get("caller");
  const { bucket: bucketName, key } = objectParams(c);
  const parentRef = requireIngestTarget(svc, caller, c.req.raw.headers);
  sweepUploads(svc.dataDir, svc.now());
  const upload = await createUpload(svc.dataDir, {
    bucket: bucketName,
    key,
    username: caller.user.username,
    parentRef,
    initiated: new Date(svc.now()).toISOString(),
  });
  return xmlReply(c, initiateMultipartUploadResult(bucketName, key, upload.uploadId));
}

async function uploadPart(
  c: S3Context,
  uploadId: string | undefined,
  rawNumber: string | undefined,
): Promise<Response> {
  if (uploadId === undefined || rawNumber === undefined) {
    throw invalidArgument(
      "UploadPart needs both ?partNumber=<1..10000> and ?uploadId=<id from POST ?uploads>",
    );
  }
  const partNumber = /^\d{1,5}$/.test(rawNumber) ? Number(rawNumber) : 0;
  if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
    throw invalidArgument(
      `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive; got "${rawNumber.slice(0, 20)}"`,
    );
  }
  const svc = c.get("svc");
  const { bucket: bucketName, key } = objectParams(c);
  await ownUpload(c, uploadId, bucketName, key);
  // The cap is on the whole package: what the other parts already hold counts against this one.
  let held = 0;
  for (const p of (await storedParts(svc.dataDir, uploadId)).values())
    if (p.partNumber !== partNumber) held += p.size;
  const allowance = Math.max(0, maxUploadBytes(svc) - held);
  declaredLength(c, allowance, maxUploadBytes(svc));
  const expected = expectedDigests(c.req.raw.headers);
  const body = c.req.raw.body ?? new Blob([]).stream();
  let received: ReceivedBody;
  try {
    received = await storePart(svc.dataDir, uploadId, partNumber, body, allowance, expected);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw entityTooLarge(maxUploadBytes(svc));
    throw err;
  }
  return c.body(null, 200, { ETag: etagOf(received) });
}

async function completeUpload(c: S3Context, uploadId: string): Promise<Response> {
  const svc = c.get("svc");
  const caller = c.get("caller");
  const { bucket: bucketName, key } = objectParams(c);
  const upload = await ownUpload(c, uploadId, bucketName, key);
  const requested = parseCompleteMultipartUpload(await requestText(c.req));
  for (let i = 1; i < requested.length; i++) {
    if ((requested[i]?.partNumber ?? 0) <= (requested[i - 1]?.partNumber ?? 0)) {
      throw new S3Error(
        400,
        "InvalidPartOrder",
        "The list of parts was not in ascending order: list each part once, by increasing PartNumber",
      );
    }
  }
  const parentRef = checkIngestTarget(svc, caller, upload.parentRef);

  const claimed = await claimUpload(svc.dataDir, uploadId);
  if (!claimed) throw noSuchUpload(uploadId);
  let parts: StoredPart[];
  try {
    parts = chosenParts(await claimedParts(claimed), requested, maxUploadBytes(svc));
    if (!(await fileLooksLikeZip((parts[0] as StoredPart).path))) throw notAZip(key);
  } catch (err) {
    await releaseUpload(svc.dataDir, uploadId, claimed);
    throw err;
  }
  const path = newPackagePath(svc.dataDir);
  try {
    await assembleParts(parts, path);
  } catch (err) {
    await releaseUpload(svc.dataDir, uploadId, claimed);
    throw err;
  }
  try {
    await refuseOverQuota(
      c,
      path,
      parentRef,
      key,
      "nothing was ingested; the parts are kept, so complete the upload again once there is room, or abort it",
    );
  } catch (err) {
    await rm(path, { force: true });
    await releaseUpload(svc.dataDir, uploadId, claimed);
    throw err;
  }
  await removeUploadFolder(claimed);
  const action = ingest(c, path, parentRef, key);
  const etag = multipartEtag(parts);
  const location = `${new URL(c.req.url).origin}/api/s3/buckets/${bucketName}/${key.split("/").map(encodeURIComponent).join("/")}`;
  c.header(PROGRESS_TOKEN_HEADER, action.id);
  c.header("ETag", etag);
  return xmlReply(c, completeMultipartUploadResult(location, bucketName, key, etag));
}

/** The stored parts the completion lists, checked as S3 checks them. */
function chosenParts(
  stored: Map<number, StoredPart>,
  requested: { partNumber: number; md5: string }[],
  maxBytes: number,
): StoredPart[] {
  const parts = requested.map((r) => {
    const p = stored.get(r.partNumber);
    if (!p || p.md5 !== r.md5) {
      throw new S3Error(
        400,
        "InvalidPart",
        `Part ${r.partNumber} ${p ? `has the ETag "${p.md5}", not "${r.md5}"` : "was never uploaded"}: list the parts with the ETags their uploads answered`,
      );
    }
    return p;
  });
  parts.forEach((p, i) => {
    if (i < parts.length - 1 && p.size < MIN_PART_BYTES) {
      throw new S3Error(
        400,
        "EntityTooSmall",
        `Part ${p.partNumber} has ${p.size} bytes: every part but the last must have at least ${MIN_PART_BYTES} bytes (5 MiB); upload larger parts, or send a small package with one PUT`,
      );
    }
  });
  const total = parts.reduce((n, p) => n + p.size, 0);
  if (total > maxBytes) throw entityTooLarge(maxBytes);
  if (total === 0) throw emptyPackage();
  return parts;
}

/** The upload when it is the caller's, for this bucket and key; NoSuchUpload otherwise (never whose it is). */
async function ownUpload(
  c: S3Context,
  uploadId: string,
  bucketName: string,
  key: string,
): Promise<UploadRecord> {
  const upload = await findUpload(c.get("svc").dataDir, uploadId);
  if (
    !upload ||
    upload.username !== c.get("caller").user.username ||
    upload.bucket !== bucketName ||
    upload.key !== key
  ) {
    throw noSuchUpload(uploadId);
  }
  return upload;
}

async function listParts(c: S3Context, upload: UploadRecord): Promise<Response> {
  const parts = [...(await storedParts(c.get("svc").dataDir, upload.uploadId)).values()]
    .sort((a, b) => a.partNumber - b.partNumber)
    .map((p) => ({
      partNumber: p.partNumber,
      etag: `"${p.md5}"`,
      size: p.size,
      lastModified: new Date(p.modified).toISOString(),
    }));
  return xmlReply(c, listPartsResult(upload.bucket, upload.key, upload.uploadId, owner(c), parts));
}

// --- shared ----------------------------------------------------------------------------------------

/**
 * Refuses a package that would take the repository past its storage quota, before its ingest starts:
 * 403 QuotaExceeded, the code S3-compatible stores with quotas answer (Ceph RGW; S3 clients do not retry a
 * 403), with the message naming the bytes used, needed and left. Measured as the ingest measures it
 * (ingest/quota.ts: files already held cost nothing); the ingest checks again when it runs.
 */
async function refuseOverQuota(
  c: S3Context,
  packageFile: string,
  parentRef: string | null,
  key: string,
  outcome: string,
): Promise<void> {
  const { user, permissions } = c.get("caller");
  const quota = await packageQuota(c.get("svc"), packageFile, parentRef, {
    username: user.username,
    permissions,
  });
  if (quota && !quota.fits) {
    throw new S3Error(403, "QuotaExceeded", quotaMessage(quota, `the package "${clip(key)}"`, outcome));
  }
}

/** Hands a complete package file to an ingest: its action's id is the progress token. */
function ingest(c: S3Context, packagePath: string, parentRef: string | null, key: string): ActionRow {
  return startIngest(c.get("svc"), {
    packagePath,
    parentRef,
    username: c.get("caller").user.username,
    source: "s3",
    packageName: key,
  });
}

function maxUploadBytes(svc: ServiceContext): number {
  return svc.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
}

/**
 * The declared Content-Length, checked before any byte is read: well-formed, within `allowance` (413
 * naming the package cap `cap`). Without one the body must be chunked (S3's 411 otherwise).
 */
function declaredLength(c: S3Context, allowance: number, cap = allowance): number | undefined {
  const raw = c.req.header("Content-Length");
  if (raw === undefined) {
    if (c.req.header("Transfer-Encoding") === undefined) {
      throw new S3Error(
        411,
        "MissingContentLength",
        "You must provide the Content-Length HTTP header: the body's size in bytes",
      );
    }
    return undefined;
  }
  if (!/^\d{1,16}$/.test(raw.trim())) {
    throw invalidArgument(`Content-Length must be the body's size in bytes, got "${raw.slice(0, 40)}"`);
  }
  const n = Number(raw.trim());
  if (n > allowance) throw entityTooLarge(cap);
  return n;
}

function etagOf(received: ReceivedBody): string {
  return `"${received.md5.toString("hex")}"`;
}

/** S3's ETag of a multipart object: MD5 of the parts' MD5s, then `-<number of parts>`. */
function multipartEtag(parts: readonly StoredPart[]): string {
  const h = createHash("md5");
  for (const p of parts) h.update(Buffer.from(p.md5, "hex"));
  return `"${h.digest("hex")}-${parts.length}"`;
}

function emptyPackage(): S3Error {
  return new S3Error(400, "InvalidPackage", "The object is empty; put the package (a zip file) as the body");
}

function notAZip(key: string): S3Error {
  return new S3Error(
    400,
    "InvalidPackage",
    `The object "${key.slice(0, 100)}" is not a zip file; nothing was stored. Put a zipped package: a folder of files, an OPEX package (.opex manifests) or an XIP package (the .xip or metadata.xml beside content/)`,
  );
}

function xmlReply(c: S3Context, body: string): Response {
  return c.body(body, 200, { "Content-Type": XML_TYPE });
}
