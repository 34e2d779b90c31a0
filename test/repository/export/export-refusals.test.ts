import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed/demo.js";
import type { RunningRepository } from "../../../repository/server.js";
import { getAction } from "../../../repository/store/actions/read.js";
import { createAction } from "../../../repository/store/actions/write.js";
import { addSecurityTag, grant, Permission, Role } from "../../../repository/store/auth.js";
import { openDatabase } from "../../../repository/store/db.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { progress } from "../writes/structure-helpers.js";
import { expectRefused, signIn, type Users } from "../writes/write-helpers.js";
import { download, E, exportBody, postExport, readManifest, runExport, unzip } from "./export-helpers.js";

/**
 * What an export refuses, and the package route: bad ExportAction values (400 listing the allowed
 * ones), entities the caller may not read or download (403 naming one; nothing created), missing bytes
 * (the rest exported, the gap named), the package route's answers before completion, for other kinds
 * and other users, retention (7 days, swept at start-up), and an export stopped half-way and resumed.
 */

let repo: RunningRepository;
let users: Users;
const COUNCIL = DEMO.rootFolders.find((r) => r.title === "Harbour Town Council")?.ref as string;
const PHOTOS = DEMO.refs.photographs;

function exportFiles(r: RunningRepository): string[] {
  const dir = join(r.svc.dataDir, "exports");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** A folder holding one asset of `files` text files (one content object each), tagged `tag`. */
function fixture(r: RunningRepository, title: string, tag: string, files: string[], parentRef?: string) {
  const { db, content } = r.svc;
  const folder = insertEntity(db, {
    type: "SO",
    title,
    securityTag: tag,
    ...(parentRef ? { parentRef } : {}),
  });
  const asset = insertEntity(db, {
    type: "IO",
    title: `${title} asset`,
    securityTag: tag,
    parentRef: folder.ref,
  });
  const cos = files.map((body, i) => {
    const co = insertEntity(db, {
      type: "CO",
      title: `part-${i + 1}.txt`,
      securityTag: tag,
      parentRef: asset.ref,
    });
    const g = addGeneration(db, co.ref, { label: `part-${i + 1}.txt` });
    addBitstream(db, g, {
      filename: `part-${i + 1}.txt`,
      mimeType: "text/plain",
      blob: content.put(Buffer.from(body)),
    });
    return co.ref;
  });
  addRepresentation(db, asset.ref, "Preservation", "Preservation", cos);
  return { folder: folder.ref, asset: asset.ref, cos };
}

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  users = await signIn(repo);
});

afterAll(async () => {
  await repo?.close();
});

