import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { login, startTestRepository } from "../../helpers/repository.js";
import { buildZip, hash, ingest, progressErrors, uploadPackage } from "../ingest/ingest-helpers.js";
import { BUCKET, filesIn, PROGRESS, s3Client, s3Failure, type TestS3 } from "../s3/s3-helpers.js";
import { storeHash } from "../writes/store-hash.js";
import { accepted, settled } from "../writes/structure-helpers.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";

/**
 * The storage quota is enforced by every write that stores bytes: ingest (POST to a folder), the
 * S3-compatible upload (PutObject, multipart), content replacement, an added representation and a custom
 * preview. At the quota is allowed, one byte over is refused; bytes count as the content store counts them
 * (a file already held costs nothing); a refusal leaves no entity, no bitstream, no event and no new blob.
 * The quota is set over HTTP by an administrator (PUT /api/storage/quota), as a person would.
 */

let repo: RunningRepository;
let users: Users;
let s3: TestS3;
let folder: string;
let co: string;
let io: string;
const prior = process.env.PRESERVATION_INGEST_PAUSE_MS;

interface Quota {
  quotaBytes: number | null;
  usedBytes: number;
  remainingBytes: number | null;
  exceeded: boolean;
}

async function quota(): Promise<Quota> {
  const r = await users.reader("/api/storage/quota");
  expect(r.status).toBe(200);
  return ((await r.json()) as { value: Quota }).value;
}

/** Sets the quota over HTTP, as an administrator. */
async function setQuota(bytes: number | null): Promise<Quota> {
  const r = await users.manager("/api/storage/quota", {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ quotaBytes: bytes }),
  });
  const body = await r.text();
  expect(r.status, body).toBe(200);
  return (JSON.parse(body) as { value: Quota }).value;
}

/** Leaves exactly `left` bytes under the quota. */
async function leave(left: number): Promise<void> {
  const q = await setQuota((await quota()).usedBytes + left);
  expect(q.remainingBytes).toBe(left);
}

/** Blob files in the content store (refused uploads must not leave any). */
function blobCount(): number {
  const root = join(repo.svc.dataDir, "content");
  if (!existsSync(root)) return 0;
  let n = 0;
  for (const d of readdirSync(root)) if (/^[0-9a-f]{2}$/.test(d)) n += readdirSync(join(root, d)).length;
  return n;
}

function counts() {
  const one = (sql: string) => (repo.svc.db.prepare(sql).get() as { n: number }).n;
  return {
    entities: one("SELECT COUNT(*) AS n FROM entities"),
    bitstreams: one("SELECT COUNT(*) AS n FROM bitstreams"),
    events: one("SELECT COUNT(*) AS n FROM events"),
    blobs: blobCount(),
  };
}

/** Fresh bytes never stored before. */
const fresh = (n: number) => randomBytes(n);

function replaceContent(bytes: Buffer, filename = "new.bin"): Promise<Response> {
  return users.curator(`/api/entity/content-objects/${co}/generations?replaceType=previous`, {
    method: "POST",
    body: bytes,
    headers: {
      "Content-Type": "application/octet-stream",
      Filename: filename,
      "Fixity-SHA-256": hash("sha256", bytes),
    },
  });
}

const QUOTA_MESSAGE =
  /^Storage quota exceeded: .* needs [\d,]+ bytes of new storage, but the repository already uses [\d,]+ bytes of its [\d,]+-byte quota \(Enterprise edition\), leaving [\d,]+ bytes; .*Free space .* raise the quota \(PUT \/api\/storage\/quota\)/;

const n = (x: number) => x.toLocaleString("en");

beforeAll(async () => {
  repo = await startTestRepository();
  users = await signIn(repo);
  s3 = s3Client(repo.url, (await login(repo.url, "curator")).token);
  const { db } = repo.svc;
  folder = insertEntity(db, { type: "SO", title: "Deposits", securityTag: "open", created: LONG_AGO }).ref;
  // An asset with one content object, made by a real ingest (so it has a generation to replace).
  await setQuota(null);
  const done = await ingest(
    users.curator,
    folder,
    await buildZip([{ name: "first.txt", data: "The first file of the deposit.\n" }]),
  );
  expect(done.status).toBe("COMPLETED");
  io = (
    db.prepare("SELECT ref FROM entities WHERE type = 'IO' AND title = 'first.txt'").get() as { ref: string }
  ).ref;
  co = (
    db.prepare("SELECT ref FROM entities WHERE type = 'CO' AND parent_ref = ?").get(io) as { ref: string }
  ).ref;
});

