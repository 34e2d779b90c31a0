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
import { arr, parseXml, text } from "../entity-xml.js";
import { signIn, type Users } from "../writes/write-helpers.js";
import {
  canonical,
  download,
  E,
  type EntityInfo,
  type Manifest,
  readEntity,
  readManifest,
  runExport,
  sha,
  type Unzipped,
  unzip,
} from "./export-helpers.js";

/**
 * Exports over HTTP, checked in the package itself: a folder per folder and a PAX folder per asset,
 * manifests that are well-formed OPEX 1.2 with the entities' titles, descriptions, security tags,
 * identifiers and metadata documents, fixities equal to the service's own bitstream fixities, and
 * content byte for byte as the service serves it. Option by option on an asset whose content was
 * replaced (two generations). Refusals, the package route and retention are in export-refusals.test.ts.
 */

let repo: RunningRepository;
let users: Users;
const COUNCIL = DEMO.rootFolders.find((r) => r.title === "Harbour Town Council")?.ref as string;
const MINUTES = DEMO.refs.councilMinutes1851;
const PHOTOS_REF = DEMO.refs.photographs;
const NEW_SCAN = Buffer.from("%PDF-1.4\n% a better scan of the 1851 minutes\n%%EOF\n", "latin1");

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  users = await signIn(repo);
});

afterAll(async () => {
  await repo?.close();
});

/** The manifests of a package by the ref they describe (Transfer/SourceID), with their paths. */
function manifestsBySource(z: Unzipped): Map<string, Manifest & { path: string }> {
  const out = new Map<string, Manifest & { path: string }>();
  for (const [path, bytes] of z.files) {
    if (!path.endsWith(".opex")) continue;
    const m = readManifest(bytes, path);
    expect(out.has(m.sourceId), `two manifests describe ${m.sourceId}`).toBe(false);
    out.set(m.sourceId, { ...m, path });
  }
  return out;
}

const dirOf = (path: string) => path.slice(0, path.lastIndexOf("/"));
const undash = (t: string) => t.replace(/-/g, "");

/** Checks a manifest's properties and metadata against the entity as the Entity API shows it. */
function expectDescribes(m: Manifest, e: EntityInfo, withMetadata = true): void {
  expect(m.title).toBe(e.title);
  expect(m.description ?? "").toBe(e.description);
  expect(m.tag).toBe(e.tag);
  expect(m.identifiers.map(([t, v]) => `${t}=${v}`).sort()).toEqual(e.identifiers);
  expect(m.documents.map(canonical).sort()).toEqual(withMetadata ? e.documents : []);
}

/**
 * Checks an asset's PAX: every content file the manifest lists is in the zip at its path with the
 * listed size, its bytes hash to the service's SHA-256 of that bitstream, and the manifest's fixities
 * for it are exactly the service's; nothing else lies in the PAX folder.
 */
function expectPax(z: Unzipped, m: Manifest & { path: string }, e: EntityInfo): void {
  const pax = m.path.slice(0, -".opex".length);
  expect(pax.endsWith(".pax")).toBe(true);
  const listed = m.files.filter((f) => f.type === "content");
  expect(listed).toHaveLength(e.files.size);
  for (const f of listed) {
    const bytes = z.files.get(`${pax}/${f.path}`);
    expect(bytes, `${pax}/${f.path} is listed but not in the zip`).toBeDefined();
    expect(String(bytes?.length)).toBe(f.size);
    const [rep, co, name] = f.path.split("/") as [string, string, string];
    const served = e.files.get(`${rep.replace(/^Representation_/, "")}/${co}/${name}`);
    expect(served, `${f.path} is not a bitstream of ${e.title}`).toBeDefined();
    expect(sha("sha256", bytes as Buffer)).toBe(served?.sha256);
    const fixities = Object.fromEntries(
      m.fixities.filter((x) => x.path === f.path).map((x) => [undash(x.type), x.value]),
    );
    expect(fixities).toEqual(served?.fixity);
    expect(fixities.SHA256).toBe(sha("sha256", bytes as Buffer));
    expect(fixities.MD5).toBe(sha("md5", bytes as Buffer));
  }
  const inPax = [...z.files.keys()].filter((p) => p.startsWith(`${pax}/`));
  expect(inPax.sort()).toEqual(listed.map((f) => `${pax}/${f.path}`).sort());
}

function* walk(e: EntityInfo): Generator<EntityInfo> {
  yield e;
  for (const c of e.children) yield* walk(c);
}

