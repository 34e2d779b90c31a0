import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { beforeAll, describe, expect, it } from "vitest";
import yazl from "yazl";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { ERAS, type McpHarness, textOf } from "../../helpers/mcp.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

interface Ingested {
  job: string;
  folder: { ref: string; title: string };
  kind: string;
  files: number;
  bytes: number;
  contentBytes: number;
  skipped?: string[];
}
interface Status {
  state: string;
  finished: boolean;
  kind?: string;
  created?: { ref: string; title: string; path?: string }[];
  folders?: { ref: string; title: string }[];
  errors: unknown[];
}
interface EntityAnswer {
  entity: { ref: string; title: string; description?: string; parentRef?: string };
  files?: {
    bitstreams: { filename: string; size: number; fixities: { algorithm: string; value: string }[] }[];
  }[];
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

function ingestCount(repo: RunningRepository): number {
  return (
    repo.svc.db.prepare("SELECT count(*) AS n FROM actions WHERE kind = 'ingest'").get() as { n: number }
  ).n;
}

async function finish(mcp: McpHarness, job: string): Promise<Status> {
  for (let i = 0; i < 10; i++) {
    const s = await mcp.call<Status>("job_status", { job, waitSeconds: 10 });
    if (s.finished) return s;
  }
  throw new Error(`job ${job} did not finish`);
}

describe.each(ERAS)("ingest (%s)", (era) => {
  const root = tempDir("pmcp-ingest-root-");
  const outside = tempDir("pmcp-ingest-outside-");
  const bytesA = Buffer.from("Minute book, page 1\n".repeat(100));
  const bytesB = Buffer.alloc(300_000, 7);
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "curator", repo, era, flags: ["--toolsets", "all", "--ingest-roots", root] });
  const reader = useMcp({ user: "reader", repo, era, flags: ["--toolsets", "all", "--ingest-roots", root] });
  const noRoots = useMcp({ user: "curator", repo, era, flags: ["--toolsets", "all"] });
  beforeAll(async () => {
    mkdirSync(join(root, "scans", "sub"), { recursive: true });
    writeFileSync(join(root, "scans", "page-1.txt"), bytesA);
    writeFileSync(join(root, "scans", "sub", "plan.bin"), bytesB);
    writeFileSync(join(root, "scans", ".DS_Store"), "clutter");
    writeFileSync(join(root, "single.txt"), "one file\n");
    writeFileSync(join(outside, "secret.txt"), "not for the repository\n");
    symlinkSync(join(outside, "secret.txt"), join(root, "escape.txt"));
    mkdirSync(join(root, "sneaky"));
    writeFileSync(join(root, "sneaky", "ok.txt"), "fine\n");
    symlinkSync(join(outside, "secret.txt"), join(root, "sneaky", "leak.txt"));
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from("zipped letter\n"), "Letters/letter-1.txt");
    const done = pipeline(zip.outputStream, createWriteStream(join(root, "letters.zip")));
    zip.end();
    await done;
  });

  const newFolder = (title: string) =>
    insertEntity(repo.svc.db, { type: "SO", title, securityTag: "open", parentRef: null }).ref;

  it("ingests a folder as a new titled folder, with progress, and names the new assets in its own answer", async () => {
    const dest = newFolder(`Deposits ${era}`);
    const progress: number[] = [];
    const res = await mcp.client.callTool(
      {
        name: "ingest",
        arguments: {
          path: join(root, "scans"),
          folder: dest,
          title: "Scans 1901",
          description: "Board scans",
        },
      },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(res.isError, textOf(res)).toBeFalsy();
    const a = res.structuredContent as unknown as Ingested;
    expect(a).toMatchObject({ folder: { ref: dest }, kind: "folder", files: 2 });
    expect(a.contentBytes).toBe(bytesA.length + bytesB.length);
    expect(a.skipped?.[0]).toMatch(/\.DS_Store/);
    expect(progress.at(-1)).toBe(a.bytes);
    expect(textOf(res)).toContain(`The ingest: done (job ${a.job}).`);
    // Done within the brief wait: the answer itself names what was created (no job_status call).
    const s = a as unknown as Status;
    expect(s).toMatchObject({ state: "COMPLETED", finished: true });
    expect(textOf(res)).toMatch(/Created 2 assets: .*"page-1\.txt"/);
    expect(s.created?.map((c) => c.title).sort()).toEqual(["page-1.txt", "plan.bin"]);
    expect(s.folders?.map((f) => f.title).sort()).toEqual(["Scans 1901", "sub"]);

    // Read back through the service: titles, parents, sizes and fixity.
    const page = s.created?.find((c) => c.title === "page-1.txt");
    const e = await mcp.call<EntityAnswer>("get_entity", { ref: page?.ref, include: ["files"] });
    const top = await mcp.call<EntityAnswer>("get_entity", { ref: e.entity.parentRef });
    expect(top.entity).toMatchObject({ title: "Scans 1901", description: "Board scans", parentRef: dest });
    const file = e.files?.[0]?.bitstreams[0];
    expect(file?.size).toBe(bytesA.length);
    expect(file?.fixities.find((f) => /SHA-?256/i.test(f.algorithm))?.value).toBe(sha256(bytesA));
    const plan = s.created?.find((c) => c.title === "plan.bin");
    const p = await mcp.call<EntityAnswer>("get_entity", { ref: plan?.ref, include: ["files"] });
    expect(p.files?.[0]?.bitstreams[0]?.size).toBe(bytesB.length);
  });

  it("ingests a single file with a title, and a ready zip package as it is", async () => {
    const dest = newFolder(`Singles ${era}`);
    const one = await mcp.call<Ingested>("ingest", {
      path: "single.txt",
      folder: dest,
      title: "A single letter",
    });
    expect(one.kind).toBe("file");
    const s1 = await finish(mcp, one.job);
    expect(s1.state).toBe("COMPLETED");
    expect(s1.created?.map((c) => c.title)).toEqual(["A single letter"]);

    const pkg = await mcp.call<Ingested>("ingest", { path: join(root, "letters.zip"), folder: dest });
    expect(pkg.kind).toBe("package");
    const s2 = await finish(mcp, pkg.job);
    expect(s2.state).toBe("COMPLETED");
    expect(s2.created?.map((c) => c.title)).toEqual(["letter-1.txt"]);
    expect(s2.folders?.map((f) => f.title)).toEqual(["Letters"]);
  });

  it("refuses paths outside the allowed folders, `..`, and links leading out; nothing is uploaded", async () => {
    const dest = newFolder(`Refusals ${era}`);
    const before = ingestCount(repo);
    const cases: [string, RegExp][] = [
      [join(outside, "secret.txt"), /outside the folders the person allowed/],
      [`../${outside.split("/").pop()}/secret.txt`, /outside the folders the person allowed/],
      [join(root, "scans", "..", "..", "etc"), /outside/],
      [join(root, "escape.txt"), /leads outside the allowed folders/],
      [join(root, "sneaky"), /link that leads outside the allowed folders.*Nothing was uploaded/],
      [join(root, "missing.txt"), /does not exist/],
    ];
    for (const [path, why] of cases) {
      const res = await mcp.raw("ingest", { path, folder: dest });
      expect(res.isError, path).toBe(true);
      expect(textOf(res), path).toMatch(why);
    }
    expect(ingestCount(repo)).toBe(before);
  });

  it("refuses a destination that is not a folder, and title on a ready package", async () => {
    const dest = newFolder(`Wrong ${era}`);
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: "An asset",
      securityTag: "open",
      parentRef: dest,
    });
    const before = ingestCount(repo);
    const res = await mcp.raw("ingest", { path: "single.txt", folder: asset.ref });
    expect(textOf(res)).toMatch(/is an asset.*pass a folder ref/);
    const res2 = await mcp.raw("ingest", { path: "letters.zip", folder: dest, title: "x" });
    expect(textOf(res2)).toMatch(/ready package.*leave title and description out/);
    expect(ingestCount(repo)).toBe(before);
  });

  it("reports an ingest refused for the storage quota with the service's message: used, needed, left, what to do", async () => {
    const dest = newFolder(`Over quota ${era}`);
    const fresh = Buffer.from(`A page never stored before (${era}, ${Date.now()}).\n`.repeat(50));
    writeFileSync(join(root, `over-quota-${era}.txt`), fresh);
    const manager = authed(repo.url, (await login(repo.url, "manager")).token);
    const setQuota = (quotaBytes: number | null) =>
      manager("/api/storage/quota", {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ quotaBytes }),
      });
    const used = ((await (await manager("/api/storage/quota")).json()) as { value: { usedBytes: number } })
      .value.usedBytes;
    const was = ((await (await manager("/api/storage/quota")).json()) as { value: { quotaBytes: number } })
      .value.quotaBytes;
    expect((await setQuota(used + 10)).status).toBe(200);
    try {
      const started = await mcp.call<Ingested>("ingest", { path: `over-quota-${era}.txt`, folder: dest });
      const res = await mcp.raw("job_status", { job: started.job, waitSeconds: 10 });
      const s = res.structuredContent as unknown as Status;
      expect(s).toMatchObject({ state: "FAILED", finished: true });
      const said = textOf(res) + JSON.stringify(s.errors);
      expect(said).toContain(
        `needs ${fresh.length.toLocaleString("en")} bytes of new storage, but the repository already uses ${used.toLocaleString("en")} bytes`,
      );
      expect(said).toContain("leaving 10 bytes; nothing was ingested");
      expect(said).toMatch(/Free space .* raise the quota/);
      expect(s.created ?? []).toEqual([]);
    } finally {
      expect((await setQuota(was)).status).toBe(200);
    }
  });

  it("is not offered to a reader, nor without ingest roots", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("ingest");
    expect(names).toContain("job_status");
    expect((await noRoots.client.listTools()).tools.map((t) => t.name)).not.toContain("ingest");
  });
});
