import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LocalPathError, resolveLocalPath } from "../../src/local/roots.js";
import { tempDir } from "../helpers/temp-dir.js";

/** Local paths are confined to the folders the person allowed, whatever the spelling or the links. */
describe("resolveLocalPath", () => {
  let base: string;
  let root: string;
  let outside: string;
  beforeAll(() => {
    base = tempDir("roots-");
    root = join(base, "allowed");
    outside = join(base, "elsewhere");
    mkdirSync(join(root, "scans"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(root, "scans", "page1.tif"), "tiff bytes");
    writeFileSync(join(outside, "secret.txt"), "not yours");
    symlinkSync(join(outside, "secret.txt"), join(root, "link-out.txt"));
    symlinkSync(join(root, "scans"), join(root, "link-in"));
  });

  it("resolves files and folders inside a root, absolute or relative to the first root", async () => {
    expect(await resolveLocalPath([root], join(root, "scans", "page1.tif"))).toMatchObject({
      size: 10,
      isDirectory: false,
    });
    expect(await resolveLocalPath([root], "scans")).toMatchObject({ isDirectory: true });
    expect((await resolveLocalPath([root], "link-in/page1.tif")).path).toMatch(/scans[/\\]page1\.tif$/);
  });

  it.each([
    ["../elsewhere/secret.txt", /outside the folders the person allowed/],
    ["scans/../../elsewhere/secret.txt", /outside the folders the person allowed/],
    ["/etc/passwd", /outside the folders the person allowed/],
    ["link-out.txt", /leads outside the allowed folders/],
    ["scans/missing.tif", /does not exist/],
    ["scans\0/page1.tif", /NUL/],
  ])("refuses %s", async (requested, message) => {
    const err = await resolveLocalPath([root], requested).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalPathError);
    expect((err as Error).message).toMatch(message);
  });

  it("echoes at most about 200 characters of a bad path, start and end", async () => {
    const refusal = async (requested: string) =>
      ((await resolveLocalPath([root], requested).catch((e: unknown) => e)) as Error).message;
    const far = `/${"x".repeat(4000)}/end-of-it.txt`;
    const inside = `${"y".repeat(3000)}/missing.txt`;
    for (const [requested, tail] of [
      [far, "end-of-it.txt"],
      [inside, "missing.txt"],
    ] as const) {
      const message = await refusal(requested);
      expect(message).toMatch(/^[xy/]{100}…/);
      expect(message).toContain(`${tail} `);
      expect(message.replace(root, "").length).toBeLessThan(200 + 120);
    }
  });

  it("says what to configure when no folder is allowed", async () => {
    await expect(resolveLocalPath([], "x")).rejects.toThrow(/PRESERVATION_INGEST_ROOTS/);
  });
});
