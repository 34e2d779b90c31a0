import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { serviceClientOf } from "../../../src/server/server.js";
import { ERAS, type McpHarness, textOf } from "../../helpers/mcp.js";
import { authed, login } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

interface Status {
  job: string;
  state: string;
  finished: boolean;
  kind?: string;
  created?: { ref: string; title: string }[];
  package?: { path: string; bytes: number; sha256?: string; verified: string[]; savedEarlier?: boolean };
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** Every file entry of a zip, name → bytes. */
function unzip(path: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, Buffer>();
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        zip.openReadStream(entry, (e, rs) => {
          if (e || !rs) return reject(e);
          const chunks: Buffer[] = [];
          rs.on("data", (c: Buffer) => chunks.push(c));
          rs.on("end", () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => resolve(out));
      zip.on("error", reject);
      zip.readEntry();
    });
  });
}

async function finish(mcp: McpHarness, job: string): Promise<Status> {
  for (let i = 0; i < 10; i++) {
    const s = await mcp.call<Status>("job_status", { job, waitSeconds: 10 });
    if (s.finished) return s;
  }
  throw new Error(`job ${job} did not finish`);
}

describe.each(ERAS)("export (%s)", (era) => {
  const root = tempDir("pmcp-export-root-");
  const downloads = tempDir("pmcp-export-dl-");
  const bytes = Buffer.alloc(200_000, 42);
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({
    user: "curator",
    repo,
    era,
    flags: ["--toolsets", "all", "--ingest-roots", root, "--download-dir", downloads],
  });
  const ro = useMcp({ user: "curator", repo, era, flags: ["--read-only", "--download-dir", downloads] });
  const none = useMcp({ user: "curator", repo, era, flags: [] });
  beforeAll(() => {
    mkdirSync(join(root, "reels"));
    writeFileSync(join(root, "reels", "reel-1.bin"), bytes);
    writeFileSync(join(root, "reels", "notes.txt"), "Reel notes\n");
  });

  it("exports a folder and, done within the wait, saves the package byte-exact and verified, with a link", async () => {
    const dest = insertEntity(repo.svc.db, { type: "SO", title: `Films ${era}`, securityTag: "open" }).ref;
    const ing = await mcp.call<{ job: string }>("ingest", { path: join(root, "reels"), folder: dest });
    expect((await finish(mcp, ing.job)).state).toBe("COMPLETED");

    const started = await mcp.raw("export", { ref: dest });
    expect(started.isError, textOf(started)).toBeFalsy();
    const s = started.structuredContent as unknown as Status & { entity: { title: string; type: string } };
    const job = s.job;
    expect(s.entity).toMatchObject({ title: `Films ${era}`, type: "folder" });
    expect(s).toMatchObject({ state: "COMPLETED", finished: true });
    expect(textOf(started)).toContain(`: done (job ${job}).`);
    // No job_status call: the export finished within the brief wait and was saved at once.
    const res = started;
    const pkg = s.package;
    expect(pkg?.path).toBe(join(downloads, `export-${job}.zip`));
    const saved = readFileSync(pkg?.path ?? "");
    expect(pkg?.bytes).toBe(saved.length);
    expect(pkg?.sha256).toBe(sha256(saved));
    expect(pkg?.verified).toEqual([`${saved.length} bytes as announced`]);
    expect(textOf(res)).toContain(`SHA-256 ${sha256(saved)}`);
    const link = (res.content as { type: string; uri?: string }[]).find((c) => c.type === "resource_link");
    expect(link && fileURLToPath(link.uri ?? "")).toBe(pkg?.path);

    // The same bytes as a plain HTTP download of the package.
    const token = (await login(repo.url, "curator")).token;
    const direct = Buffer.from(
      await (await authed(repo.url, token)(`/api/entity/actions/exports/${job}/content`)).arrayBuffer(),
    );
    expect(sha256(direct)).toBe(sha256(saved));
    // And the package holds the ingested file byte for byte.
    const entries = await unzip(pkg?.path ?? "");
    const reel = [...entries].find(([name]) => name.endsWith("/reel-1.bin"));
    expect(reel?.[1].equals(bytes)).toBe(true);
    expect(readdirSync(downloads).filter((f) => f.endsWith(".part"))).toEqual([]);

    // Asking again does not download again.
    const again = await mcp.call<Status>("job_status", { job });
    expect(again.package).toMatchObject({ path: pkg?.path, bytes: saved.length, savedEarlier: true });
    expect(statSync(pkg?.path ?? "").size).toBe(saved.length);
  });

  it("a dangling link where the package would be saved is refused with a clear answer", async () => {
    const dest = insertEntity(repo.svc.db, { type: "SO", title: `Empty ${era}`, securityTag: "open" }).ref;
    // Started through the service, not the tool (which saves a quick export at once): the link must be in
    // place before anything tries to save the package.
    const job = await serviceClientOf(mcp.deps.session).export.start(dest, "SO");
    const target = join(downloads, `export-${job}.zip`);
    symlinkSync(join(root, "no-such-file.zip"), target);
    let res = await mcp.raw("job_status", { job, waitSeconds: 20 });
    for (let i = 0; i < 5 && !res.isError && !(res.structuredContent as unknown as Status).finished; i++) {
      res = await mcp.raw("job_status", { job, waitSeconds: 20 });
    }
    expect(res.isError).toBe(true);
    expect(textOf(res)).toContain(`${target} is a link (to ${join(root, "no-such-file.zip")})`);
    expect(textOf(res)).toContain("Nothing was saved");
    expect(existsSync(join(root, "no-such-file.zip"))).toBe(false);
  });

  it("refuses a content object, names the right tool; is offered in read-only mode, not without a download folder", async () => {
    const folder = insertEntity(repo.svc.db, { type: "SO", title: "F", securityTag: "open" });
    const asset = insertEntity(repo.svc.db, {
      type: "IO",
      title: "A",
      securityTag: "open",
      parentRef: folder.ref,
    });
    const co = insertEntity(repo.svc.db, {
      type: "CO",
      title: "C",
      securityTag: "open",
      parentRef: asset.ref,
    });
    const res = await mcp.raw("export", { ref: co.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      new RegExp(`is a content object.*Export its asset instead \\(${asset.ref}\\)`),
    );

    const roNames = (await ro.client.listTools()).tools.map((t) => t.name);
    expect(roNames).toEqual(expect.arrayContaining(["export", "job_status"]));
    expect((await none.client.listTools()).tools.map((t) => t.name)).not.toContain("export");
  });
});
