import { createHash } from "node:crypto";
import { utimesSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { buildZip, children, hash } from "../ingest/ingest-helpers.js";
import { storeHash } from "../writes/store-hash.js";
import { settled } from "../writes/structure-helpers.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import { BUCKET, filesIn, parseS3Xml, s3Error } from "./s3-helpers.js";

/**
 * The S3-compatible upload on the wire, request by request: where the token may come from, the digests
 * a client may declare (each verified), keys, sizes, 100-continue, the multipart store on disk (parts
 * replaced, listed, swept when stale), what HEAD and listings say about a package under ingest, and
 * S3's XML error shape throughout. Each refusal leaves the store and the data directory as they were.
 */

let repo: RunningRepository;
let users: Users;
let token: string;
let folder: string;
const OBJ = `/api/s3/buckets/${BUCKET}`;

beforeAll(async () => {
  repo = await startTestRepository();
  users = await signIn(repo);
  token = (await login(repo.url, "curator")).token;
  folder = insertEntity(repo.svc.db, {
    type: "SO",
    title: "Wire deposits",
    securityTag: "open",
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
  delete process.env.PRESERVATION_INGEST_PAUSE_MS;
});

/** A SigV4 Authorization header as an S3 client writes it, with the token as the access key. */
function sigv4(accessKey: string): string {
  return `AWS4-HMAC-SHA256 Credential=${accessKey}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${"0".repeat(64)}`;
}

function s3(
  path: string,
  init: RequestInit & { headers?: Record<string, string> } = {},
  base = repo.url,
  key = token,
) {
  return fetch(`${base}${path}`, {
    ...init,
    headers: {
      Authorization: sigv4(key),
      "X-Amz-Date": "20260101T000000Z",
      "X-Amz-Content-SHA256": "UNSIGNED-PAYLOAD",
      ...init.headers,
    },
  });
}

const put = (key: string, body: Buffer | string, headers: Record<string, string> = {}) =>
  s3(`${OBJ}/${key}`, {
    method: "PUT",
    body,
    headers: { "x-amz-meta-structuralobjectreference": folder, ...headers },
  });

/** Expects a refusal in S3's shape that changed neither the store nor the data directory. */
async function refusedQuietly(
  send: () => Promise<Response>,
  status: number,
  code: string,
  message?: RegExp,
): Promise<string> {
  await repo.svc.actions.idle(); // earlier ingests finished, so only this request could change anything
  const before = storeHash(repo.svc.db);
  const res = await send();
  expect(res.headers.get("content-type")).toMatch(/^application\/xml/);
  expect(res.headers.get("x-amz-request-id")).toMatch(/^[0-9A-F]{16}$/);
  const err = await s3Error(res, status);
  expect(err.code).toBe(code);
  if (message) expect(err.message).toMatch(message);
  expect(storeHash(repo.svc.db), "a refused upload changed the store").toBe(before);
  await repo.svc.actions.idle(); // an earlier ingest removes its package just after its last status
  expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
  return err.message;
}

async function ingested(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(200);
  const id = res.headers.get("preservica-progress-token") as string;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(await settled(users.curator, id, 30_000)).toMatchObject({ status: "COMPLETED" });
  return id;
}

describe("the access token", () => {
  it("is read from SigV4's Credential (signature not verified) or the Preservica-Access-Token header", async () => {
    const list = await s3("/api/s3/buckets");
    expect(list.status).toBe(200);
    const doc = parseS3Xml(await list.text()).ListAllMyBucketsResult as Record<string, unknown>;
    expect(doc["@_xmlns"]).toBe("http://s3.amazonaws.com/doc/2006-03-01/");
    expect((doc.Buckets as { Bucket: { Name: string } }).Bucket.Name).toBe(BUCKET);

    const zip = await buildZip([{ name: "header.txt", data: "by header" }]);
    const res = await fetch(`${repo.url}${OBJ}/header.zip`, {
      method: "PUT",
      body: zip,
      headers: { "Preservica-Access-Token": token, "x-amz-meta-structuralobjectreference": folder },
    });
    await ingested(res);
    expect(res.headers.get("etag")).toBe(`"${hash("md5", zip)}"`);
  });

  it("answers 401 in S3's shape when missing or unknown, 400 when the Authorization header names none", async () => {
    await refusedQuietly(
      () => fetch(`${repo.url}${OBJ}/a.zip`, { method: "PUT", body: "PK" }),
      401,
      "MissingSecurityHeader",
    );
    await refusedQuietly(
      () => s3("/api/s3/buckets", {}, repo.url, "not-a-token"),
      401,
      "InvalidAccessKeyId",
      /log in again/,
    );
    await refusedQuietly(
      () =>
        fetch(`${repo.url}/api/s3/buckets`, {
          headers: { Authorization: "AWS4-HMAC-SHA256 SignedHeaders=host" },
        }),
      400,
      "AuthorizationHeaderMalformed",
    );
  });
});

describe("declared digests", () => {
  it("verifies X-Amz-Content-SHA256 when it is a hash (XAmzContentSHA256Mismatch otherwise)", async () => {
    const zip = await buildZip([{ name: "sha.txt", data: "sha" }]);
    await ingested(await put("sha.zip", zip, { "X-Amz-Content-SHA256": hash("sha256", zip) }));
    await refusedQuietly(
      () => put("sha2.zip", zip, { "X-Amz-Content-SHA256": hash("sha256", "other") }),
      400,
      "XAmzContentSHA256Mismatch",
    );
    await refusedQuietly(
      () => put("sha3.zip", zip, { "X-Amz-Content-SHA256": "abc" }),
      400,
      "InvalidArgument",
    );
  });

  it("refuses a malformed Content-MD5 (InvalidDigest) before reading the body", async () => {
    const zip = await buildZip([{ name: "md5.txt", data: "md5" }]);
    await refusedQuietly(() => put("md5.zip", zip, { "Content-MD5": "not base64!" }), 400, "InvalidDigest");
  });

  it("verifies x-amz-checksum-crc32, as SDKs send it with their default checksum setting", async () => {
    const zip = await buildZip([{ name: "crc.txt", data: "crc" }]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(zip));
    await ingested(await put("crc.zip", zip, { "x-amz-checksum-crc32": crc.toString("base64") }));
    crc.writeUInt32BE((crc32(zip) + 1) >>> 0);
    await refusedQuietly(
      () => put("crc2.zip", zip, { "x-amz-checksum-crc32": crc.toString("base64") }),
      400,
      "BadDigest",
    );

    // The SDK left at its default ("when supported") computes a CRC32 for a buffer body.
    const sdk = new S3Client({
      endpoint: `${repo.url}/api/s3/buckets`,
      forcePathStyle: true,
      region: "us-east-1",
      credentials: { accessKeyId: token, secretAccessKey: "NOT_USED" },
      maxAttempts: 1,
    });
    const headers: Record<string, string>[] = [];
    sdk.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        headers.push((out.response as { headers: Record<string, string> }).headers);
        return out;
      },
      { step: "deserialize", name: "keep" },
    );
    await sdk.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "default.zip",
        Body: zip,
        Metadata: { structuralobjectreference: folder },
      }),
    );
    const id = headers.at(-1)?.["preservica-progress-token"] as string;
    expect(await settled(users.curator, id, 30_000)).toMatchObject({ status: "COMPLETED" });
  });

  it("refuses aws-chunked bodies (501 NotImplemented) and says how to send them plain", async () => {
    await refusedQuietly(
      () =>
        put("chunked.zip", "5;chunk-signature=x\r\nPK\u0003\u0004x\r\n0\r\n\r\n", {
          "X-Amz-Content-SHA256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        }),
      501,
      "NotImplemented",
      /WHEN_REQUIRED/,
    );
  });
});

