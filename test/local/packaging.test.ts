import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { planPackage } from "../../src/local/packaging.js";
import { LocalPathError, resolveLocalPath } from "../../src/local/roots.js";
import { tempDir } from "../helpers/temp-dir.js";

async function collect(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function entries(buf: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, Buffer>();
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      zip.on("entry", (e: yauzl.Entry) => {
        zip.openReadStream(e, async (er, rs) => {
          if (er || !rs) return reject(er);
          out.set(e.fileName, await collect(rs));
          zip.readEntry();
        });
      });
      zip.on("end", () => resolve(out));
      zip.readEntry();
    });
  });
}

describe("planPackage", () => {
  const root = tempDir("pmcp-pack-");
  const outside = tempDir("pmcp-pack-out-");
  mkdirSync(join(root, "box", "empty"), { recursive: true });
  mkdirSync(join(root, "box", "sub"));
  writeFileSync(join(root, "box", "a.txt"), "alpha");
  writeFileSync(join(root, "box", "sub", "b.bin"), Buffer.alloc(70_000, 1));
  writeFileSync(join(root, "box", "Thumbs.db"), "x");
  writeFileSync(join(root, "other.txt"), "linked inside");
  symlinkSync(join(root, "other.txt"), join(root, "box", "link.txt"));
  writeFileSync(join(outside, "s.txt"), "secret");

  it("zips a folder under its own name, stored, with the exact length announced", async () => {
    const plan = await planPackage(await resolveLocalPath([root], "box"), {
      roots: [root],
      title: "Box & co",
    });
    expect(plan).toMatchObject({
      kind: "folder",
      filename: "box.zip",
      files: 3,
      contentBytes: 5 + 70_000 + 13,
    });
    expect(plan.skipped).toEqual(["box/Thumbs.db (operating-system clutter)"]);
    const buf = await collect(plan.open());
    expect(buf.length).toBe(plan.size);
    const e = await entries(buf);
    expect([...e.keys()].sort()).toEqual([
      "box/a.txt",
      "box/box.opex",
      "box/empty/",
      "box/link.txt",
      "box/sub/b.bin",
    ]);
    expect(e.get("box/link.txt")?.toString()).toBe("linked inside");
    expect(e.get("box/box.opex")?.toString()).toContain("<opex:Title>Box &amp; co</opex:Title>");
    expect(() => plan.open()).toThrow(/once/);
  });

  it("sends a ready zip as it is and refuses a fake one; a single file becomes one entry", async () => {
    writeFileSync(join(root, "fake.zip"), "not a zip");
    await expect(planPackage(await resolveLocalPath([root], "fake.zip"), { roots: [root] })).rejects.toThrow(
      /not a zip file/,
    );
    writeFileSync(join(root, "x.zip"), Buffer.from(`PK\u0005\u0006${"\u0000".repeat(18)}`, "latin1"));
    const ready = await planPackage(await resolveLocalPath([root], "x.zip"), { roots: [root] });
    expect(ready).toMatchObject({ kind: "package", filename: "x.zip", size: 22 });
    expect((await collect(ready.open())).length).toBe(22);
    const one = await planPackage(await resolveLocalPath([root], "other.txt"), { roots: [root] });
    const buf = await collect(one.open());
    expect(buf.length).toBe(one.size);
    expect([...(await entries(buf)).keys()]).toEqual(["other.txt"]);
  });

  it("refuses a folder whose link leads outside the roots, and an empty folder", async () => {
    mkdirSync(join(root, "leaky"));
    writeFileSync(join(root, "leaky", "ok.txt"), "ok");
    symlinkSync(join(outside, "s.txt"), join(root, "leaky", "s.txt"));
    await expect(
      planPackage(await resolveLocalPath([root], "leaky"), { roots: [root] }),
    ).rejects.toBeInstanceOf(LocalPathError);
    mkdirSync(join(root, "nothing"));
    await expect(planPackage(await resolveLocalPath([root], "nothing"), { roots: [root] })).rejects.toThrow(
      /holds no files/,
    );
  });

  it("fails the stream when a file changed size after the plan (the upload is cut, not sent wrong)", async () => {
    mkdirSync(join(root, "changing"));
    writeFileSync(join(root, "changing", "c.txt"), "short");
    const plan = await planPackage(await resolveLocalPath([root], "changing"), { roots: [root] });
    writeFileSync(join(root, "changing", "c.txt"), "much longer now");
    await expect(collect(plan.open())).rejects.toThrow(/unexpected number of bytes/);
  });

  /**
   * The walk checks links, but files are read later (one at a time, while the package uploads): a file
   * swapped for a link to a file outside the allowed folders in between must be refused when it is opened,
   * not followed. The secret has the same length as the file it replaces, so only the link check stops it.
   */
  it("refuses a file swapped for a link after the walk; a ready zip sends what was checked", async () => {
    writeFileSync(join(outside, "same-size.txt"), "SECRET");
    const swap = (path: string) => {
      rmSync(path);
      symlinkSync(join(outside, "same-size.txt"), path);
    };
    mkdirSync(join(root, "racy"));
    writeFileSync(join(root, "racy", "a.txt"), "public");
    const folder = await planPackage(await resolveLocalPath([root], "racy"), { roots: [root] });
    swap(join(root, "racy", "a.txt"));
    await expect(collect(folder.open())).rejects.toThrow(/link/);

    writeFileSync(join(root, "single.txt"), "public");
    const single = await planPackage(await resolveLocalPath([root], "single.txt"), { roots: [root] });
    swap(join(root, "single.txt"));
    await expect(collect(single.open())).rejects.toThrow(/link/);

    const zip = Buffer.from(`PK\u0005\u0006${"\u0000".repeat(18)}`, "latin1");
    writeFileSync(join(root, "racy.zip"), zip);
    const secretZip = Buffer.from(zip);
    secretZip[8] = 7;
    writeFileSync(join(outside, "same-size.zip"), secretZip);
    // A ready package is opened once, when it is checked: what is sent is what was checked.
    const ready = await planPackage(await resolveLocalPath([root], "racy.zip"), { roots: [root] });
    rmSync(join(root, "racy.zip"));
    symlinkSync(join(outside, "same-size.zip"), join(root, "racy.zip"));
    expect(await collect(ready.open())).toEqual(zip);
  });

  it("refuses a file replaced by another (not a link) after the walk: what is sent is what the walk saw", async () => {
    mkdirSync(join(root, "renamed"));
    writeFileSync(join(root, "renamed", "a.txt"), "public");
    const plan = await planPackage(await resolveLocalPath([root], "renamed"), { roots: [root] });
    writeFileSync(join(root, "renamed", "b.txt"), "PUBLIC");
    renameSync(join(root, "renamed", "b.txt"), join(root, "renamed", "a.txt"));
    await expect(collect(plan.open())).rejects.toThrow(/replaced/);
  });
});