afterEach(() => {
  if (prior === undefined) delete process.env.PRESERVATION_INGEST_PAUSE_MS;
  else process.env.PRESERVATION_INGEST_PAUSE_MS = prior;
});

afterAll(async () => {
  await repo?.close();
});

describe("PUT /api/storage/quota", () => {
  it("lets an administrator set and remove the quota, recording a config event only for a change", async () => {
    const events = () =>
      repo.svc.db
        .prepare(
          "SELECT command_type, subject, summary, username FROM config_events WHERE category = 'STORAGE' AND subject = 'quota' ORDER BY id",
        )
        .all() as { command_type: string; subject: string; summary: string; username: string }[];
    const before = events().length;
    const set = await setQuota(5_000_000);
    expect(set).toMatchObject({ quotaBytes: 5_000_000, exceeded: false });
    await setQuota(5_000_000); // the same value: nothing changes, nothing recorded
    await setQuota(null);
    expect((await quota()).quotaBytes).toBeNull();
    const after = events().slice(before);
    expect(after.map((e) => e.summary)).toEqual([
      "Changed the storage quota from no limit to 5,000,000 bytes",
      "Changed the storage quota from 5,000,000 bytes to no limit",
    ]);
    expect(after.every((e) => e.command_type === "UPDATE" && e.username === "manager")).toBe(true);
  });

  it("refuses non-administrators (403, never 401) and junk bodies (400), changing nothing", async () => {
    const was = storeHash(repo.svc.db);
    const put = (who: typeof users.curator, body: string) =>
      who("/api/storage/quota", { method: "PUT", headers: { "Content-Type": "application/json" }, body });
    const curator = await put(users.curator, '{"quotaBytes":1}');
    expect(curator.status).toBe(403);
    expect(((await curator.json()) as { message: string }).message).toMatch(/Only administrators/);
    for (const body of ['{"quotaBytes":-5}', '{"quotaBytes":"10"}', "{}", '{"quota":1}', "[]"]) {
      const r = await put(users.manager, body);
      expect(r.status, body).toBe(400);
      expect(((await r.json()) as { message: string }).message).toMatch(/quotaBytes|JSON object/);
    }
    expect(storeHash(repo.svc.db)).toBe(was);
  });
});

describe("content replacement and added representations", () => {
  it("accepts a file that fills the quota exactly, and refuses one byte more with 409, storing nothing", async () => {
    const file = fresh(5000);
    await leave(file.length);
    const ok = await replaceContent(file, "exact.bin");
    expect(ok.status, await ok.clone().text()).toBe(200);
    await repo.svc.actions.idle();
    const full = await quota();
    expect(full).toMatchObject({ remainingBytes: 0, exceeded: false });

    const over = fresh(1);
    const was = storeHash(repo.svc.db);
    const blobs = blobCount();
    const r = await replaceContent(over, "one-more.bin");
    const body = (await r.json()) as { success: boolean; message: string };
    expect(r.status, body.message).toBe(409);
    expect(body.success).toBe(false);
    expect(body.message).toMatch(QUOTA_MESSAGE);
    expect(body.message).toContain(
      `the uploaded file (1 bytes) needs 1 bytes of new storage, but the repository already uses ${n(full.usedBytes)} bytes of its ${n(full.quotaBytes as number)}-byte quota (Enterprise edition), leaving 0 bytes; nothing was stored`,
    );
    expect(storeHash(repo.svc.db), "a refused upload changed the store").toBe(was);
    expect(blobCount()).toBe(blobs);
    expect(repo.svc.content.has(hash("sha256", over))).toBe(false);
    expect(await quota()).toEqual({ ...full, measured: expect.any(String) });
  });

  it("accepts a file just under the quota, leaving the byte over", async () => {
    const file = fresh(3000);
    await leave(file.length + 1);
    const r = await replaceContent(file, "under.bin");
    expect(r.status).toBe(200);
    await repo.svc.actions.idle();
    expect((await quota()).remainingBytes).toBe(1);
  });

  it("charges nothing for a file the repository already holds, even with no room left", async () => {
    const held = repo.svc.db
      .prepare("SELECT content_sha256 AS sha, size FROM bitstreams WHERE size > 0 LIMIT 1")
      .get() as { sha: string; size: number };
    const bytes = Buffer.concat(await repo.svc.content.read(held.sha).toArray());
    await leave(0);
    const before = await quota();
    const r = await replaceContent(bytes, "again.bin");
    expect(r.status, await r.clone().text()).toBe(200);
    await repo.svc.actions.idle();
    const after = await quota();
    expect(after.usedBytes).toBe(before.usedBytes);
    expect(after.remainingBytes).toBe(0);
    // And through the same door twice in one request: an added representation of held bytes is free too.
    const rep = await users.curator(
      `/api/entity/information-objects/${io}/representations?type=Access&name=Copy&filename=copy.bin`,
      { method: "POST", body: bytes, headers: { "Content-Type": "application/octet-stream" } },
    );
    expect(rep.status).toBe(202);
    await repo.svc.actions.idle();
    expect((await quota()).usedBytes).toBe(before.usedBytes);
  });

  it("refuses an added representation over the quota with 409, before any change", async () => {
    await leave(10);
    const was = storeHash(repo.svc.db);
    const before = counts();
    const r = await users.curator(
      `/api/entity/information-objects/${io}/representations?type=Access&name=Big&filename=big.bin`,
      { method: "POST", body: fresh(11), headers: { "Content-Type": "application/octet-stream" } },
    );
    const body = (await r.json()) as { message: string };
    expect(r.status, body.message).toBe(409);
    expect(body.message).toMatch(QUOTA_MESSAGE);
    expect(body.message).toContain("needs 11 bytes of new storage");
    expect(body.message).toContain("leaving 10 bytes");
    expect(storeHash(repo.svc.db)).toBe(was);
    expect(counts()).toEqual(before);
  });

  it("refuses a custom preview over the quota with 409 (previews are stored bytes too)", async () => {
    await leave(10);
    const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), fresh(64)]);
    const was = storeHash(repo.svc.db);
    const r = await users.manager(`/api/entity/information-objects/${io}/preview`, {
      method: "PUT",
      body: png,
      headers: { "Content-Type": "image/png" },
    });
    const body = (await r.json()) as { message: string };
    expect(r.status, body.message).toBe(409);
    expect(body.message).toMatch(QUOTA_MESSAGE);
    expect(storeHash(repo.svc.db)).toBe(was);
  });
});