describe("keys, bodies and paths", () => {
  it("refuses keys with a .. segment, a leading slash or control characters", async () => {
    const zip = await buildZip([{ name: "k.txt", data: "k" }]);
    await refusedQuietly(
      () => put("a/../b.zip".replace("../", "..%2F"), zip),
      400,
      "InvalidArgument",
      /"\.\."/,
    );
    // A literal "/../" is resolved away by URL parsing (client and service alike) before it is a key;
    // an encoded slash keeps it in the key.
    await refusedQuietly(() => put("..%2Fup.zip", zip), 400, "InvalidArgument", /"\.\."/);
    await refusedQuietly(() => put("deposits/..%5Cup.zip", zip), 400, "InvalidArgument", /"\.\."/);
    await refusedQuietly(
      () => put("/lead.zip", zip),
      400,
      "InvalidArgument",
      /leading slash|starts with "\/"/,
    );
    await refusedQuietly(() => put("bad%01.zip", zip), 400, "InvalidArgument");
  });

  it("refuses an empty body and a body that is not a zip, keeping nothing", async () => {
    await refusedQuietly(() => put("empty.zip", ""), 400, "InvalidPackage", /empty/);
    await refusedQuietly(() => put("text.zip", "just some text"), 400, "InvalidPackage", /not a zip/);
  });

  it("refuses a folder reference that is not a UUID, or names an asset", async () => {
    const zip = await buildZip([{ name: "f.txt", data: "f" }]);
    await refusedQuietly(
      () => put("f.zip", zip, { "x-amz-meta-structuralobjectreference": "nope" }),
      400,
      "InvalidArgument",
    );
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: "An asset",
      securityTag: "open",
      parentRef: folder,
    }).ref;
    await refusedQuietly(
      () => put("f.zip", zip, { "x-amz-meta-structuralobjectreference": asset }),
      404,
      "NoSuchFolder",
      /not a folder/,
    );
  });

  it("answers 405 with Allow for what is not offered, and InvalidURI off the bucket paths", async () => {
    const get = await s3(`${OBJ}/some.zip`);
    expect(get.headers.get("allow")).toBe("GET, HEAD, PUT, POST, DELETE");
    expect((await s3Error(get, 405)).code).toBe("MethodNotAllowed");
    expect((await s3Error(await s3(OBJ, { method: "PUT" }), 405)).code).toBe("MethodNotAllowed");
    expect((await s3Error(await s3("/api/s3/elsewhere"), 400)).code).toBe("InvalidURI");
    expect(
      (
        await s3Error(
          await s3(`${OBJ}/x.zip`, { method: "PUT", body: "x", headers: { "x-amz-copy-source": "/a/b" } }),
          501,
        )
      ).code,
    ).toBe("NotImplemented");
  });

  it("puts a plain zip without a folder at the top level (the ingest places it), and DeleteObject is 204", async () => {
    const zip = await buildZip([
      { name: "Top deposit/", dir: true },
      { name: "Top deposit/letter.txt", data: "letter" },
    ]);
    const res = await s3(`${OBJ}/top.zip`, { method: "PUT", body: zip });
    await ingested(res);
    const top = repo.svc.db
      .prepare("SELECT ref FROM entities WHERE title = 'Top deposit' AND parent_ref IS NULL")
      .get() as { ref: string } | undefined;
    expect(top).toBeDefined();
    expect([...(await children(users.curator, top?.ref as string)).keys()]).toEqual(["letter.txt"]);
    expect((await s3(`${OBJ}/top.zip`, { method: "DELETE" })).status).toBe(204);
  });

  it("honours Expect: 100-continue: the body follows the interim reply and the package is ingested", async () => {
    const zip = await buildZip([{ name: "expect.txt", data: "expected" }]);
    const url = new URL(`${repo.url}${OBJ}/expect.zip`);
    const reply = await new Promise<{ status: number; headers: Record<string, unknown>; continued: boolean }>(
      (resolve, reject) => {
        let continued = false;
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "PUT",
            headers: {
              Authorization: sigv4(token),
              "Content-Length": zip.length,
              Expect: "100-continue",
              "Content-MD5": createHash("md5").update(zip).digest("base64"),
              "x-amz-meta-structuralobjectreference": folder,
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, continued }));
          },
        );
        req.on("continue", () => {
          continued = true;
          req.end(zip);
        });
        req.on("error", reject);
      },
    );
    expect(reply.continued).toBe(true);
    expect(reply.status).toBe(200);
    const id = reply.headers["preservica-progress-token"] as string;
    expect(await settled(users.curator, id, 30_000)).toMatchObject({ status: "COMPLETED" });
  });
});

