import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

interface Files {
  files?: {
    contentObject: string;
    representation?: string;
    bitstreams: { filename: string; size: number; fixities: { algorithm: string; value: string }[] }[];
  }[];
}

describe.each(ERAS)("add_representation (%s)", (era) => {
  const root = tempDir("lifecycle-rep-");
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "curator", flags: ["--toolsets", "all", "--ingest-roots", root], repo, era });
  const plain = useMcp({ user: "curator", flags: ["--toolsets", "all"], repo, era });

  it("streams a local file into a new access representation", async () => {
    const asset = insertEntity(repo.svc.db, { type: "IO", title: "Harbour plan", securityTag: "open" });
    const bytes = Buffer.from("%PDF-1.4\nan access copy of the harbour plan\n");
    const sha = createHash("sha256").update(bytes).digest("hex");
    await writeFile(join(root, `plan-${era}.pdf`), bytes);
    const res = await mcp.raw("add_representation", {
      ref: asset.ref,
      path: `plan-${era}.pdf`,
      name: "Web copy",
    });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as { job: string };
    expect(res.structuredContent).toMatchObject({
      asset: { ref: asset.ref, title: "Harbour plan" },
      representation: "Web copy",
      file: { filename: `plan-${era}.pdf`, size: bytes.length, sha256: sha },
    });
    expect(textOf(res)).toMatch(
      `Adding access representation “Web copy” to asset “Harbour plan” ${asset.ref} from plan-${era}.pdf (${bytes.length} bytes, SHA-256 ${sha}): done (job ${a.job}).`,
    );
    const e = await mcp.call<Files>("get_entity", { ref: asset.ref, include: ["files"] });
    const access = e.files?.find((f) => f.representation === "Access");
    expect(access?.bitstreams[0]).toMatchObject({ filename: `plan-${era}.pdf`, size: bytes.length });
    expect(access?.bitstreams[0]?.fixities.find((f) => /256/.test(f.algorithm))?.value.toLowerCase()).toBe(
      sha,
    );
  });

  it("refuses paths outside the allowed folders, folders, and refs that are not assets", async () => {
    const asset = insertEntity(repo.svc.db, { type: "IO", title: "Plan two", securityTag: "open" });
    const outside = await mcp.raw("add_representation", { ref: asset.ref, path: "/etc/passwd" });
    expect(textOf(outside)).toMatch(/outside the folders the person allowed/);
    const dotdot = await mcp.raw("add_representation", { ref: asset.ref, path: "../../etc/passwd" });
    expect(textOf(dotdot)).toMatch(/outside the folders the person allowed/);
    const folder = await mcp.raw("add_representation", { ref: asset.ref, path: "." });
    expect(textOf(folder)).toMatch(/is a folder; give one file/);
    await writeFile(join(root, "x.txt"), "x");
    const f = insertEntity(repo.svc.db, { type: "SO", title: "A folder", securityTag: "open" });
    const wrong = await mcp.raw("add_representation", { ref: f.ref, path: "x.txt" });
    expect(textOf(wrong)).toMatch(
      /is a folder \("A folder"\), not an asset\. Representations belong to assets/,
    );
  });

  it("is not listed when no ingest folders are configured", async () => {
    const names = (await plain.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("add_representation");
    expect(names).not.toContain("replace_content");
  });
});