describe("exporting a folder", () => {
  let exportId: string;
  let council: EntityInfo;

  it("writes an OPEX package: folders as folders, assets as PAX folders, the entities' properties and metadata, the service's fixities, the bytes", async () => {
    const done = await runExport(users.manager, "structural-objects", COUNCIL, { hierarchy: "false" });
    expect(done.status, done.message).toBe("COMPLETED");
    exportId = done.id;
    const z = await unzip(await download(users.manager, done.id));
    council = await readEntity(users.manager, "SO", COUNCIL);
    const entities = [...walk(council)];
    expect(entities.length).toBeGreaterThan(30);
    expect(done.total).toBe(entities.length);
    expect(done.done).toBe(entities.length);

    // One manifest per folder and asset, and nothing else but the content files they list.
    const manifests = manifestsBySource(z);
    expect([...manifests.keys()].sort()).toEqual(entities.map((e) => e.ref).sort());
    // Each folder's directory has an entry (as the real service's packages do); PAX folders have none.
    expect([...z.dirs].sort()).toEqual(
      entities
        .filter((e) => e.type === "SO")
        .map((e) => dirOf((manifests.get(e.ref) as Manifest & { path: string }).path))
        .sort(),
    );
    for (const d of z.dirs)
      expect(z.order.indexOf(`${d}/`)).toBeLessThan(z.order.indexOf(`${d}/${d.split("/").at(-1)}.opex`));
    const contentFiles = [...z.files.keys()].filter((p) => !p.endsWith(".opex"));
    expect(contentFiles).toHaveLength(entities.reduce((n, e) => n + e.files.size, 0));
    // Everything lies in the folder's own directory; its manifest is inside it, named after it.
    expect(manifests.get(COUNCIL)?.path).toBe("Harbour Town Council/Harbour Town Council.opex");
    for (const p of z.files.keys()) expect(p.startsWith("Harbour Town Council/")).toBe(true);

    for (const e of entities) {
      const m = manifests.get(e.ref) as Manifest & { path: string };
      expectDescribes(m, e);
      if (e.type === "IO") {
        expectPax(z, m, e);
        continue;
      }
      // A folder's manifest lists its children: sub-folders and PAX folders, and the PAX manifests.
      const dir = dirOf(m.path);
      expect(m.path).toBe(`${dir}/${dir.split("/").at(-1)}.opex`);
      expect(m.folders).toHaveLength(e.children.length);
      for (const c of e.children) {
        const cm = manifests.get(c.ref) as Manifest & { path: string };
        if (c.type === "SO") {
          expect(m.folders).toContain(dirOf(cm.path).slice(dir.length + 1));
        } else {
          expect(dirOf(cm.path)).toBe(dir);
          const name = cm.path.slice(dir.length + 1);
          expect(m.files).toContainEqual({ path: name, type: "metadata", size: undefined });
          expect(m.folders).toContain(name.slice(0, -".opex".length));
        }
      }
    }
    // The closed asset keeps its tag; the Dublin Core of the fonds is in the folder's manifest.
    expect(manifests.get(DEMO.refs.councilMinutes1866Confidential)?.tag).toBe("closed");
    expect(manifests.get(COUNCIL)?.documents.map((d) => d.name)).toContain("dc");
  });

  it("is listed at /actions/exports with one done item per folder and asset", async () => {
    const list = parseXml(await (await users.manager(`${E}/actions/exports`)).text()).root;
    expect(JSON.stringify(list)).toContain(exportId);
    const detail = await users.manager(`${E}/actions/exports/${exportId}?max=1000`);
    const body = await detail.text();
    expect(detail.status, body).toBe(200);
    const items = arr(parseXml(body).root.Items?.Item);
    expect(items.map((i) => i["@entityRef"]).sort()).toEqual([...walk(council)].map((e) => e.ref).sort());
    expect(items.every((i) => i["@outcome"] === "done")).toBe(true);
    // The progress reply of a finished export says where the package is.
    const progress = parseXml(await (await users.manager(`${E}/progress/${exportId}`)).text()).root;
    expect(text(progress.Message)).toContain(`/api/entity/actions/exports/${exportId}/content`);
  });

  it("serves the package to pyPreservica's download_opex request as it is sent", async () => {
    // GET with the Content-Type header the client puts on every call, streamed to a file by it.
    const res = await users.manager(`${E}/actions/exports/${exportId}/content`, {
      headers: { "Content-Type": "application/xml;charset=UTF-8", "User-Agent": "pyPreservica SDK/(3.4.4)" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toContain(`${exportId}.zip`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
  });
});

describe("exporting a folder, option by option", () => {
  const SHIPPING = DEMO.entities.find((e) => e.title === "Harbour and Shipping")?.ref as string;
  let folder: EntityInfo;

  beforeAll(async () => {
    folder = await readEntity(users.manager, "SO", SHIPPING);
  });

  async function exportFolder(o: Parameters<typeof runExport>[3]) {
    const done = await runExport(users.manager, "structural-objects", SHIPPING, o);
    expect(done.status, done.message).toBe("COMPLETED");
    const z = await unzip(await download(users.manager, done.id));
    return { done, z, manifests: manifestsBySource(z) };
  }

  const cases: [
    string,
    Parameters<typeof runExport>[3],
    (r: Awaited<ReturnType<typeof exportFolder>>) => void,
  ][] = [
    [
      "NoContent",
      { content: "NoContent" },
      ({ z, manifests }) => {
        expect([...z.files.keys()].every((p) => p.endsWith(".opex"))).toBe(true);
        for (const c of folder.children) expect(manifests.get(c.ref)?.fixities).toEqual([]);
        // Empty PAX folders of the assets, and the folders' own directories.
        expect(z.dirs.size).toBe(
          folder.children.length + [...walk(folder)].filter((e) => e.type === "SO").length,
        );
      },
    ],
    [
      "NoMetadata",
      { metadata: "NoMetadata" },
      ({ z, manifests }) => {
        for (const e of walk(folder)) expectDescribes(manifests.get(e.ref) as Manifest, e, false);
        for (const c of folder.children) expectPax(z, manifests.get(c.ref) as Manifest & { path: string }, c);
      },
    ],
    [
      "MetadataWithEvents",
      { metadata: "MetadataWithEvents" },
      ({ manifests }) => {
        for (const e of walk(folder)) {
          const m = manifests.get(e.ref) as Manifest;
          expectDescribes(m, e);
          expect(m.events.length, e.title).toBeGreaterThan(0);
          expect(m.events.some((ev) => ev.type === "Ingest")).toBe(true);
        }
      },
    ],
    [
      "All generations",
      { generations: "All" },
      ({ z, manifests }) => {
        // One generation each here, so the same layout as LatestActive.
        for (const c of folder.children) expectPax(z, manifests.get(c.ref) as Manifest & { path: string }, c);
      },
    ],
    [
      "the parent hierarchy",
      { hierarchy: "true" },
      ({ done, manifests }) => {
        expect(done.total).toBe([...walk(folder)].length + 1);
        const top = manifests.get(PHOTOS_REF) as Manifest & { path: string };
        expect(top.path).toBe("Photographs/Photographs.opex");
        expect(top.folders).toEqual(["Harbour and Shipping"]);
        expect(manifests.get(SHIPPING)?.path).toBe(
          "Photographs/Harbour and Shipping/Harbour and Shipping.opex",
        );
      },
    ],
  ];
  for (const [label, choice, check] of cases) {
    it(`${label}`, async () => {
      const r = await exportFolder(choice);
      expect([...r.manifests.keys()]).toEqual(expect.arrayContaining([...walk(folder)].map((e) => e.ref)));
      check(r);
    });
  }
});

describe("exporting an asset, option by option", () => {
  let asset: EntityInfo;
  let co: string;

  beforeAll(async () => {
    // A second scan replaces the minutes: generation 2 becomes active, generation 1 is kept inactive.
    co = (
      repo.svc.db
        .prepare("SELECT ref FROM entities WHERE parent_ref = ? AND type = 'CO' ORDER BY id LIMIT 1")
        .get(MINUTES) as { ref: string }
    ).ref;
    const res = await users.manager(`${E}/content-objects/${co}/generations?replaceType=previous`, {
      method: "POST",
      body: NEW_SCAN,
      headers: {
        "Content-Type": "application/octet-stream",
        Filename: "minutes-1851-rescan.pdf",
        "Fixity-SHA-256": sha("sha256", NEW_SCAN),
      },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    await repo.svc.actions.idle();
    const gens = parseXml(await (await users.manager(`${E}/content-objects/${co}/generations`)).text()).root;
    expect(arr(gens.Generations.Generation).map((g) => g["@active"])).toEqual(["false", "true"]);
    asset = await readEntity(users.manager, "IO", MINUTES);
  });

  async function exportAsset(o: Parameters<typeof runExport>[3]) {
    const done = await runExport(users.manager, "information-objects", MINUTES, o);
    expect(done.status, done.message).toBe("COMPLETED");
    const z = await unzip(await download(users.manager, done.id));
    return { done, z, manifests: manifestsBySource(z) };
  }

  const paxOf = (m: Manifest & { path: string }) => m.path.slice(0, -".opex".length);

  it("LatestActive: the newest active generation, in its content object's folder", async () => {
    const { done, z, manifests } = await exportAsset({ generations: "LatestActive", hierarchy: "false" });
    expect(done.total).toBe(1);
    const m = manifests.get(MINUTES) as Manifest & { path: string };
    expect(m.path).toBe(`${asset.title}.pax.opex`);
    expectDescribes(m, asset);
    expectPax(z, m, asset);
    const files = [...z.files.keys()].filter((p) => !p.endsWith(".opex"));
    expect(files.some((p) => p.endsWith("/minutes-1851-rescan.pdf"))).toBe(true);
    expect(z.files.get(files.find((p) => p.endsWith("rescan.pdf")) as string)).toEqual(NEW_SCAN);
    expect(files.every((p) => !p.includes("Generation_"))).toBe(true);
    expect(m.folders).toContain("Representation_Preservation");
  });

  it("AllActive: every active generation, and only those", async () => {
    const only = await exportAsset({ generations: "AllActive" });
    expectPax(only.z, only.manifests.get(MINUTES) as Manifest & { path: string }, asset);
    // With the first generation active again, both are exported, each in its own folder.
    const setActive = repo.svc.db.prepare("UPDATE generations SET active = ? WHERE co_ref = ? AND idx = 1");
    setActive.run(1, co);
    try {
      const both = await exportAsset({ generations: "AllActive" });
      const m = both.manifests.get(MINUTES) as Manifest & { path: string };
      expect(m.files.map((f) => f.path.split("/")[2]).sort()).toEqual(["Generation_1", "Generation_2"]);
      const latest = await exportAsset({ generations: "LatestActive" });
      const l = latest.manifests.get(MINUTES) as Manifest & { path: string };
      expect(latest.z.files.get(`${paxOf(l)}/${l.files[0]?.path}`)).toEqual(NEW_SCAN);
    } finally {
      setActive.run(0, co);
    }
  });

  it("All: every generation, each in Generation_<n>/, with its own fixities", async () => {
    const { z, manifests } = await exportAsset({ generations: "All", hierarchy: "false" });
    const m = manifests.get(MINUTES) as Manifest & { path: string };
    const pax = paxOf(m);
    const gen1 = m.files.filter((f) => f.path.includes("/Generation_1/"));
    const gen2 = m.files.filter((f) => f.path.includes("/Generation_2/"));
    expect(gen1).toHaveLength(1);
    expect(gen2).toHaveLength(1);
    expect(z.files.get(`${pax}/${gen2[0]?.path}`)).toEqual(NEW_SCAN);
    const original = z.files.get(`${pax}/${gen1[0]?.path}`) as Buffer;
    expect(original.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(original.equals(NEW_SCAN)).toBe(false);
    for (const f of [...gen1, ...gen2]) {
      const bytes = z.files.get(`${pax}/${f.path}`) as Buffer;
      expect(String(bytes.length)).toBe(f.size);
      const fx = m.fixities.filter((x) => x.path === f.path);
      expect(fx.map((x) => x.type).sort()).toEqual(["MD5", "SHA-1", "SHA-256", "SHA-512"]);
      expect(fx.find((x) => x.type === "SHA-512")?.value).toBe(sha("sha512", bytes));
    }
    expect(m.folders.filter((f) => /\/Generation_\d+$/.test(f))).toHaveLength(2);
  });

  it("NoContent: manifests only, no files and no fixities", async () => {
    const { z, manifests } = await exportAsset({ content: "NoContent" });
    expect([...z.files.keys()].every((p) => p.endsWith(".opex"))).toBe(true);
    const m = manifests.get(MINUTES) as Manifest & { path: string };
    expect(m.files).toEqual([]);
    expect(m.fixities).toEqual([]);
    expect(z.dirs).toEqual(new Set([paxOf(m)]));
    expectDescribes(m, asset);
  });

  it("NoMetadata: no metadata documents and no history; title, description, tag and identifiers stay", async () => {
    const { z, manifests } = await exportAsset({ metadata: "NoMetadata" });
    const m = manifests.get(MINUTES) as Manifest & { path: string };
    expect(asset.documents.length).toBeGreaterThan(0);
    expectDescribes(m, asset, false);
    expect(m.events).toEqual([]);
    expectPax(z, m, asset);
  });

  it("MetadataWithEvents: the events of the asset and of its content objects in the manifest's History", async () => {
    const { manifests } = await exportAsset({ metadata: "MetadataWithEvents" });
    const m = manifests.get(MINUTES) as Manifest & { path: string };
    expectDescribes(m, asset);
    const count = (ref: string) =>
      (
        repo.svc.db.prepare("SELECT count(*) AS n FROM event_actions WHERE entity_ref = ?").get(ref) as {
          n: number;
        }
      ).n;
    const cos = (
      repo.svc.db.prepare("SELECT ref FROM entities WHERE parent_ref = ? AND type = 'CO'").all(MINUTES) as {
        ref: string;
      }[]
    ).map((r) => r.ref);
    expect(m.events).toHaveLength(count(MINUTES) + cos.reduce((n, r) => n + count(r), 0));
    // The replacement made just now is among them, by the manager.
    expect(m.events.some((e) => e.user === "manager")).toBe(true);
    for (const e of m.events) expect(Number.isNaN(Date.parse(e.date))).toBe(false);
    const dates = m.events.map((e) => e.date);
    expect([...dates].sort()).toEqual(dates);
  });

  it("IncludeParentHierarchy: the folders above the asset enclose it, each listing only the way down", async () => {
    const { z, manifests, done } = await exportAsset({ hierarchy: "true" });
    const chain: string[] = [];
    for (let ref = DEMO.entities.find((e) => e.ref === MINUTES)?.parentRef; ref; ) {
      chain.unshift(ref);
      ref = DEMO.entities.find((e) => e.ref === ref)?.parentRef;
    }
    expect(chain[0]).toBe(COUNCIL);
    expect(done.total).toBe(chain.length + 1);
    let dir = "";
    for (const ref of chain) {
      const m = manifests.get(ref) as Manifest & { path: string };
      const title = DEMO.entities.find((e) => e.ref === ref)?.title as string;
      dir = dir ? `${dir}/${title}` : title;
      expect(m.path).toBe(`${dir}/${title}.opex`);
      expect(m.title).toBe(title);
      expect(m.folders).toHaveLength(1);
    }
    const m = manifests.get(MINUTES) as Manifest & { path: string };
    expect(m.path).toBe(`${dir}/${asset.title}.pax.opex`);
    expect(manifests.get(chain.at(-1) as string)?.folders).toEqual([`${asset.title}.pax`]);
    expectPax(z, m, asset);
  });
});

describe("the layout of an asset exported with its parent folders", () => {
  it("has the 6 entries pyPreservica's test_export_opex counts: each folder's directory and manifest, the PAX and its manifest", async () => {
    // pyPreservica's fixture: a one-file asset two folders down, exported with its defaults (Content,
    // Metadata, All generations, the parent hierarchy).
    const { db, content } = repo.svc;
    const top = insertEntity(db, { type: "SO", title: "Collections", securityTag: "open" }).ref;
    const folder = insertEntity(db, {
      type: "SO",
      title: "Amelia Earhart",
      securityTag: "open",
      parentRef: top,
    }).ref;
    const io = insertEntity(db, {
      type: "IO",
      title: "LC-USZ62-20901",
      securityTag: "open",
      parentRef: folder,
    }).ref;
    const co = insertEntity(db, {
      type: "CO",
      title: "LC-USZ62-20901",
      securityTag: "open",
      parentRef: io,
    }).ref;
    addRepresentation(db, io, "Preservation", "Preservation-1", [co]);
    const g = addGeneration(db, co, { label: "LC-USZ62-20901" });
    addBitstream(db, g, {
      filename: "LC-USZ62-20901.tiff",
      mimeType: "image/tiff",
      blob: content.put(Buffer.from("II*\0 a scan")),
    });
    const done = await runExport(users.manager, "information-objects", io, {
      generations: "All",
      hierarchy: "true",
    });
    expect(done.status, done.message).toBe("COMPLETED");
    const z = await unzip(await download(users.manager, done.id));
    expect(z.order).toEqual([
      "Collections/",
      "Collections/Collections.opex",
      "Collections/Amelia Earhart/",
      "Collections/Amelia Earhart/Amelia Earhart.opex",
      "Collections/Amelia Earhart/LC-USZ62-20901.pax.opex",
      "Collections/Amelia Earhart/LC-USZ62-20901.pax/Representation_Preservation/LC-USZ62-20901/LC-USZ62-20901.tiff",
    ]);
  });
});
