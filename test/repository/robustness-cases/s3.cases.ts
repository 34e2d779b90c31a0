import { createHash } from "node:crypto";
import type { Body, Case } from "./case.js";
import { UNKNOWN_UUID } from "./junk.js";
import { FILE, OCTET, XML_TYPE } from "./wire.js";

/**
 * The S3-compatible package upload (routes/s3.ts): S3's own shapes (errors are `<Error>` documents).
 * Fixture: a multipart upload of the key junk-fixture.zip (upload) with one part stored (partEtag). Any
 * junk that got through would store a package, start an ingest, or add a part or an upload.
 */

export const S3 = "/api/s3/buckets";
const BUCKET = `${S3}/demo.package.upload`;
export const FIXTURE_KEY = `${BUCKET}/junk-fixture.zip`;
const FOLDER_HEADER = "x-amz-meta-structuralobjectreference";
/** Bytes that start like a zip: whatever else is wrong is what refuses them. */
export const ZIP_LIKE = Buffer.concat([
  Buffer.from([0x50, 0x4b, 0x03, 0x04]),
  Buffer.from("junk that is not a package"),
]);
const WRONG_MD5 = createHash("md5").update("something else").digest("base64");
const completion = (parts: string) => `<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`;
export const part = (n: string, etag: string) =>
  `<Part><PartNumber>${n}</PartNumber><ETag>"${etag}"</ETag></Part>`;

/**
 * A known defect (S3 upload, reported to the lead; that area is still being written): the service-wide
 * 1 MiB body cap (app.ts) refuses a CompleteMultipartUpload over 1 MiB in JSON, where S3 clients read an
 * `<Error>` document. The table checks what holds (413, nothing changed, still serving); the test
 * "known defect: …" shows the shape, and fails once it is fixed: then drop `knownDefect`.
 */
const S3_OVERSIZED_COMPLETION: Case = {
  name: "S3 complete: 2 MiB of parts",
  method: "POST",
  path: `${FIXTURE_KEY}?uploadId={upload}`,
  headers: XML_TYPE,
  body: completion(part("1", "{partEtag}") + " ".repeat(2 * 1024 * 1024)),
  expect: [413],
  knownDefect: "refused in JSON, not in S3's <Error> document",
};

