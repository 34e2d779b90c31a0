import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed/demo.js";
import type { RunningRepository } from "../../../repository/server.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { parseXml, text } from "../entity-xml.js";
import { accepted, settled } from "../writes/structure-helpers.js";
import { sendXml, signIn, type Users } from "../writes/write-helpers.js";
import { download, E, type EntityInfo, readEntity, runExport, unzip } from "./export-helpers.js";

/**
 * The round trip the issue asks for: a demo folder exported with content and metadata, the package
 * ingested (unchanged, over HTTP) into another folder, and the copy read back through the Entity API:
 * the same tree, titles, descriptions, security tags, identifiers and descriptive metadata documents,
 * and for every file the same name, size, fixities and bytes.
 */

let repo: RunningRepository;
let users: Users;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  users = await signIn(repo);
});

afterAll(async () => {
  await repo?.close();
});

/** What must survive the round trip: everything but refs (the copy has new ones). */
function comparable(e: EntityInfo): unknown {
  return {
    type: e.type,
    title: e.title,
    description: e.description,
    tag: e.tag,
    identifiers: e.identifiers,
    documents: e.documents,
    files: [...e.files.entries()].sort(([a], [b]) => a.localeCompare(b)),
    children: e.children.map(comparable),
  };
}

function countFiles(e: EntityInfo): number {
  return e.files.size + e.children.reduce((n, c) => n + countFiles(c), 0);
}

async function newFolder(title: string): Promise<string> {
  const xip = parseXml(
    await (
      await sendXml(
        users.manager,
        "POST",
        `${E}/structural-objects`,
        `<StructuralObject xmlns="http://preservica.com/XIP/v7.7"><Ref>${randomUUID()}</Ref><Title>${title}</Title><Description></Description><SecurityTag>open</SecurityTag></StructuralObject>`,
      )
    ).text(),
  );
  return text(xip.root.StructuralObject?.Ref ?? xip.root.Ref);
}

describe("export then ingest", () => {
  it("gives back the same folders, assets, metadata, bytes and fixities", async () => {
    // The council's records: PDF, text, CSV and XML files, access copies, one closed asset.
    const source = DEMO.rootFolders.find((r) => r.title === "Harbour Town Council")?.ref as string;
    const exported = await runExport(users.manager, "structural-objects", source, {
      content: "Content",
      metadata: "Metadata",
      generations: "LatestActive",
      hierarchy: "false",
    });
    expect(exported.status, exported.message).toBe("COMPLETED");
    const zip = await download(users.manager, exported.id);

    const target = await newFolder("Round trip");
    expect(target).toMatch(/^[0-9a-f-]{36}$/);
    const res = await users.manager(`${E}/structural-objects/${target}`, {
      method: "POST",
      body: zip,
      headers: { "Content-Type": "application/octet-stream" },
    });
    const ingestId = await accepted(res);
    const ingested = await settled(users.manager, ingestId, 60_000);
    expect(ingested.status, ingested.message).toBe("COMPLETED");

    const copy = await readEntity(users.manager, "SO", target);
    expect(copy.children).toHaveLength(1);
    const original = await readEntity(users.manager, "SO", source);
    const again = copy.children[0] as EntityInfo;
    expect(again.ref).not.toBe(original.ref);
    expect(countFiles(original)).toBeGreaterThan(40);
    expect(JSON.stringify(comparable(original))).toContain('"tag":"closed"');
    expect(original.documents.length).toBeGreaterThan(0);
    expect(comparable(again)).toEqual(comparable(original));
  });

  it("keeps awkward titles and file names: unsafe characters, clashes, names that look like manifests or assets", async () => {
    const { db, content } = repo.svc;
    const top = insertEntity(db, { type: "SO", title: "Odd: names / here", securityTag: "open" }).ref;
    const titles = ['Letter "A/B"?', 'letter "a\\b"*', "..", "Scans.pax", "Minutes.opex", "CON"];
    for (const [i, title] of titles.entries()) {
      if (title === "Scans.pax" || title === "Minutes.opex") {
        insertEntity(db, { type: "SO", title, securityTag: "open", parentRef: top });
        continue;
      }
      const io = insertEntity(db, { type: "IO", title, securityTag: "open", parentRef: top }).ref;
      const co = insertEntity(db, { type: "CO", title: `page ${i}`, securityTag: "open", parentRef: io }).ref;
      addRepresentation(db, io, "Preservation", "Preservation", [co]);
      const g = addGeneration(db, co, { label: "x" });
      addBitstream(db, g, {
        filename: i === 0 ? "notes.opex" : `page:${i}.txt`,
        mimeType: "text/plain",
        blob: content.put(Buffer.from(`page ${i}\n`)),
      });
    }
    const exported = await runExport(users.manager, "structural-objects", top, {});
    expect(exported.status, exported.message).toBe("COMPLETED");
    const zip = await download(users.manager, exported.id);
    const names = [...(await unzip(zip)).files.keys()];
    for (const n of names) expect(n).not.toMatch(/[:*?"\\]|(^|\/)\.\.(\/|$)/);
    expect(names.filter((n) => n.endsWith(".opex"))).toHaveLength(titles.length + 1);

    const target = await newFolder("Odd names again");
    const ingested = await settled(
      users.manager,
      await accepted(
        await users.manager(`${E}/structural-objects/${target}`, {
          method: "POST",
          body: zip,
          headers: { "Content-Type": "application/octet-stream" },
        }),
      ),
      60_000,
    );
    expect(ingested.status, ingested.message).toBe("COMPLETED");
    const copy = (await readEntity(users.manager, "SO", target)).children[0] as EntityInfo;
    const original = await readEntity(users.manager, "SO", top);
    const withoutFileNames = (e: EntityInfo) => ({
      ...(comparable(e) as object),
      files: undefined,
      children: e.children.map((c) => ({
        ...(comparable(c) as object),
        files: [...c.files.values()].map((f) => f.sha256),
      })),
    });
    expect(withoutFileNames(copy)).toEqual(withoutFileNames(original));
    expect(copy.children.map((c) => c.title).sort()).toEqual([...titles].sort());
  });

  it("with events and the parent hierarchy: the folders above come back as folders, the rest as before", async () => {
    const shipping = DEMO.entities.find((e) => e.title === "Harbour and Shipping")?.ref as string;
    const exported = await runExport(users.manager, "structural-objects", shipping, {
      metadata: "MetadataWithEvents",
      generations: "All",
      hierarchy: "true",
    });
    expect(exported.status, exported.message).toBe("COMPLETED");
    const target = await newFolder("Round trip with hierarchy");
    const ingestId = await accepted(
      await users.manager(`${E}/structural-objects/${target}`, {
        method: "POST",
        body: await download(users.manager, exported.id),
        headers: { "Content-Type": "application/octet-stream" },
      }),
    );
    const ingested = await settled(users.manager, ingestId, 60_000);
    expect(ingested.status, ingested.message).toBe("COMPLETED");

    const copy = await readEntity(users.manager, "SO", target);
    const photos = copy.children[0] as EntityInfo;
    const original = await readEntity(users.manager, "SO", DEMO.refs.photographs);
    const { children: _a, ...photosProps } = comparable(photos) as Record<string, unknown>;
    const { children: _b, ...originalProps } = comparable(original) as Record<string, unknown>;
    expect(photosProps).toEqual(originalProps);
    expect(photos.children).toHaveLength(1);
    expect(comparable(photos.children[0] as EntityInfo)).toEqual(
      comparable(await readEntity(users.manager, "SO", shipping)),
    );
  });
});