describe("refusals change nothing", () => {
  it("answers 400 for values outside those allowed, listing them", async () => {
    const cases: [Parameters<typeof exportBody>[0], RegExp][] = [
      [{ content: "Everything" }, /IncludeContent must be one of Content, NoContent, got "Everything"/],
      [{ metadata: "Some" }, /IncludeMetadata must be one of Metadata, NoMetadata, MetadataWithEvents/],
      [{ generations: "Latest" }, /IncludedGenerations must be one of LatestActive, AllActive, All/],
      [{ hierarchy: "yes" }, /IncludeParentHierarchy must be one of true, false/],
    ];
    for (const [choice, message] of cases) {
      await expectRefused(
        repo,
        () => postExport(users.manager, "structural-objects", PHOTOS, exportBody(choice)),
        400,
        message,
      );
    }
    await expectRefused(
      repo,
      () =>
        postExport(
          users.manager,
          "structural-objects",
          PHOTOS,
          "<Export><IncludeContent>Content</IncludeContent></Export>",
        ),
      400,
      /root element must be ExportAction/,
    );
    await expectRefused(
      repo,
      () => postExport(users.manager, "structural-objects", PHOTOS, "<ExportAction>"),
      400,
      /./,
    );
    await expectRefused(
      repo,
      () => postExport(users.manager, "structural-objects", PHOTOS, ""),
      400,
      /empty/,
    );
    expect(exportFiles(repo)).toEqual([]);
  });

  it("accepts the values in any case, as pyPreservica forwards them, and stores them spelt canonically", async () => {
    const done = await runExport(users.manager, "information-objects", DEMO.refs.photoNorthQuay1890, {
      content: "nocontent",
      metadata: "METADATAWITHEVENTS",
      generations: "latestactive",
      hierarchy: "FALSE",
    });
    expect(done.status).toBe("COMPLETED");
    const detail = await (await users.manager(`${E}/actions/exports/${done.id}`)).text();
    expect(detail).toContain('"includeContent":"NoContent"');
    expect(detail).toContain('"includeMetadata":"MetadataWithEvents"');
  });

  it("answers 404 for unknown entities and entities of the other type, 400 for malformed refs", async () => {
    const body = exportBody();
    await expectRefused(
      repo,
      () => postExport(users.manager, "structural-objects", "7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f", body),
      404,
      /not found/,
    );
    await expectRefused(
      repo,
      () => postExport(users.manager, "information-objects", PHOTOS, body),
      404,
      /structural-objects/,
    );
    await expectRefused(
      repo,
      () => postExport(users.manager, "structural-objects", "nope", body),
      404,
      /not a UUID/,
    );
  });

  it("refuses a reader exporting a folder that holds closed material, naming it (403, nothing created)", async () => {
    const files = exportFiles(repo);
    const closed = DEMO.refs.councilMinutes1866Confidential;
    const message = await expectRefused(
      repo,
      () => postExport(users.reader, "structural-objects", COUNCIL, exportBody()),
      403,
      /lacks the Read Metadata permission on security tag "closed"/,
    );
    expect(message).toContain(closed);
    expect(message).toContain("nothing was exported");
    // Not even without content: the manifests would describe it.
    await expectRefused(
      repo,
      () => postExport(users.reader, "structural-objects", COUNCIL, exportBody({ content: "NoContent" })),
      403,
      new RegExp(closed),
    );
    // A closed asset itself is refused as any read of it is.
    await expectRefused(
      repo,
      () => postExport(users.reader, "information-objects", closed, exportBody()),
      403,
      /Read Metadata/,
    );
    expect(exportFiles(repo)).toEqual(files);
    // An all-open folder is the reader's to export.
    const ok = await runExport(users.reader, "structural-objects", PHOTOS, {});
    expect(ok.status).toBe("COMPLETED");
  });

  it("needs Download for content: Content is refused where the reader may only read, NoContent is not", async () => {
    const { db } = repo.svc;
    addSecurityTag(db, "reading-room");
    grant(db, Role.ACCESS, "reading-room", [Permission.READ_METADATA]);
    const f = fixture(repo, "Reading room", "reading-room", ["first\n", "second\n"]);
    const message = await expectRefused(
      repo,
      () => postExport(users.reader, "structural-objects", f.folder, exportBody()),
      403,
      /lacks the Download permission on security tag "reading-room"/,
    );
    expect(message).toMatch(new RegExp(`asset ${f.asset}|content object ${f.cos[0]}`));
    expect(message).toContain("NoContent");
    const ok = await runExport(users.reader, "structural-objects", f.folder, { content: "NoContent" });
    expect(ok.status).toBe("COMPLETED");
    const z = await unzip(await download(users.reader, ok.id));
    expect([...z.files.keys()].every((p) => p.endsWith(".opex"))).toBe(true);
  });

  it("with the parent hierarchy, needs Read Metadata on the folders above too", async () => {
    const staff = insertEntity(repo.svc.db, { type: "SO", title: "Staff only", securityTag: "staff" }).ref;
    const f = fixture(repo, "Open inside staff", "open", ["x\n"], staff);
    const message = await expectRefused(
      repo,
      () => postExport(users.reader, "structural-objects", f.folder, exportBody({ hierarchy: "true" })),
      403,
      /Read Metadata permission on security tag "staff" of folder/,
    );
    expect(message).toContain(staff);
    expect(message).toContain("IncludeParentHierarchy to false");
    const ok = await runExport(users.reader, "structural-objects", f.folder, { hierarchy: "false" });
    expect(ok.status).toBe("COMPLETED");
  });
});

