import { createHash } from "node:crypto";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { openLocalFile, readLocalFile } from "../../src/local/open-file.js";
import { resolveLocalPath } from "../../src/local/roots.js";
import { tempDir } from "../helpers/temp-dir.js";

async function collect(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Files for replace_content, add_representation and a CSV edit are opened once, without following a link,
 * and must be the file the path check saw; what is hashed and sent comes from that one handle.
 */
describe("local files opened once, links refused at open", () => {
  const root = tempDir("pmcp-open-");
  const outside = tempDir("pmcp-open-out-");
  writeFileSync(join(outside, "secret.txt"), "SECRET");
  const swap = (path: string) => {
    rmSync(path);
    symlinkSync(join(outside, "secret.txt"), path);
  };

  it("sends the bytes it hashed, even when the path is swapped for a link after the hash", async () => {
    writeFileSync(join(root, "new.txt"), "public");
    const file = await openLocalFile([root], "new.txt");
    expect(file).toMatchObject({ filename: "new.txt", size: 6 });
    expect(file.sha256).toBe(createHash("sha256").update("public").digest("hex"));
    swap(join(root, "new.txt"));
    expect((await collect(file.stream())).toString()).toBe("public");
    await file.close();
  });

  it("refuses a file swapped for a link between the path check and the open (a CSV read)", async () => {
    writeFileSync(join(root, "edits.csv"), "ref,title\n");
    const checked = await resolveLocalPath([root], "edits.csv");
    swap(join(root, "edits.csv"));
    await expect(readLocalFile(checked)).rejects.toThrow(/became a link after it was checked/);
  });

  it("refuses a folder and an empty file, saying nothing was changed", async () => {
    writeFileSync(join(root, "empty.txt"), "");
    await expect(openLocalFile([root], "empty.txt")).rejects.toThrow(/empty.*Nothing was changed/);
    await expect(openLocalFile([root], ".")).rejects.toThrow(/is a folder/);
  });
});