describe("ingest", () => {
  it("ingests a package whose new bytes fill the quota exactly; its two copies of one file count once", async () => {
    const a = fresh(2000);
    const b = fresh(1500);
    await leave(a.length + b.length);
    const zip = await buildZip([
      { name: "Box/a.bin", data: a },
      { name: "Box/b.bin", data: b },
      { name: "Box/a-copy.bin", data: a },
    ]);
    const done = await ingest(users.curator, folder, zip);
    expect(done.status, done.message).toBe("COMPLETED");
    expect(await quota()).toMatchObject({ remainingBytes: 0, exceeded: false });
  });

  it("fails a package one byte over the quota whole, before any entity, bitstream, event or blob", async () => {
    const a = fresh(2000);
    const b = fresh(1501);
    await leave(a.length + b.length - 1);
    const q = await quota();
    const before = counts();
    const zip = await buildZip([
      { name: "Over/a.bin", data: a },
      { name: "Over/b.bin", data: b },
    ]);
    const done = await ingest(users.curator, folder, zip, { Filename: "over.zip" });
    expect(done.status).toBe("FAILED");
    const expected = `Storage quota exceeded: the package "over.zip" needs 3,501 bytes of new storage, but the repository already uses ${n(q.usedBytes)} bytes of its ${n(q.quotaBytes as number)}-byte quota (Enterprise edition), leaving 3,500 bytes; nothing was ingested. Free space`;
    expect(done.message).toContain(expected);
    expect(done.message).toMatch(QUOTA_MESSAGE);
    // Recorded as other ingest failures are: the action FAILED with one failed item saying why.
    const errors = await progressErrors(users.curator, done.id);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(expected);
    await repo.svc.actions.idle();
    expect(counts()).toEqual(before);
    expect(repo.svc.content.has(hash("sha256", a))).toBe(false);
    expect(await quota()).toEqual({ ...q, measured: expect.any(String) });
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
  });

  it("charges nothing for files the repository already holds: a package of them ingests with no room left", async () => {
    const held = repo.svc.db
      .prepare("SELECT content_sha256 AS sha FROM bitstreams WHERE size > 1000 LIMIT 1")
      .get() as { sha: string };
    const bytes = Buffer.concat(await repo.svc.content.read(held.sha).toArray());
    await leave(0);
    const before = await quota();
    const done = await ingest(
      users.curator,
      folder,
      await buildZip([
        { name: "Again/one.bin", data: bytes },
        { name: "Again/two.bin", data: bytes },
      ]),
    );
    expect(done.status, done.message).toBe("COMPLETED");
    expect((await quota()).usedBytes).toBe(before.usedBytes);
  });

  it("checks again when the ingest commits: room used up meanwhile fails it, creating nothing", async () => {
    process.env.PRESERVATION_INGEST_PAUSE_MS = "600";
    const file = fresh(4000);
    await leave(file.length);
    const before = counts();
    const id = await accepted(
      await uploadPackage(users.curator, folder, await buildZip([{ name: "late.bin", data: file }])),
    );
    // The file is streamed (the first check passed); before the commit, the quota is lowered.
    const until = Date.now() + 10_000;
    while (!repo.svc.content.has(hash("sha256", file))) {
      if (Date.now() > until) throw new Error("the ingest never streamed its file");
      await new Promise((r) => setTimeout(r, 10));
    }
    await leave(file.length - 1);
    const done = await settled(users.curator, id, 20_000);
    expect(done.status).toBe("FAILED");
    expect(done.message).toMatch(QUOTA_MESSAGE);
    expect(done.message).toContain("needs 4,000 bytes of new storage");
    const after = counts();
    expect({ ...after, blobs: before.blobs }).toEqual(before);
    // The streamed blob stays on disk unnamed, and the quota does not count it.
    expect((await quota()).remainingBytes).toBe(file.length - 1);
  });
});

