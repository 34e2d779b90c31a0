import { createHash, randomBytes } from "node:crypto";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { buildZip, children, hash, readAsset } from "../ingest/ingest-helpers.js";
import { storeHash } from "../writes/store-hash.js";
import { settled } from "../writes/structure-helpers.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import { BUCKET, filesIn, PROGRESS, s3Client, s3Failure, type TestS3 } from "./s3-helpers.js";

/**
 * The S3-compatible upload driven by the AWS SDK for JavaScript (@aws-sdk/client-s3 and lib-storage's
 * Upload, what real tools use), configured as the real service's clients configure theirs: a small
 * package by PutObject, a large one by multipart upload, each ingested, with the progress token read off
 * the reply's Preservica-Progress-Token header; and the refusals a client meets, each in S3's shape and
 * leaving nothing behind.
 */

let repo: RunningRepository;
let users: Users;
let curatorToken: string;
let readerToken: string;
let curator: TestS3;
let folder: string;
let closedFolder: string;
/** Added to the service's clock, to make tokens expire. */
let clockOffset = 0;

beforeAll(async () => {
  repo = await startTestRepository({ now: () => Date.now() + clockOffset });
  users = await signIn(repo);
  curatorToken = (await login(repo.url, "curator")).token;
  readerToken = (await login(repo.url, "reader")).token;
  curator = s3Client(repo.url, curatorToken);
  const { db } = repo.svc;
  folder = insertEntity(db, { type: "SO", title: "S3 deposits", securityTag: "open", created: LONG_AGO }).ref;
  closedFolder = insertEntity(db, {
    type: "SO",
    title: "Closed deposits",
    securityTag: "closed",
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
});

const NOTE = "Harbour board minutes, 1921.\n";

function progressToken(s3: TestS3, command: string): string {
  const token = s3.last(command)?.headers[PROGRESS];
  expect(token, `${command} reply has no Preservica-Progress-Token`).toMatch(/^[0-9a-f-]{36}$/);
  return token as string;
}

describe("ListBuckets", () => {
  it("lists the tenant's one package-upload bucket", async () => {
    const out = await curator.client.send(new ListBucketsCommand({}));
    expect(out.Buckets?.map((b) => b.Name)).toEqual([BUCKET]);
    expect(out.Owner?.ID).toBe("curator");
    expect(curator.last("ListBucketsCommand")?.status).toBe(200);
  });
});

describe("PutObject", () => {
  it("ingests a small zip into the folder the metadata names, and answers the progress token", async () => {
    const zip = await buildZip([
      { name: "Minutes/", dir: true },
      { name: "Minutes/minutes-1921.txt", data: NOTE },
    ]);
    const key = `${randomUUID()}.zip`;
    const out = await curator.client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: key,
        Body: zip,
        Metadata: { structuralobjectreference: folder },
      }),
    );
    expect(out.ETag).toBe(`"${hash("md5", zip)}"`);
    const token = progressToken(curator, "PutObjectCommand");
    expect(await settled(users.curator, token, 30_000)).toMatchObject({ status: "COMPLETED", failed: 0 });

    const top = await children(users.curator, folder);
    const minutes = top.get("Minutes");
    expect(minutes?.type).toBe("SO");
    const inside = await children(users.curator, minutes?.ref as string);
    const asset = await readAsset(users.curator, inside.get("minutes-1921.txt")?.ref as string);
    const bs = asset.representations[0]?.contentObjects[0]?.generations[0]?.bitstreams[0];
    expect(bs?.bytes.toString()).toBe(NOTE);
    expect(bs?.fixity.SHA256).toBe(hash("sha256", NOTE));

    // The ingest is the caller's, from the S3 upload, named by the key.
    const action = repo.svc.db.prepare("SELECT username, params FROM actions WHERE id = ?").get(token) as {
      username: string;
      params: string;
    };
    expect(action.username).toBe("curator");
    expect(JSON.parse(action.params)).toMatchObject({ source: "s3", packageName: key, parentRef: folder });
    // The package was consumed: nothing is left on disk, and HEAD says so while naming the ingest.
    await repo.svc.actions.idle(); // the ingest removes its package just after its last status
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
    const gone = await s3Failure(curator.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })));
    expect(gone.status).toBe(404);
    expect(curator.last("HeadObjectCommand")?.headers[PROGRESS]).toBe(token);
  });

  it("accepts a Content-MD5 that matches, and refuses one that does not (BadDigest), storing nothing", async () => {
    const zip = await buildZip([{ name: "checked.txt", data: "checked" }]);
    const md5 = createHash("md5").update(zip).digest("base64");
    await curator.client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "checked.zip",
        Body: zip,
        ContentMD5: md5,
        Metadata: { structuralobjectreference: folder },
      }),
    );
    await settled(users.curator, progressToken(curator, "PutObjectCommand"), 30_000);

    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    const wrong = createHash("md5").update("something else").digest("base64");
    const err = await s3Failure(
      curator.client.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: "bad.zip",
          Body: zip,
          ContentMD5: wrong,
          Metadata: { structuralobjectreference: folder },
        }),
      ),
    );
    expect(err).toMatchObject({ name: "BadDigest", status: 400 });
    expect(err.message).toMatch(/Content-MD5.*did not match/);
    expect(storeHash(repo.svc.db)).toBe(before);
    await repo.svc.actions.idle(); // the ingest removes its package just after its last status
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
  });

  it("refuses a bucket that is not the tenant's (NoSuchBucket), naming the right one", async () => {
    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    const zip = await buildZip([{ name: "a.txt", data: "a" }]);
    const err = await s3Failure(
      curator.client.send(new PutObjectCommand({ Bucket: "other.package.upload", Key: "a.zip", Body: zip })),
    );
    expect(err).toMatchObject({ name: "NoSuchBucket", status: 404 });
    expect(err.message).toContain(BUCKET);
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("refuses a reader (AccessDenied, 403), with or without a folder", async () => {
    const reader = s3Client(repo.url, readerToken);
    const zip = await buildZip([{ name: "a.txt", data: "a" }]);
    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    const withFolder = await s3Failure(
      reader.client.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: "r.zip",
          Body: zip,
          Metadata: { structuralobjectreference: folder },
        }),
      ),
    );
    expect(withFolder).toMatchObject({ name: "AccessDenied", status: 403 });
    expect(withFolder.message).toMatch(/reader lacks the Ingest permission on security tag "open"/);
    const without = await s3Failure(
      reader.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: "r.zip", Body: zip })),
    );
    expect(without).toMatchObject({ name: "AccessDenied", status: 403 });
    const multipart = await s3Failure(
      reader.client.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: "r.zip" })),
    );
    expect(multipart).toMatchObject({ name: "AccessDenied", status: 403 });
    expect(storeHash(repo.svc.db)).toBe(before);
    await repo.svc.actions.idle(); // the ingest removes its package just after its last status
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([]);
  });

  it("refuses a folder that does not exist (NoSuchFolder), and ingests into a closed folder the curator may ingest into", async () => {
    const zip = await buildZip([{ name: "closed.txt", data: "closed" }]);
    const missing = await s3Failure(
      curator.client.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: "m.zip",
          Body: zip,
          Metadata: { structuralobjectreference: randomUUID() },
        }),
      ),
    );
    expect(missing).toMatchObject({ name: "NoSuchFolder", status: 404 });
    await curator.client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "c.zip",
        Body: zip,
        Metadata: { structuralobjectreference: closedFolder },
      }),
    );
    await settled(users.curator, progressToken(curator, "PutObjectCommand"), 30_000);
    expect([...(await children(users.curator, closedFolder)).keys()]).toEqual(["closed.txt"]);
  });

  it("answers 401 InvalidAccessKeyId for an expired token (clients log in again on 401)", async () => {
    const zip = await buildZip([{ name: "late.txt", data: "late" }]);
    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    clockOffset = repo.svc.tokenTtlMs + 60_000;
    try {
      const err = await s3Failure(
        curator.client.send(
          new PutObjectCommand({
            Bucket: BUCKET,
            Key: "late.zip",
            Body: zip,
            Metadata: { structuralobjectreference: folder },
          }),
        ),
      );
      expect(err).toMatchObject({ name: "InvalidAccessKeyId", status: 401 });
      expect(err.message).toMatch(/log in again/);
      const list = await s3Failure(curator.client.send(new ListBucketsCommand({})));
      expect(list).toMatchObject({ name: "InvalidAccessKeyId", status: 401 });
    } finally {
      clockOffset = 0;
    }
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});

