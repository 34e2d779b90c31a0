import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import { buildZip, children, E, hash, ingest, readAsset } from "./ingest-helpers.js";

/**
 * A plain zip of folders and files POSTed to a folder: folders become folders, files assets with one
 * Preservation representation, one content object, one original active generation and a bitstream,
 * names kept; bytes and fixities exact; the Ingest event and the action's items recorded.
 */

let repo: RunningRepository;
let users: Users;
let target: string;
let closedTarget: string;

const PDF = Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(70_000, 7), Buffer.from("\n%%EOF\n")]);
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(500, 1),
]);
const NOTE = "Minutes of the harbour board, 1921.\n";

beforeAll(async () => {
  repo = await startTestRepository();
  users = await signIn(repo);
  const { db } = repo.svc;
  target = insertEntity(db, { type: "SO", title: "Deposits", securityTag: "open", created: LONG_AGO }).ref;
  closedTarget = insertEntity(db, {
    type: "SO",
    title: "Closed deposits",
    securityTag: "closed",
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
});

describe("a plain zip", () => {
  it("becomes folders and assets with names kept, byte-exact, with the Ingest event and items", async () => {
    const zip = await buildZip([
      { name: "Harbour Board/", dir: true },
      { name: "Harbour Board/Minutes 1921/", dir: true },
      { name: "Harbour Board/Minutes 1921/minutes (draft) é.txt", data: NOTE },
      { name: "Harbour Board/Minutes 1921/scan.pdf", data: PDF, compress: false },
      { name: "Harbour Board/Plans/quay.png", data: PNG },
      { name: "Harbour Board/Empty/", dir: true },
      { name: "readme.txt", data: "top-level file" },
      { name: "__MACOSX/Harbour Board/._scan.pdf", data: "resource fork" },
    ]);
    const since = new Date().toISOString();
    const p = await ingest(users.curator, target, zip, { Filename: "harbour.zip" });
    expect(p).toMatchObject({ status: "COMPLETED", total: 4, done: 4, failed: 0 });
    expect(p.message).toMatch(/4 folders and 4 assets created/);

    const top = await children(users.curator, target);
    expect([...top.keys()].sort()).toEqual(["Harbour Board", "readme.txt"]);
    expect(top.get("Harbour Board")?.type).toBe("SO");
    const board = await children(users.curator, top.get("Harbour Board")?.ref as string);
    expect([...board.keys()].sort()).toEqual(["Empty", "Minutes 1921", "Plans"]);
    const minutes = await children(users.curator, board.get("Minutes 1921")?.ref as string);
    expect([...minutes.keys()].sort()).toEqual(["minutes (draft) é.txt", "scan.pdf"]);

    const scan = await readAsset(users.curator, minutes.get("scan.pdf")?.ref as string);
    expect(scan).toMatchObject({ title: "scan.pdf", tag: "open", parent: board.get("Minutes 1921")?.ref });
    expect(scan.representations).toHaveLength(1);
    const rep = scan.representations[0];
    expect(rep).toMatchObject({ type: "Preservation", name: "Preservation-1" });
    expect(rep?.contentObjects).toHaveLength(1);
    const co = rep?.contentObjects[0];
    expect(co).toMatchObject({ title: "scan.pdf", tag: "open" });
    expect(co?.generations).toHaveLength(1);
    const gen = co?.generations[0];
    expect(gen).toMatchObject({ original: true, active: true, puid: "fmt/18" });
    const bs = gen?.bitstreams[0];
    expect(bs).toMatchObject({ filename: "scan.pdf", originalName: "scan.pdf", size: PDF.length });
    expect(bs?.bytes.equals(PDF)).toBe(true);
    expect(bs?.fixity).toEqual({
      MD5: hash("md5", PDF),
      SHA1: hash("sha1", PDF),
      SHA256: hash("sha256", PDF),
      SHA512: hash("sha512", PDF),
    });

    const note = await readAsset(users.curator, minutes.get("minutes (draft) é.txt")?.ref as string);
    const noteBs = note.representations[0]?.contentObjects[0]?.generations[0]?.bitstreams[0];
    expect(noteBs?.bytes.toString()).toBe(NOTE);
    expect(noteBs?.originalName).toBe("minutes (draft) é.txt");
    const plans = await children(users.curator, board.get("Plans")?.ref as string);
    const quay = await readAsset(users.curator, plans.get("quay.png")?.ref as string);
    expect(quay.representations[0]?.contentObjects[0]?.generations[0]).toMatchObject({ puid: "fmt/11" });

    // One Ingest event with a command_create action per entity, the workflow instance = the action.
    const { db } = repo.svc;
    const events = db
      .prepare("SELECT id, ref, username, workflow_instance_id FROM events WHERE type = 'Ingest'")
      .all() as {
      id: number;
      username: string;
      workflow_instance_id: string;
    }[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ username: "curator", workflow_instance_id: p.id });
    const acts = db
      .prepare(
        "SELECT command_type, count(*) AS n FROM event_actions WHERE event_id = ? GROUP BY command_type",
      )
      .all(events[0]?.id);
    // 4 folders + 4 assets + 4 content objects.
    expect(acts).toEqual([{ command_type: "command_create", n: 12 }]);
    const updated = await users.curator(
      `${E}/entities/updated-since?date=${encodeURIComponent(since)}&max=100`,
    );
    const refs = arr(parseXml(await updated.text()).root.Entities?.Entity).map((e) => e["@ref"]);
    expect(refs).toContain(scan.ref);

    // The action's items: one per file, each naming its asset; listed under /actions/ingests.
    const listing = parseXml(await (await users.curator(`${E}/actions/ingests/${p.id}`)).text()).root;
    const items = arr(listing.Items?.Item);
    expect(items.map((i) => i["@outcome"])).toEqual(["done", "done", "done", "done"]);
    expect(items.map((i) => text(i)).sort()).toEqual([
      "Harbour Board/Minutes 1921/minutes (draft) é.txt ingested",
      "Harbour Board/Minutes 1921/scan.pdf ingested",
      "Harbour Board/Plans/quay.png ingested",
      "readme.txt ingested",
    ]);
    const rows = db
      .prepare("SELECT entity_ref, outcome, message FROM action_items WHERE action_id = ? ORDER BY seq")
      .all(p.id) as {
      entity_ref: string;
      outcome: string;
      message: string;
    }[];
    expect(rows.map((r) => r.outcome)).toEqual(["done", "done", "done", "done"]);
    expect(rows.map((r) => r.entity_ref)).toContain(scan.ref);
    // The package file is gone once the ingest ended.
    const { readdirSync } = await import("node:fs");
    expect(readdirSync(`${repo.svc.dataDir}/packages`)).toEqual([]);
  });

  it("is found by the Content API search and gives new assets the folder's security tag", async () => {
    const zip = await buildZip([
      { name: "quarantine-register.txt", data: "Quarantine register of the brig Albatross" },
    ]);
    const p = await ingest(users.manager, closedTarget, zip);
    expect(p.status).toBe("COMPLETED");
    const kids = await children(users.manager, closedTarget);
    const asset = await readAsset(users.manager, kids.get("quarantine-register.txt")?.ref as string);
    expect(asset.tag).toBe("closed");
    expect(asset.representations[0]?.contentObjects[0]?.tag).toBe("closed");
    const search = async (who: typeof users.manager) => {
      const res = await who(`/api/content/search?q=${encodeURIComponent("quarantine register")}&max=10`);
      return (await res.json()) as { value: { objectIds: string[] } };
    };
    expect((await search(users.manager)).value.objectIds).toContain(`sdb:IO|${asset.ref}`);
    // The reader may read only "open": the closed asset stays out of their results.
    expect((await search(users.reader)).value.objectIds).not.toContain(`sdb:IO|${asset.ref}`);
  });

  it("answers on the versioned path too, with the same ingest", async () => {
    const zip = await buildZip([{ name: "versioned.txt", data: "v" }]);
    const res = await users.manager(`${E}/v7.0/structural-objects/${target}`, {
      method: "POST",
      body: zip,
      headers: { "Content-Type": "application/zip" },
    });
    const id = await res.text();
    expect(res.status, id).toBe(202);
    await repo.svc.actions.idle();
    expect((await children(users.manager, target)).has("versioned.txt")).toBe(true);
    const progress = parseXml(await (await users.manager(`${E}/progress/${id}`)).text()).root;
    expect(text(progress.Status)).toBe("COMPLETED");
  });
});