describe("a package under ingest", () => {
  it("is listed and answers HEAD while its ingest runs, then is consumed", async () => {
    const zip = await buildZip([
      { name: "slow-1.txt", data: "one" },
      { name: "slow-2.txt", data: "two" },
    ]);
    process.env.PRESERVATION_INGEST_PAUSE_MS = "600";
    let id: string;
    try {
      const res = await put("slow.zip", zip);
      expect(res.status).toBe(200);
      id = res.headers.get("preservica-progress-token") as string;
      const head = await s3(`${OBJ}/slow.zip`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-length")).toBe(String(zip.length));
      expect(head.headers.get("preservica-progress-token")).toBe(id);
      const list = parseS3Xml(await (await s3(`${OBJ}?list-type=2&prefix=slow`)).text())
        .ListBucketResult as Record<string, unknown>;
      expect(list.KeyCount).toBe("1");
      expect((list.Contents as { Key: string; Size: string }).Key).toBe("slow.zip");
    } finally {
      delete process.env.PRESERVATION_INGEST_PAUSE_MS;
    }
    expect(await settled(users.curator, id, 30_000)).toMatchObject({ status: "COMPLETED" });
    const after = await s3(`${OBJ}/slow.zip`, { method: "HEAD" });
    expect(after.status).toBe(404);
    expect(after.headers.get("preservica-progress-token")).toBe(id);
    expect((await s3(`${OBJ}/never.zip`, { method: "HEAD" })).status).toBe(404);
    expect((await s3(OBJ, { method: "HEAD" })).status).toBe(200);
    expect((await s3("/api/s3/buckets/other.package.upload", { method: "HEAD" })).status).toBe(404);
  });
});

describe("multipart on the wire", () => {
  async function initiate(key: string, base = repo.url, who = token): Promise<string> {
    const res = await s3(
      `${OBJ}/${key}?uploads`,
      { method: "POST", headers: { "x-amz-meta-structuralobjectreference": folder } },
      base,
      who,
    );
    const body = await res.text();
    expect(res.status, body).toBe(200);
    const doc = parseS3Xml(body).InitiateMultipartUploadResult as Record<string, string>;
    expect(doc).toMatchObject({
      Bucket: BUCKET,
      Key: key,
      "@_xmlns": "http://s3.amazonaws.com/doc/2006-03-01/",
    });
    return doc.UploadId as string;
  }
  const part = (
    key: string,
    uploadId: string,
    n: number,
    body: Buffer | string,
    base = repo.url,
    who = token,
  ) => s3(`${OBJ}/${key}?partNumber=${n}&uploadId=${uploadId}`, { method: "PUT", body }, base, who);

  it("replaces a part sent again under its number, lists parts, and completes with the newest", async () => {
    const zip = await buildZip([
      { name: "parts.bin", data: Buffer.alloc(6 * 1024 * 1024, 9), compress: false },
    ]);
    const first = zip.subarray(0, 5 * 1024 * 1024);
    const rest = zip.subarray(5 * 1024 * 1024);
    const id = await initiate("parts.zip");
    expect((await part("parts.zip", id, 1, Buffer.from("PK\u0003\u0004 stale"))).headers.get("etag")).toBe(
      `"${hash("md5", "PK\u0003\u0004 stale")}"`,
    );
    const p1 = await part("parts.zip", id, 1, first);
    const p2 = await part("parts.zip", id, 2, rest);
    expect(p1.headers.get("etag")).toBe(`"${hash("md5", first)}"`);
    const listed = parseS3Xml(await (await s3(`${OBJ}/parts.zip?uploadId=${id}`)).text())
      .ListPartsResult as Record<string, unknown>;
    const parts = listed.Part as { PartNumber: string; ETag: string; Size: string }[];
    expect(parts.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([
      ["1", `"${hash("md5", first)}"`, String(first.length)],
      ["2", `"${hash("md5", rest)}"`, String(rest.length)],
    ]);
    const complete = `<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><ETag>${p1.headers.get("etag")}</ETag><PartNumber>1</PartNumber></Part><Part><ETag>${p2.headers.get("etag")}</ETag><PartNumber>2</PartNumber></Part></CompleteMultipartUpload>`;
    const res = await s3(`${OBJ}/parts.zip?uploadId=${id}`, { method: "POST", body: complete });
    const doc = parseS3Xml(await res.clone().text()).CompleteMultipartUploadResult as Record<string, string>;
    expect(doc).toMatchObject({ Bucket: BUCKET, Key: "parts.zip", Location: `${repo.url}${OBJ}/parts.zip` });
    const md5s = Buffer.concat([first, rest].map((b) => createHash("md5").update(b).digest()));
    expect(doc.ETag).toBe(`"${hash("md5", md5s)}-2"`);
    await ingested(res);
    expect([...(await children(users.curator, folder)).keys()]).toContain("parts.bin");
  });

  it("refuses malformed completions and part numbers in S3's terms", async () => {
    const id = await initiate("bad.zip");
    await refusedQuietly(
      () => s3(`${OBJ}/bad.zip?uploadId=${id}`, { method: "POST", body: "<CompleteMultipartUpload/>" }),
      400,
      "MalformedXML",
    );
    await refusedQuietly(
      () => s3(`${OBJ}/bad.zip?uploadId=${id}`, { method: "POST", body: "not xml" }),
      400,
      "MalformedXML",
    );
    await refusedQuietly(() => part("bad.zip", id, 0, "x"), 400, "InvalidArgument", /between 1 and 10000/);
    await refusedQuietly(() => part("bad.zip", id, 10_001, "x"), 400, "InvalidArgument");
    await refusedQuietly(() => part("other.zip", id, 1, "x"), 404, "NoSuchUpload");
    await refusedQuietly(() => part("bad.zip", "../../etc", 1, "x"), 404, "NoSuchUpload");
    expect((await s3(`${OBJ}/bad.zip?uploadId=${id}`, { method: "DELETE" })).status).toBe(204);
  });
});

describe("limits and start-up", () => {
  let small: RunningRepository;
  let smallToken: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir("s3-upload-test-");
    small = await startTestRepository({ dataDir, maxUploadBytes: 100_000 });
    smallToken = (await login(small.url, "curator")).token;
  });

  afterAll(async () => {
    await small?.close();
  });

  it("caps a PutObject by maxUploadBytes: declared (413 before reading) or streamed", async () => {
    const body = Buffer.alloc(150_000, 1);
    const declared = await s3(`${OBJ}/big.zip`, { method: "PUT", body }, small.url, smallToken);
    expect(declared.headers.get("connection")).toBe("close");
    expect((await s3Error(declared, 413)).code).toBe("EntityTooLarge");
    const streamed = await s3(
      `${OBJ}/big.zip`,
      {
        method: "PUT",
        body: new Blob([body]).stream(),
        duplex: "half",
      } as RequestInit & { headers?: Record<string, string> },
      small.url,
      smallToken,
    );
    expect((await s3Error(streamed, 413)).code).toBe("EntityTooLarge");
    expect(filesIn(dataDir, "packages")).toEqual([]);
  });

  it("caps a multipart upload's parts together", async () => {
    const res = await s3(`${OBJ}/parts.zip?uploads`, { method: "POST" }, small.url, smallToken);
    const id = (parseS3Xml(await res.text()).InitiateMultipartUploadResult as Record<string, string>)
      .UploadId as string;
    const ok = await s3(
      `${OBJ}/parts.zip?partNumber=1&uploadId=${id}`,
      { method: "PUT", body: Buffer.alloc(60_000) },
      small.url,
      smallToken,
    );
    expect(ok.status).toBe(200);
    const over = await s3(
      `${OBJ}/parts.zip?partNumber=2&uploadId=${id}`,
      { method: "PUT", body: Buffer.alloc(60_000) },
      small.url,
      smallToken,
    );
    expect((await s3Error(over, 413)).code).toBe("EntityTooLarge");
    // Part 1 sent again counts only once.
    const again = await s3(
      `${OBJ}/parts.zip?partNumber=1&uploadId=${id}`,
      { method: "PUT", body: Buffer.alloc(90_000) },
      small.url,
      smallToken,
    );
    expect(again.status).toBe(200);
  });

  it("removes uploads left unused for a day when the service starts, and keeps fresh ones", async () => {
    const start = async (key: string) => {
      const res = await s3(`${OBJ}/${key}?uploads`, { method: "POST" }, small.url, smallToken);
      return (parseS3Xml(await res.text()).InitiateMultipartUploadResult as Record<string, string>)
        .UploadId as string;
    };
    const stale = await start("stale.zip");
    await s3(
      `${OBJ}/stale.zip?partNumber=1&uploadId=${stale}`,
      { method: "PUT", body: "old part" },
      small.url,
      smallToken,
    );
    const fresh = await start("fresh.zip");
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3_600_000);
    const dir = join(dataDir, "s3-uploads", stale);
    for (const f of filesIn(dataDir, join("s3-uploads", stale)))
      utimesSync(join(dir, f), twoDaysAgo, twoDaysAgo);
    utimesSync(dir, twoDaysAgo, twoDaysAgo);
    expect(filesIn(dataDir, "s3-uploads")).toContain(stale);

    await small.close();
    small = await startTestRepository({ dataDir, maxUploadBytes: 100_000 });
    smallToken = (await login(small.url, "curator")).token;
    const left = filesIn(dataDir, "s3-uploads");
    expect(left).not.toContain(stale);
    expect(left).toContain(fresh);
    const gone = await s3(
      `${OBJ}/stale.zip?partNumber=2&uploadId=${stale}`,
      { method: "PUT", body: "x" },
      small.url,
      smallToken,
    );
    expect((await s3Error(gone, 404)).code).toBe("NoSuchUpload");
  });
});

