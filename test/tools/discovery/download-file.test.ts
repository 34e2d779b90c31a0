import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { startMcp, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { DEMO, seedFile } from "./demo-facts.js";

interface Saved {
  path: string;
  bytes: number;
  verified: { algorithm: string; value: string }[];
}

describe("download_file", () => {
  const folder = tempDir("pmcp-downloads-");
  const mcp = useMcp({ user: "curator", flags: ["--download-dir", folder] });

  it("saves a binary file byte-exact, verified against every recorded fixity, with progress", async () => {
    const seed = seedFile("photoNorthQuay1890");
    const progress: number[] = [];
    const res = await mcp.client.callTool(
      { name: "download_file", arguments: { ref: DEMO.refs.pngAsset } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(res.isError).toBeFalsy();
    const saved = res.structuredContent as unknown as Saved;
    expect(saved.path).toBe(join(folder, seed.filename));
    expect(readFileSync(saved.path).equals(seed.bytes)).toBe(true);
    expect(saved.bytes).toBe(seed.bytes.length);
    expect(saved.verified.map((v) => v.algorithm).sort()).toEqual(["MD5", "SHA1", "SHA256", "SHA512"]);
    expect(saved.verified.find((v) => v.algorithm === "SHA256")?.value).toBe(seed.sha256);
    expect(progress.at(-1)).toBe(seed.bytes.length);
    expect(readdirSync(folder).filter((f) => f.endsWith(".part"))).toEqual([]);
  });

  it("never overwrites: a second download of the same name is refused and the file is untouched", async () => {
    const seed = seedFile("harbourMasterJournal1852");
    const target = join(folder, seed.filename);
    writeFileSync(target, "a file the person already had");
    const res = await mcp.raw("download_file", { ref: DEMO.refs.harbourMasterJournal1852 });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/already exists.*saveAs.*Nothing was saved/);
    expect(readFileSync(target, "utf8")).toBe("a file the person already had");
    const renamed = await mcp.call<Saved>("download_file", {
      ref: DEMO.refs.harbourMasterJournal1852,
      saveAs: "journal-copy.txt",
    });
    expect(readFileSync(renamed.path).equals(seed.bytes)).toBe(true);
  });

  it("refuses bytes that do not match the recorded fixity, leaving nothing behind", async () => {
    const { db, content, dataDir } = mcp.repo.svc;
    const original = Buffer.from("The original, as ingested.\n");
    const blob = content.put(original);
    const asset = insertEntity(db, { type: "IO", title: "Fixture: damaged file", securityTag: "open" });
    const co = insertEntity(db, {
      type: "CO",
      title: "damaged.txt",
      securityTag: "open",
      parentRef: asset.ref,
    });
    addRepresentation(db, asset.ref, "Preservation", null, [co.ref]);
    const gen = addGeneration(db, co.ref, { formatPuid: "x-fmt/111", formatName: "Plain Text File" });
    addBitstream(db, gen, { filename: "damaged.txt", mimeType: "text/plain", blob });
    // Bit rot on disk: same length, different bytes.
    writeFileSync(
      join(dataDir, "content", blob.sha256.slice(0, 2), blob.sha256),
      "The original, as INGESTED.\n",
    );
    const res = await mcp.raw("download_file", { ref: asset.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/does not match the repository's fixity.*Nothing was saved/);
    expect(readdirSync(folder).filter((f) => f.includes("damaged"))).toEqual([]);
  });

  it("keeps every name inside the download folder", async () => {
    for (const saveAs of ["../escape.txt", "sub/dir.txt", "..", ".hidden"]) {
      const res = await mcp.raw("download_file", { ref: DEMO.refs.harbourMasterJournal1852, saveAs });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(/Nothing was saved/);
    }
    expect(readdirSync(join(folder, ".."))).not.toContain("escape.txt");
  });

  it("is offered only with a download folder, and not in read-only mode", async () => {
    const names = async (flags: string[]) => {
      const h = await startMcp({ user: "curator", repo: mcp.repo, flags });
      try {
        return (await h.client.listTools()).tools.map((t) => t.name);
      } finally {
        await h.close();
      }
    };
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain("download_file");
    expect(await names([])).not.toContain("download_file");
    // Saving a file to the person's disk changes nothing in the repository: read-only mode keeps it.
    expect(await names(["--download-dir", folder, "--read-only"])).toContain("download_file");
  });

  it("refuses a relative download folder at start-up", async () => {
    await expect(
      startMcp({ user: "curator", repo: mcp.repo, flags: ["--download-dir", "relative/dir"] }),
    ).rejects.toThrow(/--download-dir must be an absolute path/);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("download_file", { ref: DEMO.refs.textAsset, saveAs: "pinned-journal.txt" });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "Saved <tmp>/pmcp-downloads-XXXXXX/pinned-journal.txt (370 bytes).
      From content object d233686f-6005-42fc-a605-3abb2dff0da9, generation 1, file 1.
      Verified against the repository's fixity: MD5 d97426a143cc7a7b9b8fa03755db98b3; SHA1 3ce0c8df0015383a4612284fb3e82aa18f4f964b; SHA256 58e7e052f07c1aa56473d66b13cc15f5ceee5d448a626628e59ed2ab18c55fcb; SHA512 c2af0d7d9650cc31c3f4a46fda85260167def5fb0e80d56c31208c508d0225fffebaf6cd4ddbcb1a0a2ca8851870f89997633202ba48738367c74840dbdca270."
    `);
  });
});