function s3Junk(): Case[] {
  const cases: Case[] = [];
  for (const p of [
    S3,
    `${S3}/`,
    BUCKET,
    `${BUCKET}/`,
    `${BUCKET}?prefix=junk&max-keys=5`,
    `${FIXTURE_KEY}?uploadId={upload}`,
  ]) {
    cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  }
  cases.push({ name: "HEAD the bucket", method: "HEAD", path: BUCKET, expect: [200] });
  cases.push({
    name: "S3 token as a SigV4 access key",
    path: S3,
    auth: false,
    headers: {
      Authorization:
        "AWS4-HMAC-SHA256 Credential={token}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
    },
    expect: [200],
  });

  // Signing: no token, a junk one, a header that names none.
  for (const [name, headers, path, status] of [
    ["no token", {}, S3, [401]],
    ["a junk token", { "Preservica-Access-Token": "{token}x" }, BUCKET, [401]],
    ["SigV4 without Credential", { Authorization: "AWS4-HMAC-SHA256 SignedHeaders=host" }, S3, [400]],
    ["SigV4 Credential without scope", { Authorization: "AWS4-HMAC-SHA256 Credential={token}" }, S3, [400]],
    [
      "SigV4 with a junk key",
      { Authorization: "AWS4-HMAC-SHA256 Credential=x/1/2/s3/aws4_request" },
      S3,
      [401],
    ],
    ["Bearer", { Authorization: "Bearer {token}" }, S3, [400]],
    ["SigV2 with a junk key", { Authorization: "AWS {token}x:sig" }, S3, [401]],
    ["presigned junk", {}, `${S3}?X-Amz-Credential=junk`, [400]],
    ["a PUT without a token", {}, `${BUCKET}/x.zip`, [401]],
  ] as [string, Record<string, string>, string, number[]][]) {
    const put = name.startsWith("a PUT");
    cases.push({
      name: `S3 ${name}`,
      method: put ? "PUT" : "GET",
      path,
      auth: false,
      headers,
      body: put ? ZIP_LIKE : undefined,
      expect: status,
    });
  }

  // Buckets and keys.
  for (const b of ["nope", "DEMO.package.upload", "%00", "x".repeat(5000), "demo.package.upload%00"]) {
    cases.push({
      name: `S3 bucket ${b.slice(0, 20)}`,
      path: `${S3}/${b}`,
      expect: [404],
      message: /NoSuchBucket|does not exist/,
    });
    cases.push({
      name: `S3 put into bucket ${b.slice(0, 20)}`,
      method: "PUT",
      path: `${S3}/${b}/x.zip`,
      headers: OCTET,
      body: ZIP_LIKE,
      expect: [404],
    });
  }
  for (const [name, key, status] of [
    ["a .. segment", "..%2fx.zip", [400]],
    ["a backslash ..", "..%5cx.zip", [400]],
    ["a leading slash", "/x.zip", [400]],
    ["an encoded leading slash", "%2fx.zip", [400]],
    ["NUL", "x%00.zip", [400]],
    ["a newline", "x%0a.zip", [400]],
    ["1,025 bytes", "k".repeat(1025), [400]],
  ] as [string, string, number[]][]) {
    cases.push({
      name: `S3 put a key with ${name}`,
      method: "PUT",
      path: `${BUCKET}/${key}`,
      headers: OCTET,
      body: ZIP_LIKE,
      expect: status,
    });
  }

  // Whole packages (PutObject) refused before an ingest starts.
  const put = `${BUCKET}/junk.zip`;
  for (const [name, headers, body, status, message] of [
    ["not a zip", OCTET, FILE, [400], /not a zip file/],
    ["empty", OCTET, Buffer.alloc(0), [400], /empty/],
    ["not a zip, chunked", OCTET, { chunks: [FILE, FILE] }, [400], /not a zip file/],
    ["a wrong Content-MD5", { ...OCTET, "Content-MD5": WRONG_MD5 }, ZIP_LIKE, [400], /MD5|digest/i],
    ["a junk Content-MD5", { ...OCTET, "Content-MD5": "abc" }, ZIP_LIKE, [400], /Content-MD5/],
    ["a wrong SHA-256", { ...OCTET, "x-amz-content-sha256": "0".repeat(64) }, ZIP_LIKE, [400], /SHA-?256/i],
    ["a junk SHA-256", { ...OCTET, "x-amz-content-sha256": "zz" }, ZIP_LIKE, [400], /X-Amz-Content-SHA256/],
    ["a wrong CRC32", { ...OCTET, "x-amz-checksum-crc32": "AAAAAA==" }, ZIP_LIKE, [400], /CRC32|checksum/i],
    ["a junk SHA-1 checksum", { ...OCTET, "x-amz-checksum-sha1": "%%%" }, ZIP_LIKE, [400], /sha1|checksum/i],
    // S3 answers 501 NotImplemented for what it does not offer; so does this service.
    [
      "aws-chunked",
      { ...OCTET, "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" },
      ZIP_LIKE,
      [501],
      /aws-chunked/,
    ],
    [
      "a copy",
      { ...OCTET, "x-amz-copy-source": "/demo.package.upload/other.zip" },
      ZIP_LIKE,
      [501],
      /CopyObject/,
    ],
    [
      "a folder that is not a UUID",
      { ...OCTET, [FOLDER_HEADER]: "not-a-uuid" },
      ZIP_LIKE,
      [400],
      /folder reference/,
    ],
    ["an unknown folder", { ...OCTET, [FOLDER_HEADER]: UNKNOWN_UUID }, ZIP_LIKE, [404], /no folder/i],
    ["an asset as the folder", { ...OCTET, [FOLDER_HEADER]: "{io}" }, ZIP_LIKE, [404], /not a folder/],
    ["a folder in the recycle bin", { ...OCTET, [FOLDER_HEADER]: "{binned}" }, ZIP_LIKE, [404], /folder/],
    [
      "a folder the caller may not ingest into",
      { ...OCTET, [FOLDER_HEADER]: "{hidden}" },
      ZIP_LIKE,
      [403],
      /Ingest|INGEST/,
    ],
  ] as [string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({ name: `S3 put ${name}`, method: "PUT", path: put, headers, body, expect: status, message });
  }

  // Multipart: starting one into a junk folder, parts and completions that are wrong.
  for (const [name, folder, status] of [
    ["not a UUID", "x", [400]],
    ["unknown", UNKNOWN_UUID, [404]],
    ["not readable", "{hidden}", [403]],
  ] as [string, string, number[]][]) {
    cases.push({
      name: `S3 start a multipart upload into a folder ${name}`,
      method: "POST",
      path: `${BUCKET}/junk.zip?uploads`,
      headers: { [FOLDER_HEADER]: folder },
      body: "",
      expect: status,
    });
  }
  cases.push({
    name: "S3 POST an object without uploads or uploadId",
    method: "POST",
    path: put,
    body: "",
    expect: [400],
    message: /\?uploads/,
  });
  const partPath = (q: string) => `${FIXTURE_KEY}?${q}`;
  for (const n of ["0", "10001", "abc", "-1", "1.5", "", "99999999"]) {
    cases.push({
      name: `S3 part number ${JSON.stringify(n)}`,
      method: "PUT",
      path: partPath(`uploadId={upload}&partNumber=${n}`),
      headers: OCTET,
      body: ZIP_LIKE,
      expect: [400],
      message: /Part number|partNumber/,
    });
  }
  for (const [name, q, headers, status] of [
    ["a part without uploadId", "partNumber=2", OCTET, [400]],
    ["a part of an unknown upload", "uploadId=nope&partNumber=2", OCTET, [404]],
    ["a part of a junk upload id", "uploadId=..%2f..%2fx&partNumber=2", OCTET, [404]],
    [
      "a part with a wrong Content-MD5",
      "uploadId={upload}&partNumber=2",
      { ...OCTET, "Content-MD5": WRONG_MD5 },
      [400],
    ],
    [
      "a part with a junk SHA-256",
      "uploadId={upload}&partNumber=2",
      { ...OCTET, "x-amz-content-sha256": "zz" },
      [400],
    ],
  ] as [string, string, Record<string, string>, number[]][]) {
    cases.push({
      name: `S3 ${name}`,
      method: "PUT",
      path: partPath(q),
      headers,
      body: ZIP_LIKE,
      expect: status,
    });
  }
  cases.push({
    name: "S3 a part of the upload under another key",
    method: "PUT",
    path: `${BUCKET}/other.zip?uploadId={upload}&partNumber=2`,
    headers: OCTET,
    body: ZIP_LIKE,
    expect: [404],
    message: /NoSuchUpload|no multipart upload/,
  });
  const complete = partPath("uploadId={upload}");
  for (const [name, body, status, message] of [
    ["not XML", "PartNumber=1", [400], /well-formed|MalformedXML/],
    ["empty", "", [400], /empty|MalformedXML/],
    ["a DOCTYPE", `<!DOCTYPE x>${completion(part("1", "{partEtag}"))}`, [400], /DOCTYPE/],
    [
      "an external entity",
      `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${completion(`<Part><PartNumber>1</PartNumber><ETag>&e;</ETag></Part>`)}`,
      [400],
      /DOCTYPE/,
    ],
    ["a wrong root", `<Complete>${part("1", "{partEtag}")}</Complete>`, [400], /CompleteMultipartUpload/],
    ["no Part", completion(""), [400], /no Part/],
    ["PartNumber junk", completion(part("abc", "{partEtag}")), [400], /PartNumber/],
    ["PartNumber 0", completion(part("0", "{partEtag}")), [400], /Part|part/],
    ["a wrong ETag", completion(part("1", "0".repeat(32))), [400], /ETag/],
    [
      "a part never uploaded",
      completion(part("1", "{partEtag}") + part("2", "{partEtag}")),
      [400],
      /never uploaded|at least/,
    ],
    ["parts out of order", completion(part("2", "{partEtag}") + part("1", "{partEtag}")), [400], /ascending/],
    ["a part twice", completion(part("1", "{partEtag}") + part("1", "{partEtag}")), [400], /ascending|once/],
  ] as [string, string, number[], RegExp][]) {
    cases.push({
      name: `S3 complete: ${name}`,
      method: "POST",
      path: complete,
      headers: XML_TYPE,
      body,
      expect: status,
      message,
    });
  }
  cases.push(S3_OVERSIZED_COMPLETION);
  for (const [name, path] of [
    ["an unknown upload", partPath("uploadId=nope")],
    ["the upload under another key", `${BUCKET}/other.zip?uploadId={upload}`],
    ["a 5,000-character upload id", partPath(`uploadId=${"u".repeat(5000)}`)],
  ] as const) {
    cases.push({
      name: `S3 complete ${name}`,
      method: "POST",
      path,
      headers: XML_TYPE,
      body: completion(part("1", "{partEtag}")),
      expect: [404],
      message: /NoSuchUpload|no multipart upload/,
    });
    cases.push({ name: `S3 list parts of ${name}`, path, expect: [404] });
    cases.push({ name: `S3 abort ${name}`, method: "DELETE", path, expect: [404] });
  }

  // Methods and paths the upload does not offer; objects are not read back.
  for (const [method, path, status] of [
    ["GET", put, [405]],
    ["PATCH", put, [405]],
    ["PUT", BUCKET, [405]],
    ["DELETE", BUCKET, [405]],
    ["POST", S3, [405]],
    ["GET", "/api/s3/nope", [400, 404]],
  ] as [string, string, number[]][]) {
    cases.push({ name: `S3 ${method} ${path.slice(4, 60)}`, method, path, expect: status });
  }
  cases.push({ name: "S3 HEAD a key never put", method: "HEAD", path: `${BUCKET}/never.zip`, expect: [404] });
  // DeleteObject: a package put was handed to its ingest at once; there is nothing to delete (204).
  cases.push({ name: "S3 delete a key", method: "DELETE", path: put, expect: [204] });
  return cases;
}

export const CASES: Case[] = s3Junk();
export const KNOWN_DEFECTS: Case[] = [S3_OVERSIZED_COMPLETION];