describe("S3-compatible upload (AWS SDK)", () => {
  it("refuses a PutObject over the quota with 403 QuotaExceeded, starting no ingest and keeping nothing", async () => {
    await leave(100);
    const q = await quota();
    const before = counts();
    const actions = () => (repo.svc.db.prepare("SELECT COUNT(*) AS n FROM actions").get() as { n: number }).n;
    const actionsBefore = actions();
    const zip = await buildZip([{ name: "Scans/scan.bin", data: fresh(101) }]);
    const failure = await s3Failure(
      s3.client.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: "too-big.zip",
          Body: zip,
          Metadata: { structuralobjectreference: folder },
        }),
      ),
    );
    expect(failure).toMatchObject({ name: "QuotaExceeded", status: 403 });
    expect(failure.message).toMatch(QUOTA_MESSAGE);
    expect(failure.message).toContain(
      `the package "too-big.zip" needs 101 bytes of new storage, but the repository already uses ${n(q.usedBytes)} bytes`,
    );
    expect(failure.message).toContain("leaving 100 bytes; nothing was stored");
    expect(s3.last("PutObjectCommand")?.headers[PROGRESS]).toBeUndefined();
    expect(actions()).toBe(actionsBefore);
    expect(counts()).toEqual(before);
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
    expect(await quota()).toEqual({ ...q, measured: expect.any(String) });
  });

  it("accepts a PutObject that fills the quota exactly", async () => {
    const file = fresh(100);
    await leave(file.length);
    await s3.client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "exact.zip",
        Body: await buildZip([{ name: "exact.bin", data: file }]),
        Metadata: { structuralobjectreference: folder },
      }),
    );
    const token = s3.last("PutObjectCommand")?.headers[PROGRESS] as string;
    expect(await settled(users.curator, token, 30_000)).toMatchObject({ status: "COMPLETED" });
    expect((await quota()).remainingBytes).toBe(0);
  });

  it("refuses a multipart completion over the quota, keeping the parts for a retry once there is room", async () => {
    await leave(50);
    const key = `${randomUUID()}.zip`;
    const zip = await buildZip([{ name: "multi.bin", data: fresh(60) }]);
    const started = await s3.client.send(
      new CreateMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        Metadata: { structuralobjectreference: folder },
      }),
    );
    const uploadId = started.UploadId as string;
    const part = await s3.client.send(
      new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId, PartNumber: 1, Body: zip }),
    );
    const complete = () =>
      s3.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
    const before = counts();
    const failure = await s3Failure(complete());
    expect(failure).toMatchObject({ name: "QuotaExceeded", status: 403 });
    expect(failure.message).toContain("needs 60 bytes of new storage");
    expect(failure.message).toContain("the parts are kept");
    expect(counts()).toEqual(before);
    expect(filesIn(repo.svc.dataDir, "packages")).toEqual([]);
    const parts = await s3.client.send(
      new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }),
    );
    expect(parts.Parts?.map((p) => p.PartNumber)).toEqual([1]);

    // Room made (the quota raised): the same completion now succeeds and ingests.
    await leave(60);
    await complete();
    const token = s3.last("CompleteMultipartUploadCommand")?.headers[PROGRESS] as string;
    expect(await settled(users.curator, token, 30_000)).toMatchObject({ status: "COMPLETED" });
    expect((await quota()).remainingBytes).toBe(0);
  });
});