describe("awkward stores", () => {
  it("exports a folder whose older sub-folder was moved below it", async () => {
    const older = fixture(repo, "Older", "open", ["moved in\n"]);
    const newer = insertEntity(repo.svc.db, { type: "SO", title: "Newer", securityTag: "open" }).ref;
    repo.svc.db.prepare("UPDATE entities SET parent_ref = ? WHERE ref = ?").run(newer, older.folder);
    const done = await runExport(users.manager, "structural-objects", newer, {});
    expect(done.status, done.message).toBe("COMPLETED");
    const z = await unzip(await download(users.manager, done.id));
    expect([...z.files.keys()].sort()).toEqual([
      "Newer/Newer.opex",
      "Newer/Older/Older asset.pax.opex",
      "Newer/Older/Older asset.pax/Representation_Preservation/part-1.txt/part-1.txt",
      "Newer/Older/Older.opex",
    ]);
  });

  it("with bytes missing from the content store, exports the rest and names what is missing (FINISHED_MIXED_OUTCOME)", async () => {
    const f = fixture(repo, "Damaged", "open", ["kept bytes\n", "lost bytes\n"]);
    const lost = repo.svc.db
      .prepare(
        `SELECT b.content_sha256 AS sha FROM bitstreams b JOIN generations g ON g.id = b.generation_id WHERE g.co_ref = ?`,
      )
      .get(f.cos[1]) as { sha: string };
    expect(repo.svc.content.remove(lost.sha)).toBe(true);
    const done = await runExport(users.manager, "structural-objects", f.folder, {});
    expect(done.status).toBe("FINISHED_MIXED_OUTCOME");
    expect(done.failed).toBe(1);
    const errors = arr(
      parseXml(await (await users.manager(`${E}/progress/${done.id}`)).text()).root.Errors?.Error,
    );
    expect(errors).toHaveLength(1);
    expect(text(errors[0])).toContain("part-2.txt");
    expect(text(errors[0])).toContain(lost.sha);
    expect(errors[0]["@entityRef"]).toBe(f.cos[1]);
    const z = await unzip(await download(users.manager, done.id));
    const files = [...z.files.keys()].filter((p) => !p.endsWith(".opex"));
    expect(files).toEqual(["Damaged/Damaged asset.pax/Representation_Preservation/part-1.txt/part-1.txt"]);
    const m = readManifest(z.files.get("Damaged/Damaged asset.pax.opex") as Buffer);
    expect(m.files.map((x) => x.path)).toEqual(["Representation_Preservation/part-1.txt/part-1.txt"]);
  });
});