describe("multipart upload", () => {
  it("ingests a package larger than 5 MiB sent in 5 MiB parts by lib-storage's Upload", async () => {
    const big = randomBytes(11 * 1024 * 1024 + 123);
    const zip = await buildZip([
      { name: "Survey/", dir: true },
      { name: "Survey/scan.bin", data: big, compress: false },
      { name: "Survey/notes.txt", data: NOTE },
    ]);
    expect(zip.length).toBeGreaterThan(10 * 1024 * 1024);
    const key = `${randomUUID()}.zip`;
    const upload = new Upload({
      client: curator.client,
      params: { Bucket: BUCKET, Key: key, Body: zip, Metadata: { structuralobjectreference: folder } },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    });
    const out = await upload.done();
    expect(curator.replies.filter((r) => r.command === "UploadPartCommand").length).toBe(3);
    expect(out.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
    const token = progressToken(curator, "CompleteMultipartUploadCommand");
    expect(await settled(users.curator, token, 60_000)).toMatchObject({ status: "COMPLETED", failed: 0 });

    const survey = (await children(users.curator, folder)).get("Survey");
    const inside = await children(users.curator, survey?.ref as string);
    expect([...inside.keys()].sort()).toEqual(["notes.txt", "scan.bin"]);
    const scan = await readAsset(users.curator, inside.get("scan.bin")?.ref as string);
    const bs = scan.representations[0]?.contentObjects[0]?.generations[0]?.bitstreams[0];
    expect(bs?.size).toBe(big.length);
    expect(bs?.fixity.SHA256).toBe(hash("sha256", big));
    // The parts were concatenated into the package, and both are gone once the ingest is done.
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([]);
    await repo.svc.actions.idle(); // the ingest removes its package just after its last status
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
  });

  it("aborts an upload: its parts are removed and the upload id is no longer known", async () => {
    const key = `${randomUUID()}.zip`;
    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    const { UploadId } = await curator.client.send(
      new CreateMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        Metadata: { structuralobjectreference: folder },
      }),
    );
    expect(UploadId).toBeTruthy();
    const part = await curator.client.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId,
        PartNumber: 1,
        Body: Buffer.from("PK\u0003\u0004 part one"),
      }),
    );
    expect(part.ETag).toBe(`"${hash("md5", "PK\u0003\u0004 part one")}"`);
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([UploadId]);

    await curator.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId }));
    expect(curator.last("AbortMultipartUploadCommand")?.status).toBe(204);
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([]);
    const again = await s3Failure(
      curator.client.send(
        new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 2, Body: "x" }),
      ),
    );
    expect(again).toMatchObject({ name: "NoSuchUpload", status: 404 });
    const complete = await s3Failure(
      curator.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      ),
    );
    expect(complete).toMatchObject({ name: "NoSuchUpload", status: 404 });
    expect(storeHash(repo.svc.db)).toBe(before);
  });

  it("refuses a completion naming a part with another ETag (InvalidPart) or parts under 5 MiB (EntityTooSmall), keeping the upload", async () => {
    const key = `${randomUUID()}.zip`;
    const { UploadId } = await curator.client.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }),
    );
    const p1 = await curator.client.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId,
        PartNumber: 1,
        Body: Buffer.from("PK\u0003\u0004 one"),
      }),
    );
    const p2 = await curator.client.send(
      new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 2, Body: Buffer.from("two") }),
    );
    await repo.svc.actions.idle();
    const before = storeHash(repo.svc.db);
    const complete = (parts: { PartNumber: number; ETag?: string }[]) =>
      s3Failure(
        curator.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: BUCKET,
            Key: key,
            UploadId,
            MultipartUpload: { Parts: parts },
          }),
        ),
      );
    expect(await complete([{ PartNumber: 1, ETag: p2.ETag }])).toMatchObject({
      name: "InvalidPart",
      status: 400,
    });
    expect(await complete([{ PartNumber: 3, ETag: p2.ETag }])).toMatchObject({
      name: "InvalidPart",
      status: 400,
    });
    expect(
      await complete([
        { PartNumber: 2, ETag: p2.ETag },
        { PartNumber: 1, ETag: p1.ETag },
      ]),
    ).toMatchObject({ name: "InvalidPartOrder", status: 400 });
    const small = await complete([
      { PartNumber: 1, ETag: p1.ETag },
      { PartNumber: 2, ETag: p2.ETag },
    ]);
    expect(small).toMatchObject({ name: "EntityTooSmall", status: 400 });
    expect(small.message).toMatch(/at least 5242880 bytes/);
    expect(storeHash(repo.svc.db)).toBe(before);
    // Still there for the client to fix or abort.
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([UploadId]);
    await curator.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId }));
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([]);
  });

  it("keeps an upload to the user who started it: another user's parts and completion find no upload", async () => {
    const key = `${randomUUID()}.zip`;
    const { UploadId } = await curator.client.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }),
    );
    const manager = s3Client(repo.url, (await login(repo.url, "manager")).token);
    const err = await s3Failure(
      manager.client.send(
        new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 1, Body: "x" }),
      ),
    );
    expect(err).toMatchObject({ name: "NoSuchUpload", status: 404 });
    const abort = await s3Failure(
      manager.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId })),
    );
    expect(abort).toMatchObject({ name: "NoSuchUpload", status: 404 });
    expect(filesIn(repo.svc.dataDir, "s3-uploads")).toEqual([UploadId]);
    await curator.client.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId }));
  });
});

function randomUUID(): string {
  return globalThis.crypto.randomUUID();
}