describe("junk", () => {
  // Every route with junk in each place a client controls: never a 500, always S3's error shape,
  // nothing stored, and the service still serving.
  const LONG = "k".repeat(2000);
  const cases: [string, () => Promise<Response>, number][] = [
    ["ListBuckets, junk token", () => s3("/api/s3/buckets/", {}, repo.url, "\u00e9\u00e9"), 401],
    ["HeadBucket, junk bucket", () => s3("/api/s3/buckets/%00%ff", { method: "HEAD" }), 404],
    ["ListObjects, other bucket", () => s3("/api/s3/buckets/x?list-type=2&max-keys=abc"), 404],
    ["PutObject, key too long", () => put(LONG, "PK"), 400],
    ["PutObject, Content-MD5 of wrong length", () => put("a.zip", "PK", { "Content-MD5": "AAAA" }), 400],
    ["PutObject, crc32 junk", () => put("a.zip", "PK", { "x-amz-checksum-crc32": "!!!" }), 400],
    [
      "PutObject, folder header huge",
      () => put("a.zip", "PK", { "x-amz-meta-structuralobjectreference": LONG }),
      400,
    ],
    ["PutObject, Authorization scheme junk", () => put("a.zip", "PK", { Authorization: "Basic abc" }), 400],
    [
      "UploadPart, partNumber junk",
      () => s3(`${OBJ}/a.zip?partNumber=1e3&uploadId=x`, { method: "PUT", body: "x" }),
      400,
    ],
    ["UploadPart, no uploadId", () => s3(`${OBJ}/a.zip?partNumber=1`, { method: "PUT", body: "x" }), 400],
    [
      "UploadPart, uploadId traversal",
      () => s3(`${OBJ}/a.zip?partNumber=1&uploadId=..%2F..%2Fpackages`, { method: "PUT", body: "x" }),
      404,
    ],
    [
      "Complete, unknown upload",
      () => s3(`${OBJ}/a.zip?uploadId=${"A".repeat(32)}`, { method: "POST", body: "<x/>" }),
      404,
    ],
    [
      "Complete, DOCTYPE",
      () =>
        s3(`${OBJ}/a.zip?uploadId=`, { method: "POST", body: '<!DOCTYPE x [<!ENTITY e "e">]><x>&e;</x>' }),
      404,
    ],
    ["POST without a query", () => s3(`${OBJ}/a.zip`, { method: "POST", body: "x" }), 400],
    ["Abort, unknown upload", () => s3(`${OBJ}/a.zip?uploadId=nope`, { method: "DELETE" }), 404],
    ["ListParts, unknown upload", () => s3(`${OBJ}/a.zip?uploadId=nope`), 404],
    ["PATCH on an object", () => s3(`${OBJ}/a.zip`, { method: "PATCH", body: "x" }), 405],
  ];

  it.each(cases)("%s", async (_name, send, status) => {
    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    const res = await send();
    expect(res.status).toBe(status);
    if (res.status !== 404 || (await res.clone().text()) !== "") {
      const body = await res.text();
      if (body) expect(parseS3Xml(body).Error, body).toBeDefined();
    }
    expect(storeHash(repo.svc.db)).toBe(before);
    await repo.svc.actions.idle();
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
    expect((await s3("/api/s3/buckets")).status).toBe(200);
  });
});