describe("the package route", () => {
  it("answers 404 before the export ends, for other kinds of action, unknown tokens and junk", async () => {
    const running = createAction(
      repo.svc.db,
      { kind: "export", username: "manager", entityRef: PHOTOS, entityType: "SO", params: {} },
      new Date().toISOString(),
    );
    let res = await users.manager(`${E}/actions/exports/${running.id}/content`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /still running; poll \/api\/entity\/progress/,
    );
    const other = createAction(
      repo.svc.db,
      {
        kind: "security-tag",
        username: "manager",
        entityRef: PHOTOS,
        entityType: "SO",
        params: {},
        status: "COMPLETED",
      },
      new Date().toISOString(),
    );
    res = await users.manager(`${E}/actions/exports/${other.id}/content`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/No export with progress token/);
    res = await users.manager(`${E}/actions/exports/0b1c2d3e-4f50-4a6b-8c7d-8e9fa0b1c2d3/content`);
    expect(res.status).toBe(404);
    res = await users.manager(`${E}/actions/exports/junk/content`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/not a UUID/);
    repo.svc.db.prepare("DELETE FROM actions WHERE id IN (?, ?)").run(running.id, other.id);
  });

  it("gives a package to its owner, managers and administrators only", async () => {
    const mine = await runExport(users.curator, "information-objects", DEMO.refs.photoHerringFleet1905, {});
    expect(mine.status).toBe("COMPLETED");
    const res = await users.reader(`${E}/actions/exports/${mine.id}/content`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/belongs to curator/);
    expect((await download(users.manager, mine.id)).length).toBeGreaterThan(0);
    const head = await users.curator(`${E}/actions/exports/${mine.id}/content`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect((await download(users.curator, mine.id)).length).toBeGreaterThan(0);
    // pyPreservica polls progress and lists without sleeping: both answer for the export.
    expect((await progress(users.curator, mine.id)).status).toBe("COMPLETED");
  });
});

describe("retention and restarts", () => {
  it("keeps a package 7 days after the export ends; then 404, and the file is swept (also at start-up)", async () => {
    const dataDir = tempDir("export-retention-");
    let clock = Date.now();
    const now = () => clock;
    let r = await startTestRepository({ seed: "demo", dataDir, now });
    try {
      let manager = authed(r.url, (await login(r.url, "manager")).token);
      const a = await runExport(manager, "information-objects", DEMO.refs.photoNorthQuay1890, {});
      const b = await runExport(manager, "information-objects", DEMO.refs.photoHerringFleet1905, {});
      expect(exportFiles(r).sort()).toEqual([`${a.id}.zip`, `${b.id}.zip`].sort());
      clock += 6 * 24 * 3_600_000;
      manager = authed(r.url, (await login(r.url, "manager")).token);
      expect((await download(manager, a.id)).length).toBeGreaterThan(0);
      clock += 24 * 3_600_000 + 60_000;
      manager = authed(r.url, (await login(r.url, "manager")).token);
      const res = await manager(`${E}/actions/exports/${a.id}/content`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toMatch(/kept 7 days/);
      expect(exportFiles(r)).toEqual([`${b.id}.zip`]);
      await r.close();
      r = await startTestRepository({ seed: "demo", dataDir, now });
      expect(exportFiles(r)).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it("an export stopped half-way stays ACTIVE, leaves no partial file, and completes after a restart", async () => {
    const dataDir = tempDir("export-resume-");
    process.env.PRESERVATION_EXPORT_PAUSE_MS = "150";
    let r = await startTestRepository({ seed: "demo", dataDir });
    try {
      const manager = authed(r.url, (await login(r.url, "manager")).token);
      const res = await postExport(manager, "structural-objects", PHOTOS, exportBody());
      const id = await res.text();
      expect(res.status).toBe(202);
      for (
        let p = await progress(manager, id);
        !/Writing the package: [1-9]\d* of 40 files/.test(p.message);
      ) {
        await new Promise((done) => setTimeout(done, 50));
        p = await progress(manager, id);
        expect(p.status).toBe("ACTIVE");
      }
      await r.close();
      expect(exportFiles(r)).toEqual([]);
      const db = openDatabase(dataDir);
      expect(getAction(db, id)?.status).toBe("ACTIVE");
      db.close();
      delete process.env.PRESERVATION_EXPORT_PAUSE_MS;
      r = await startTestRepository({ seed: "demo", dataDir });
      await r.svc.actions.idle();
      const again = authed(r.url, (await login(r.url, "manager")).token);
      const p = await progress(again, id);
      expect(p.status).toBe("COMPLETED");
      const z = await unzip(await download(again, id));
      expect([...z.files.keys()].filter((f) => !f.endsWith(".opex"))).toHaveLength(40);
      expect(exportFiles(r)).toEqual([`${id}.zip`]);
    } finally {
      delete process.env.PRESERVATION_EXPORT_PAUSE_MS;
      await r.close();
    }
  });
});
