import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { settle } from "./support.js";

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe.each(ERAS)("replace_content (%s)", (era) => {
  const root = tempDir("lifecycle-replace-");
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all", "--ingest-roots", root], repo, era });

  /** An asset with one content object holding `bytes` (added through add_representation). */
  async function contentObject(name: string, bytes: Buffer): Promise<{ co: string; asset: string }> {
    const asset = insertEntity(repo.svc.db, { type: "IO", title: `Asset of ${name}`, securityTag: "open" });
    await writeFile(join(root, name), bytes);
    const { job } = await mcp.call<{ job: string }>("add_representation", { ref: asset.ref, path: name });
    expect(await settle(repo, job)).toBe("COMPLETED");
    const e = await mcp.call<{ files?: { contentObject: string }[] }>("get_entity", {
      ref: asset.ref,
      include: ["files"],
    });
    return { co: e.files?.[0]?.contentObject as string, asset: asset.ref };
  }

  async function generations(co: string) {
    const e = await mcp.call<{
      files?: { generation: number; bitstreams: { filename: string; size: number }[] }[];
    }>("get_entity", { ref: co, include: ["files"] });
    return e.files?.[0];
  }

  it("previews old → new without changing anything, then replaces the file as a new generation", async () => {
    const oldBytes = Buffer.from("minutes, first scan\n");
    const newBytes = Buffer.from("minutes, second and better scan\n");
    const { co, asset } = await contentObject(`minutes-${era}.txt`, oldBytes);
    await writeFile(join(root, `minutes-rescan-${era}.txt`), newBytes);
    const args = { ref: co, path: join(root, `minutes-rescan-${era}.txt`) };
    const p = await mcp.call<Preview>("replace_content", args);
    const c = p.confirmationRequired;
    expect(c.summary).toBe(
      `Replace the file of content object “minutes-${era}.txt”: minutes-${era}.txt (${oldBytes.length} bytes) → minutes-rescan-${era}.txt (${newBytes.length} bytes)`,
    );
    expect(c.details).toEqual([
      `Content object ${co} of asset ${asset}; generation 1 → 2 (generation 1 is kept, inactive).`,
      `Old SHA-256 ${sha256(oldBytes)}`,
      expect.stringMatching(`^New SHA-256 ${sha256(newBytes)} \\(`),
    ]);
    expect(await generations(co)).toMatchObject({
      generation: 1,
      bitstreams: [{ filename: `minutes-${era}.txt` }],
    });

    const res = await mcp.raw("replace_content", { ...args, confirmation: c.token });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as { job: string };
    expect(res.structuredContent).toMatchObject({
      before: {
        filename: `minutes-${era}.txt`,
        size: oldBytes.length,
        sha256: sha256(oldBytes),
        generation: 1,
      },
      after: {
        filename: `minutes-rescan-${era}.txt`,
        size: newBytes.length,
        sha256: sha256(newBytes),
        generation: 2,
      },
    });
    expect(textOf(res)).toMatch(`new SHA-256 ${sha256(newBytes)} (generation 2)`);
    expect(await settle(repo, a.job)).toBe("COMPLETED");
    expect(await generations(co)).toMatchObject({
      generation: 2,
      bitstreams: [{ filename: `minutes-rescan-${era}.txt`, size: newBytes.length }],
    });
  });

  it("refuses the confirmation when the local file changed after the preview", async () => {
    const { co } = await contentObject(`ledger-${era}.txt`, Buffer.from("ledger v1\n"));
    const file = join(root, `ledger-new-${era}.txt`);
    await writeFile(file, "ledger v2\n");
    const p = await mcp.call<Preview>("replace_content", { ref: co, path: file });
    await writeFile(file, "ledger v2, edited after the preview\n");
    const res = await mcp.raw("replace_content", {
      ref: co,
      path: file,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/nothing (was|has been) changed/i);
    expect(await generations(co)).toMatchObject({ generation: 1 });
  });

  it("explains an asset ref, an empty file and a path outside the allowed folders", async () => {
    const { asset } = await contentObject(`photo-${era}.txt`, Buffer.from("photo\n"));
    await writeFile(join(root, "empty.txt"), "");
    const wrong = await mcp.raw("replace_content", { ref: asset, path: "empty.txt" });
    expect(textOf(wrong)).toMatch(/is an asset .*Give one of its content objects/);
    const e = await mcp.call<{ files?: { contentObject: string }[] }>("get_entity", {
      ref: asset,
      include: ["files"],
    });
    const co = e.files?.[0]?.contentObject as string;
    const empty = await mcp.raw("replace_content", { ref: co, path: "empty.txt" });
    expect(textOf(empty)).toMatch(/is empty/);
    const outside = await mcp.raw("replace_content", { ref: co, path: "/etc/hostname" });
    expect(textOf(outside)).toMatch(/outside the folders the person allowed/);
  });
});
