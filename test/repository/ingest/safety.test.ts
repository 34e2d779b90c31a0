import { readdirSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";
import { expectRefused, LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import {
  buildZip,
  children,
  E,
  entityTableCounts,
  hash,
  ingest,
  progressErrors,
  renameInZip,
  setZipFlag,
  storeHashWithoutActions,
  uploadPackage,
} from "./ingest-helpers.js";

/**
 * What a hostile or damaged package cannot do: escape the package (zip slip: `..`, absolute paths,
 * drive letters, backslashes, symbolic links), hide behind encryption, pass a wrong fixity or damaged
 * bytes, or leave anything behind when refused, cut off or too large; and who may send one at all.
 */

const MAX_UPLOAD = 200_000;
let repo: RunningRepository;
let users: Users;
let folder: string;
let asset: string;

beforeAll(async () => {
  repo = await startTestRepository({ maxUploadBytes: MAX_UPLOAD });
  users = await signIn(repo);
  folder = insertEntity(repo.svc.db, {
    type: "SO",
    title: "Inbox",
    securityTag: "open",
    created: LONG_AGO,
  }).ref;
  asset = insertEntity(repo.svc.db, {
    type: "IO",
    title: "An asset",
    securityTag: "open",
    parentRef: folder,
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
});

const packagesLeft = () => readdirSync(join(repo.svc.dataDir, "packages"));

/** Ingests a package that must be refused whole: FAILED, nothing created, the package file removed. */
async function expectRefusedWhole(zip: Buffer, message: RegExp): Promise<string> {
  const before = storeHashWithoutActions(repo.svc.db);
  const counts = entityTableCounts(repo.svc.db);
  const p = await ingest(users.manager, folder, zip);
  expect(p.status).toBe("FAILED");
  expect(p.message).toMatch(message);
  expect(p.message).toMatch(/nothing was ingested/);
  expect(await progressErrors(users.manager, p.id)).toEqual([p.message]);
  expect(entityTableCounts(repo.svc.db)).toEqual(counts);
  expect(storeHashWithoutActions(repo.svc.db), "a refused package changed the store").toBe(before);
  expect(packagesLeft()).toEqual([]);
  return p.message;
}

describe("zip slip and links", () => {
  const safe = [
    { name: "good/", dir: true },
    { name: "good/first.txt", data: "harmless" },
  ];

  it("refuses a package with a .. entry, naming it, before anything is created", async () => {
    const zip = renameInZip(
      await buildZip([...safe, { name: "xx/evil.txt", data: "escape" }]),
      "xx/evil.txt",
      "../evil.txt",
    );
    await expectRefusedWhole(zip, /entry "\.\.\/evil\.txt" is unsafe, it leads out of the package/);
  });

  it("refuses absolute paths and drive letters", async () => {
    const abs = renameInZip(
      await buildZip([...safe, { name: "etc/evil", data: "x" }]),
      "etc/evil",
      "/tmp/evi",
    );
    await expectRefusedWhole(abs, /entry "\/tmp\/evi" is unsafe, it is an absolute path/);
    const drive = renameInZip(
      await buildZip([...safe, { name: "Windows/evil", data: "x" }]),
      "Windows/evil",
      "C:/Wind/evil",
    );
    await expectRefusedWhole(drive, /entry "C:\/Wind\/evil" is unsafe, it starts with a drive letter/);
  });

  it("treats backslashes as separators, so a\\..\\..\\x is refused too", async () => {
    const zip = renameInZip(
      await buildZip([...safe, { name: "a/bb/cc/evil.txt", data: "x" }]),
      "a/bb/cc/evil.txt",
      "a\\..\\..\\evil.txt",
    );
    await expectRefusedWhole(
      zip,
      /entry "a\\\\\.\.\\\\\.\.\\\\evil\.txt" is unsafe, it leads out of the package/,
    );
  });

  it("refuses symbolic links", async () => {
    const zip = await buildZip([...safe, { name: "good/link", data: "/etc/passwd", mode: 0o120777 }]);
    await expectRefusedWhole(zip, /entry "good\/link" is unsafe, it is a symbolic link/);
  });

  it("refuses encrypted entries and files that are not zips", async () => {
    // Deflated entries only: a stored encrypted entry has 12 more bytes than it declares, which yauzl
    // itself refuses (as a damaged directory) before this check is reached.
    const encrypted = setZipFlag(
      await buildZip([{ name: "good/first.txt", data: "harmless ".repeat(20) }]),
      0x1,
    );
    await expectRefusedWhole(encrypted, /entry "good\/first\.txt" is encrypted/);
    const before = storeHash(repo.svc.db);
    const res = await uploadPackage(users.manager, folder, Buffer.from("this is not a zip at all"));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/not a zip file/);
    expect(storeHash(repo.svc.db)).toBe(before);
    expect(packagesLeft()).toEqual([]);
  });

  it("refuses a package whose directory is damaged", async () => {
    const zip = await buildZip(safe);
    await expectRefusedWhole(zip.subarray(0, zip.length - 10), /not a readable zip file/);
  });
});

describe("fixities and damaged bytes", () => {
  it("fails the file whose declared fixity does not match, naming it, and ingests the rest", async () => {
    const OPEX = "http://www.openpreservationexchange.org/opex/v1.0";
    const opex = (value: string) =>
      `<opex:OPEXMetadata xmlns:opex="${OPEX}"><opex:Transfer><opex:Fixities><opex:Fixity type="SHA-256" value="${value}"/></opex:Fixities></opex:Transfer></opex:OPEXMetadata>`;
    const zip = await buildZip([
      { name: "Batch/right.txt", data: "right" },
      { name: "Batch/right.txt.opex", data: opex(hash("sha256", "right")) },
      { name: "Batch/wrong.txt", data: "wrong" },
      { name: "Batch/wrong.txt.opex", data: opex(hash("sha256", "what was meant")) },
    ]);
    const p = await ingest(users.manager, folder, zip);
    expect(p).toMatchObject({ status: "FINISHED_MIXED_OUTCOME", total: 2, done: 1, failed: 1 });
    expect(await progressErrors(users.manager, p.id)).toEqual([
      `Batch/wrong.txt: fixity mismatch, Batch/wrong.txt.opex declares SHA256 ${hash("sha256", "what was meant")} but the file's 5 bytes have ${hash("sha256", "wrong")}; it was not ingested. Check the file and its declared fixity, and send it again`,
    ]);
    const batch = await children(
      users.manager,
      (await children(users.manager, folder)).get("Batch")?.ref as string,
    );
    expect([...batch.keys()]).toEqual(["right.txt"]);
    // The refused bytes were not kept in the content store.
    expect(repo.svc.content.has(hash("sha256", "wrong"))).toBe(false);
  });

  it("fails a file whose bytes fail the zip's own CRC-32", async () => {
    const body = "The quick brown fox jumps over the lazy dog, twice over.";
    const zip = await buildZip([
      { name: "intact.txt", data: "intact" },
      { name: "damaged.txt", data: body, compress: false },
    ]);
    const at = zip.indexOf(Buffer.from("lazy dog"));
    zip[at] = "L".charCodeAt(0);
    const p = await ingest(users.manager, folder, zip);
    expect(p).toMatchObject({ status: "FINISHED_MIXED_OUTCOME", done: 1, failed: 1 });
    expect(await progressErrors(users.manager, p.id)).toEqual([
      "damaged.txt is damaged in the package: its bytes do not match the zip's own CRC-32 checksum",
    ]);
  });
});

describe("who may send a package, and what a refused upload leaves", () => {
  it("needs the Ingest permission on the folder: 403 for the reader, nothing stored", async () => {
    const zip = await buildZip([{ name: "a.txt", data: "a" }]);
    await expectRefused(
      repo,
      () => uploadPackage(users.reader, folder, zip),
      403,
      /lacks the Ingest permission on security tag "open"/,
    );
    expect(packagesLeft()).toEqual([]);
  });

  it("answers 404 for an unknown folder, an asset or a malformed ref, 400 for an empty body", async () => {
    const zip = await buildZip([{ name: "a.txt", data: "a" }]);
    await expectRefused(
      repo,
      () => uploadPackage(users.manager, "7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f", zip),
      404,
      /not found/,
    );
    await expectRefused(
      repo,
      () => uploadPackage(users.manager, asset, zip),
      404,
      /it is an information object/,
    );
    await expectRefused(repo, () => uploadPackage(users.manager, "not-a-ref", zip), 404, /is not a UUID/);
    await expectRefused(
      repo,
      () => uploadPackage(users.manager, folder, Buffer.alloc(0)),
      400,
      /body is empty/,
    );
    await expectRefused(
      repo,
      () => users.manager(`${E}/structural-objects/${folder}`, { method: "POST", body: new FormData() }),
      415,
      /not as a multipart form/,
    );
    expect(packagesLeft()).toEqual([]);
  });

  it("refuses a package over the upload cap (413), declared or streamed, and keeps nothing", async () => {
    const big = Buffer.alloc(MAX_UPLOAD + 1, 1);
    await expectRefused(
      repo,
      () => uploadPackage(users.manager, folder, big),
      413,
      /larger than this service accepts/,
    );
    // Without a Content-Length (chunked), the cap is found while streaming.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(60_000));
        controller.close();
      },
    });
    await expectRefused(
      repo,
      () =>
        users.manager(`${E}/structural-objects/${folder}`, {
          method: "POST",
          body: chunked,
          headers: { "Content-Type": "application/octet-stream" },
          duplex: "half",
        } as RequestInit),
      413,
      /larger than this service accepts/,
    );
    expect(packagesLeft()).toEqual([]);
  });

  it("an upload cut off half-way leaves no file and no action", async () => {
    const before = storeHash(repo.svc.db);
    const token = (
      (await await fetch(`${repo.url}/api/accesstoken/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "manager", password: "manager-demo-pw" }),
      }).then((r) => r.json())) as { token: string }
    ).token;
    const url = new URL(`${repo.url}${E}/structural-objects/${folder}`);
    let partial: string[] = [];
    await new Promise<void>((resolve) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            "Preservica-Access-Token": token,
            "Content-Type": "application/octet-stream",
            "Content-Length": "150000",
          },
        },
        () => resolve(),
      );
      req.on("error", () => resolve());
      req.write(Buffer.alloc(50_000, 7), async () => {
        // Wait until the service is writing the partial file, then drop the connection.
        for (let i = 0; i < 100 && partial.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 10));
          partial = packagesLeft();
        }
        req.destroy();
        resolve();
      });
    });
    expect(partial).toEqual([expect.stringMatching(/^[0-9a-f-]{36}\.zip\.part$/)]);
    // The service notices the broken connection and removes what it had written.
    for (let i = 0; i < 50 && packagesLeft().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(packagesLeft()).toEqual([]);
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});
