import { createHash, randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { request } from "node:http";
import { join, relative } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { identifyFormat } from "../../../repository/formats.js";
import { pdfFile, pngFile, wavFile } from "../../../repository/seed/files.js";
import type { RunningRepository } from "../../../repository/server.js";
import { setActionStatus } from "../../../repository/store/actions/write.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../../helpers/repository.js";
import { arr, getXml, jsonError, type Node, parseXml, text } from "../entity-xml.js";
import { storeHash } from "./store-hash.js";

/**
 * Content writes over real HTTP: replacing a content object's content (a new generation, fixity
 * checked against the client's header) and adding an access representation; refusals that leave the
 * store (rows and files) unchanged; and a large upload that is streamed, not held in memory.
 */

const E = "/api/entity";
type Get = ReturnType<typeof authed>;

let repo: RunningRepository;
let curator: Get;
let reader: Get;
let manager: Get;
const f = {} as { folder: string; asset: string; co: string; asset2: string; co2: string; closedCo: string };
const ORIGINAL = Buffer.from("Minute book, first scan.\n", "utf8");

const hex = (alg: string, bytes: Uint8Array) => createHash(alg).update(bytes).digest("hex");
const fixitiesOf = (bytes: Uint8Array) => ({
  MD5: hex("md5", bytes),
  SHA1: hex("sha1", bytes),
  SHA256: hex("sha256", bytes),
  SHA512: hex("sha512", bytes),
});

/** Every file under the content store's directory (blobs and any temporary upload), relative. */
function contentFiles(r: RunningRepository): string[] {
  const root = join(r.svc.dataDir, "content");
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else out.push(relative(root, join(dir, e.name)));
    }
  };
  walk(root);
  return out.sort();
}

function post(get: Get, path: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  return get(path, {
    method: "POST",
    body: typeof body === "string" ? body : Buffer.from(body),
    headers: { "Content-Type": "application/octet-stream", ...headers },
  });
}

async function progressOf(get: Get, id: string): Promise<Node> {
  await repo.svc.actions.idle();
  const res = await get(`${E}/progress/${id}`);
  expect(res.status).toBe(200);
  return parseXml(await res.text()).root;
}

/**
 * An instant after every change so far, with updated-since at it checked to list none of the test's
 * entities: what it lists after a write, the write put there.
 */
async function updatedSinceMark(): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 5));
  const since = new Date(repo.svc.now()).toISOString();
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(await updatedRefs(since)).toEqual([]);
  return since;
}

async function updatedRefs(since: string): Promise<string[]> {
  const reply = await getXml(manager, `${E}/entities/updated-since?date=${encodeURIComponent(since)}`);
  return arr(reply.root.Entities?.Entity).map((e: Node) => e["@ref"]);
}

async function generations(get: Get, co: string): Promise<{ idx: number; active: string }[]> {
  const reply = await getXml(get, `${E}/content-objects/${co}/generations`);
  return arr(reply.root.Generations.Generation).map((g: Node) => ({
    idx: Number(text(g).split("/").pop()),
    active: g["@active"],
  }));
}

/** Asserts a refusal: the status, a message saying what to do, and no change to rows or files. */
async function expectRefused(
  r: RunningRepository,
  send: () => Promise<Response>,
  status: number,
  says: RegExp,
): Promise<void> {
  const before = storeHash(r.svc.db);
  const files = contentFiles(r);
  const res = await send();
  expect(res.status).toBe(status);
  const body = await jsonError(res);
  expect(body.success).toBe(false);
  expect(body.message).toMatch(says);
  await r.svc.actions.idle();
  expect(storeHash(r.svc.db)).toBe(before);
  expect(contentFiles(r)).toEqual(files);
}

beforeAll(async () => {
  repo = await startTestRepository();
  const { db, content } = repo.svc;
  f.folder = insertEntity(db, { type: "SO", title: "Minutes", securityTag: "open" }).ref;
  f.asset = insertEntity(db, {
    type: "IO",
    title: "Minute book",
    securityTag: "open",
    parentRef: f.folder,
  }).ref;
  f.co = insertEntity(db, { type: "CO", title: "minutes.txt", securityTag: "open", parentRef: f.asset }).ref;
  addRepresentation(db, f.asset, "Preservation", "Preservation", [f.co]);
  const g = addGeneration(db, f.co, {
    label: "minutes.txt",
    effectiveDate: "2024-01-01T00:00:00.000Z",
    formatPuid: "x-fmt/111",
    formatName: "Plain Text File",
  });
  addBitstream(db, g, { filename: "minutes.txt", mimeType: "text/plain", blob: content.put(ORIGINAL) });
  f.asset2 = insertEntity(db, {
    type: "IO",
    title: "Harbour plan",
    securityTag: "open",
    parentRef: f.folder,
  }).ref;
  f.co2 = insertEntity(db, { type: "CO", title: "plan.wav", securityTag: "open", parentRef: f.asset2 }).ref;
  addRepresentation(db, f.asset2, "Preservation", "Preservation", [f.co2]);
  const g2 = addGeneration(db, f.co2, { label: "plan.wav" });
  addBitstream(db, g2, { filename: "plan.wav", mimeType: "audio/x-wav", blob: content.put(wavFile(3)) });
  f.closedCo = insertEntity(db, {
    type: "CO",
    title: "secret.txt",
    securityTag: "closed",
    parentRef: f.asset2,
  }).ref;
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
});

afterAll(async () => {
  await repo?.close();
});

describe("replacing a content object's content", () => {
  const replace = (
    get: Get,
    co: string,
    body: Uint8Array | string,
    headers: Record<string, string>,
    q = "?replaceType=previous",
  ) => post(get, `${E}/content-objects/${co}/generations${q}`, body, headers);

  const cases = [
    { header: "Fixity-MD5", alg: "MD5" },
    { header: "Fixity-SHA-1", alg: "SHA1" },
    { header: "Fixity-SHA-256", alg: "SHA256" },
    { header: "Fixity-SHA-512", alg: "SHA512" },
    { header: "Fixity-SHA1", alg: "SHA1" },
    { header: "Fixity-SHA256", alg: "SHA256" },
    { header: "Fixity-SHA512", alg: "SHA512" },
  ] as const;

  for (const { header, alg } of cases) {
    it(`adds an active generation when the bytes match ${header}, keeping the old one inactive`, async () => {
      const before = await generations(curator, f.co);
      const bytes = Buffer.from(`Minute book, rescanned (${header}) ${randomBytes(8).toString("hex")}\n`);
      const fix = fixitiesOf(bytes);
      // Upper-case hex is the same checksum.
      const res = await replace(curator, f.co, bytes, {
        Filename: "minutes-v2.txt",
        [header]: fix[alg].toUpperCase(),
      });
      const id = await res.text();
      expect(res.status, id).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(text((await progressOf(curator, id)).Status)).toBe("COMPLETED");

      const after = await generations(curator, f.co);
      const n = before.length + 1;
      expect(after).toHaveLength(n);
      expect(after.filter((g) => g.active === "true").map((g) => g.idx)).toEqual([n]);

      const gen = (await getXml(curator, `${E}/content-objects/${f.co}/generations/${n}`)).root.Generation;
      expect(gen["@original"]).toBe("false");
      expect(gen["@active"]).toBe("true");
      expect(gen.Label).toBeUndefined();
      expect(text(gen.Formats.Format.PUID)).toBe("x-fmt/111");
      expect(text(gen.EffectiveDate)).toMatch(/^\d{4}-\d\d-\d\dT/);
      const bs = (await getXml(curator, `${E}/content-objects/${f.co}/generations/${n}/bitstreams/1`)).root
        .Bitstream;
      expect(text(bs.Filename)).toBe("minutes-v2.txt");
      expect(Number(text(bs.FileSize))).toBe(bytes.length);
      const stored = Object.fromEntries(
        arr(bs.Fixities.Fixity).map((x: Node) => [text(x.FixityAlgorithmRef), text(x.FixityValue)]),
      );
      expect(stored).toEqual(fix);

      // The new bytes are what every download serves now; the old generation still serves its own.
      const own = await curator(`${E}/content-objects/${f.co}/generations/${n}/bitstreams/1/content`);
      expect(Buffer.from(await own.arrayBuffer()).equals(bytes)).toBe(true);
      for (const id of [`sdb:IO|${f.asset}`, `sdb:CO|${f.co}`]) {
        const dl = await curator(`/api/content/download?id=${encodeURIComponent(id)}`);
        expect(dl.status).toBe(200);
        expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
      }
      const first = (await getXml(curator, `${E}/content-objects/${f.co}/generations/1`)).root.Generation;
      expect(first["@active"]).toBe("false");
      expect(first["@original"]).toBe("true");
      const old = await curator(`${E}/content-objects/${f.co}/generations/1/bitstreams/1/content`);
      expect(Buffer.from(await old.arrayBuffer()).equals(ORIGINAL)).toBe(true);
    });
  }

  it("records a ReplaceContent event on the content object and its asset, and both show as updated", async () => {
    const since = await updatedSinceMark();
    const bytes = Buffer.from("Minute book, third scan.\n");
    const res = await replace(curator, f.co, bytes, {
      Filename: "minutes-v3.txt",
      "Fixity-SHA-256": hex("sha256", bytes),
    });
    expect(res.status).toBe(200);
    await progressOf(curator, await res.text());
    for (const ref of [f.co, f.asset]) {
      const path = ref === f.co ? "content-objects" : "information-objects";
      const actions = arr(
        (await getXml(curator, `${E}/${path}/${ref}/event-actions?max=1000`)).root.EventActions.EventAction,
      );
      const last = actions.at(-1);
      expect(last["@commandType"]).toBe("ReplaceContent");
      expect(last.Event["@type"]).toBe("ReplaceContent");
      expect(text(last.Event.User)).toBe("curator");
      expect(text(last.Entity)).toBe(ref);
    }
    expect((await updatedRefs(since)).sort()).toEqual([f.co, f.asset].sort());
  });

  it("identifies the new file's format from its bytes and records its MIME type", async () => {
    const png = pngFile(4, 3, (x, y) => [x * 40, y * 60, 90]);
    const res = await replace(
      curator,
      f.co2,
      png,
      { Filename: "plan.png", "Fixity-MD5": hex("md5", png) },
      "",
    );
    expect(res.status).toBe(200);
    expect(text((await progressOf(curator, await res.text())).Status)).toBe("COMPLETED");
    const gen = (await getXml(curator, `${E}/content-objects/${f.co2}/generations/2`)).root.Generation;
    expect(text(gen.Formats.Format.PUID)).toBe("fmt/11");
    expect(text(gen.FormatGroup)).toBe("png");
    const dl = await curator(`/api/content/download?id=${encodeURIComponent(`sdb:CO|${f.co2}`)}`);
    expect(dl.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await dl.arrayBuffer()).equals(png)).toBe(true);
  });

  it("names the format group as the real service does: the format's own name (tiff, jpeg, pdf)", async () => {
    // pyPreservica's test_bitstream expects generation.format_group == "tiff" for a TIFF and "jpeg" for a
    // JPEG; real GenerationResponses say <xip:FormatGroup>tiff</xip:FormatGroup> and …pdf…
    const files: [string, Buffer, string][] = [
      ["scan.tif", Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]), "tiff"],
      ["scan.jpg", Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1]), "jpeg"],
      ["scan.pdf", Buffer.from("%PDF-1.4\n%\xe2\xe3\n", "latin1"), "pdf"],
    ];
    for (const [filename, bytes, group] of files) {
      const res = await replace(curator, f.co2, bytes, {
        Filename: filename,
        "Fixity-MD5": hex("md5", bytes),
      });
      expect(res.status).toBe(200);
      await progressOf(curator, await res.text());
      const total = Number(
        (await getXml(curator, `${E}/content-objects/${f.co2}/generations`)).root.Paging.TotalResults,
      );
      const gen = (await getXml(curator, `${E}/content-objects/${f.co2}/generations/${total}`)).root
        .Generation;
      expect(text(gen.FormatGroup), filename).toBe(group);
    }
  });

  it("does nothing twice when its action is run again after an interruption", async () => {
    const bytes = Buffer.from("Minute book, fourth scan.\n");
    const res = await replace(curator, f.co, bytes, {
      Filename: "minutes-v4.txt",
      "Fixity-SHA-1": hex("sha1", bytes),
    });
    const id = await res.text();
    expect(text((await progressOf(curator, id)).Status)).toBe("COMPLETED");
    const counts = () =>
      repo.svc.db
        .prepare(
          `SELECT (SELECT count(*) FROM generations) AS generations, (SELECT count(*) FROM bitstreams) AS bitstreams,
             (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM action_items) AS items`,
        )
        .get();
    const before = counts();
    // As if the service had stopped after the change but before marking the action finished.
    setActionStatus(repo.svc.db, id, "ACTIVE", new Date().toISOString());
    repo.svc.actions.submit(id);
    expect(text((await progressOf(curator, id)).Status)).toBe("COMPLETED");
    expect(counts()).toEqual(before);
    const gens = await generations(curator, f.co);
    expect(gens.filter((g) => g.active === "true")).toEqual([{ idx: gens.length, active: "true" }]);
  });

  it("takes files over the 1 MiB limit of other requests, on the versioned path too", async () => {
    const bytes = randomBytes(2 * 1024 * 1024 + 3);
    const res = await post(
      curator,
      `${E}/v7.7/content-objects/${f.co2}/generations?replaceType=previous`,
      bytes,
      {
        Filename: "plan.bin",
        "Fixity-SHA-512": hex("sha512", bytes),
      },
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(text((await progressOf(curator, await res.text())).Status)).toBe("COMPLETED");
    const dl = await curator(`/api/content/download?id=${encodeURIComponent(`sdb:CO|${f.co2}`)}`);
    expect(dl.headers.get("content-type")).toBe("application/octet-stream");
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);

    const access = randomBytes(1024 * 1024 + 1);
    const rep = await post(
      curator,
      `${E}/v7.7/information-objects/${f.asset}/representations?type=Access&filename=big.bin`,
      access,
    );
    expect(rep.status).toBe(202);
    expect(text((await progressOf(curator, await rep.text())).Status)).toBe("COMPLETED");
  });

  it("refuses a file whose bytes do not match the header, storing nothing", async () => {
    const bytes = Buffer.from(`Tampered ${randomBytes(8).toString("hex")}\n`);
    const claimed = hex("sha256", Buffer.from("what the client meant to send"));
    await expectRefused(
      repo,
      () => replace(curator, f.co, bytes, { Filename: "x.txt", "Fixity-SHA-256": claimed }),
      400,
      new RegExp(`${claimed}.*${hex("sha256", bytes)}`),
    );
    expect(repo.svc.content.has(hex("sha256", bytes))).toBe(false);
  });

  it("leaves an already stored file in place when a mismatching upload has the same bytes", async () => {
    await expectRefused(
      repo,
      () => replace(curator, f.co, ORIGINAL, { Filename: "x.txt", "Fixity-MD5": "0".repeat(32) }),
      400,
      /does not match its Fixity-MD5 header/,
    );
    expect(repo.svc.content.has(hex("sha256", ORIGINAL))).toBe(true);
    const dl = await curator(`${E}/content-objects/${f.co}/generations/1/bitstreams/1/content`);
    expect(Buffer.from(await dl.arrayBuffer()).equals(ORIGINAL)).toBe(true);
  });

  it("refuses a reader (no Ingest permission) with 403", async () => {
    const bytes = Buffer.from("reader's version\n");
    await expectRefused(
      repo,
      () => replace(reader, f.co, bytes, { Filename: "r.txt", "Fixity-MD5": hex("md5", bytes) }),
      403,
      /lacks the Ingest permission/,
    );
  });

  it("refuses bad requests with what to send instead", async () => {
    const bytes = Buffer.from("some new content\n");
    const ok = { Filename: "n.txt", "Fixity-MD5": hex("md5", bytes) };
    const cases: [string, () => Promise<Response>, number, RegExp][] = [
      [
        "no Filename",
        () => replace(curator, f.co, bytes, { "Fixity-MD5": ok["Fixity-MD5"] }),
        400,
        /Filename header is required/,
      ],
      [
        "a path as Filename",
        () => replace(curator, f.co, bytes, { ...ok, Filename: "../etc/passwd" }),
        400,
        /bare file name/,
      ],
      [
        "no fixity header",
        () => replace(curator, f.co, bytes, { Filename: "n.txt" }),
        400,
        /Fixity-MD5, Fixity-SHA-1/,
      ],
      [
        "a malformed fixity",
        () => replace(curator, f.co, bytes, { Filename: "n.txt", "Fixity-SHA-1": "abc" }),
        400,
        /40 hexadecimal digits/,
      ],
      [
        "an unknown replaceType",
        () => replace(curator, f.co, bytes, ok, "?replaceType=all"),
        400,
        /replaceType=previous/,
      ],
      [
        "an empty body",
        () => replace(curator, f.co, "", { ...ok, "Fixity-MD5": hex("md5", Buffer.alloc(0)) }),
        400,
        /body is empty/,
      ],
      [
        "a multipart form",
        () => replace(curator, f.co, bytes, { ...ok, "Content-Type": "multipart/form-data; boundary=x" }),
        415,
        /octet-stream/,
      ],
      [
        "an unknown content object",
        () => replace(curator, "0e0a3c1e-7b6f-4a4a-9a43-6f3f7b1c2d3e", bytes, ok),
        404,
        /not found/,
      ],
      ["a malformed ref", () => replace(curator, "not-a-ref", bytes, ok), 404, /not a UUID/],
      ["an asset's ref", () => replace(curator, f.asset, bytes, ok), 404, /information-objects/],
      ["a folder's ref", () => replace(curator, f.folder, bytes, ok), 404, /structural-objects/],
      [
        "a content object the caller cannot read",
        () => replace(reader, f.closedCo, bytes, ok),
        403,
        /lacks the Read Metadata permission/,
      ],
    ];
    for (const [what, send, status, says] of cases) {
      await expectRefused(repo, send, status, says).catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`);
      });
    }
  });
});

describe("adding an access representation", () => {
  const addRep = (
    get: Get,
    io: string,
    body: Uint8Array | string,
    query: string,
    headers: Record<string, string> = {},
  ) => post(get, `${E}/information-objects/${io}/representations?${query}`, body, headers);

  it("creates a content object in Access representation N+1 that downloads byte-exact", async () => {
    const since = await updatedSinceMark();
    const pdf = pdfFile({
      title: "Harbour plan",
      author: "Surveyor",
      date: "1920-05-01",
      lines: ["Access copy"],
    });
    const res = await addRep(curator, f.asset2, pdf, "type=Access&name=Web%20copy&filename=plan.pdf");
    const id = await res.text();
    expect(res.status, id).toBe(202);
    const progress = await progressOf(curator, id);
    expect(text(progress.Status)).toBe("COMPLETED");

    const reps = arr(
      (await getXml(curator, `${E}/information-objects/${f.asset2}/representations`)).root.Representations
        .Representation,
    );
    const access = reps.find((r: Node) => r["@type"] === "Access");
    expect(access["@name"]).toBe("Web copy");
    expect(text(access)).toMatch(/\/representations\/Access\/1$/);
    const rep = (await getXml(curator, `${E}/information-objects/${f.asset2}/representations/Access/1`)).root;
    const co = text(rep.Representation.ContentObjects.ContentObject);
    const entity = (await getXml(curator, `${E}/content-objects/${co}`)).root.ContentObject;
    expect(text(entity.Title)).toBe("plan.pdf");
    expect(text(entity.SecurityTag)).toBe("open");
    expect(text(entity.Parent)).toBe(f.asset2);
    const gen = (await getXml(curator, `${E}/content-objects/${co}/generations/1`)).root.Generation;
    expect(gen["@original"]).toBe("true");
    expect(gen["@active"]).toBe("true");
    expect(text(gen.Formats.Format.PUID)).toBe("fmt/18");
    const bs = (await getXml(curator, `${E}/content-objects/${co}/generations/1/bitstreams/1`)).root
      .Bitstream;
    const stored = Object.fromEntries(
      arr(bs.Fixities.Fixity).map((x: Node) => [text(x.FixityAlgorithmRef), text(x.FixityValue)]),
    );
    expect(stored).toEqual(fixitiesOf(pdf));
    // The asset's download is now its access copy.
    const dl = await curator(`/api/content/download?id=${encodeURIComponent(`sdb:IO|${f.asset2}`)}`);
    expect(dl.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.from(await dl.arrayBuffer()).equals(pdf)).toBe(true);

    const actions = arr(
      (await getXml(curator, `${E}/information-objects/${f.asset2}/event-actions?max=1000`)).root.EventActions
        .EventAction,
    );
    expect(actions.at(-1)["@commandType"]).toBe("AddRepresentation");
    expect(actions.at(-1).Event["@type"]).toBe("Modified");
    expect((await updatedRefs(since)).sort()).toEqual([f.asset2, co].sort());
    // The action is listed under its path with what it did.
    const listed = await getXml(manager, `${E}/actions/representations/${id}`);
    expect(listed.text).toContain(co);
  });

  it("numbers a second access representation 2 and defaults its name to Access", async () => {
    const bytes = Buffer.from('{"plan": "harbour"}\n');
    const res = await addRep(curator, f.asset2, bytes, "type=access&filename=plan.json", {
      "Fixity-SHA-256": hex("sha256", bytes),
    });
    expect(res.status).toBe(202);
    expect(text((await progressOf(curator, await res.text())).Status)).toBe("COMPLETED");
    const rep = (await getXml(curator, `${E}/information-objects/${f.asset2}/representations/Access/2`)).root
      .Representation;
    expect(text(rep.Name)).toBe("Access");
    const co = text(rep.ContentObjects.ContentObject);
    const gen = (await getXml(curator, `${E}/content-objects/${co}/generations/1`)).root.Generation;
    expect(text(gen.Formats.Format.PUID)).toBe("fmt/817");
  });

  it("refuses bad requests and the wrong role, storing nothing", async () => {
    const bytes = Buffer.from("an access copy\n");
    const cases: [string, () => Promise<Response>, number, RegExp][] = [
      [
        "a reader",
        () => addRep(reader, f.asset2, bytes, "type=Access&filename=a.txt"),
        403,
        /lacks the Ingest permission/,
      ],
      [
        "a Preservation representation",
        () => addRep(curator, f.asset2, bytes, "type=Preservation&filename=a.txt"),
        400,
        /Only Access representations/,
      ],
      ["no type", () => addRep(curator, f.asset2, bytes, "filename=a.txt"), 400, /type=Access/],
      [
        "no filename",
        () => addRep(curator, f.asset2, bytes, "type=Access&name=x"),
        400,
        /filename is required/,
      ],
      [
        "an empty body",
        () => addRep(curator, f.asset2, "", "type=Access&filename=a.txt"),
        400,
        /body is empty/,
      ],
      [
        "a mismatching fixity",
        () =>
          addRep(curator, f.asset2, bytes, "type=Access&filename=a.txt", { "Fixity-MD5": "f".repeat(32) }),
        400,
        /does not match/,
      ],
      [
        "a content object's ref",
        () => addRep(curator, f.co2, bytes, "type=Access&filename=a.txt"),
        404,
        /content-objects/,
      ],
      [
        "a folder's ref",
        () => addRep(curator, f.folder, bytes, "type=Access&filename=a.txt"),
        404,
        /structural-objects/,
      ],
      [
        "a malformed ref",
        () => addRep(curator, "1234", bytes, "type=Access&filename=a.txt"),
        404,
        /not a UUID/,
      ],
    ];
    for (const [what, send, status, says] of cases) {
      await expectRefused(repo, send, status, says).catch((err: Error) => {
        throw new Error(`${what}: ${err.message}`);
      });
    }
  });
});

describe("upload size", () => {
  let small: RunningRepository;
  let smallCurator: Get;
  let smallCo: string;
  beforeAll(async () => {
    small = await startTestRepository({ maxUploadBytes: 4096 });
    const db = small.svc.db;
    const io = insertEntity(db, { type: "IO", title: "Asset", securityTag: "open" }).ref;
    smallCo = insertEntity(db, { type: "CO", title: "a.txt", securityTag: "open", parentRef: io }).ref;
    smallCurator = authed(small.url, (await login(small.url, "curator")).token);
  });
  afterAll(async () => {
    await small?.close();
  });

  it("accepts a file at the cap", async () => {
    const bytes = randomBytes(4096);
    const res = await post(smallCurator, `${E}/content-objects/${smallCo}/generations`, bytes, {
      Filename: "cap.bin",
      "Fixity-MD5": hex("md5", bytes),
    });
    expect(res.status).toBe(200);
    await small.svc.actions.idle();
    expect(small.svc.content.has(hex("sha256", bytes))).toBe(true);
  });

  it("refuses a declared length over the cap with 413 before reading it", async () => {
    const bytes = randomBytes(4097);
    await expectRefused(
      small,
      () =>
        post(smallCurator, `${E}/content-objects/${smallCo}/generations`, bytes, {
          Filename: "big.bin",
          "Fixity-MD5": hex("md5", bytes),
        }),
      413,
      /larger than this service accepts \(4096 bytes\)/,
    );
  });

  it("refuses a streamed body (no length declared) as soon as it passes the cap, leaving no temporary file", async () => {
    const parts = [randomBytes(3000), randomBytes(3000)];
    const whole = Buffer.concat(parts);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const p of parts) controller.enqueue(p);
        controller.close();
      },
    });
    await expectRefused(
      small,
      () =>
        smallCurator(`${E}/content-objects/${smallCo}/generations`, {
          method: "POST",
          body,
          duplex: "half",
          headers: {
            "Content-Type": "application/octet-stream",
            Filename: "big.bin",
            "Fixity-MD5": hex("md5", whole),
          },
        } as RequestInit),
      413,
      /larger than this service accepts/,
    );
    expect(small.svc.content.has(hex("sha256", whole))).toBe(false);
  });
});

describe("a large upload", () => {
  it("streams 64 MiB to the store without holding it in memory", async () => {
    const SIZE = 64 * 1024 * 1024;
    const CHUNK = 256 * 1024;
    const block = randomBytes(CHUNK);
    // Each chunk differs (its number in the first bytes), so the file is not one block repeated.
    const chunkAt = (i: number) => {
      block.writeUInt32BE(i, 0);
      return block;
    };
    const sha = createHash("sha256");
    for (let i = 0; i < SIZE / CHUNK; i++) sha.update(chunkAt(i));
    const expected = sha.digest("hex");
    const token = (await login(repo.url, "curator")).token;
    const url = new URL(`${repo.url}${E}/content-objects/${f.co}/generations?replaceType=previous`);

    // What is measured is memory still in use: each sample first collects garbage (every chunk that
    // passed through is garbage at once; uncollected, it would count ~30 MiB that nothing holds). A
    // sample every 100 ms, and one when 3/4 of the file has been sent, when a service that kept the
    // body would hold 48 MiB of it.
    setFlagsFromString("--expose-gc");
    const collectGarbage = runInNewContext("gc") as () => void;
    collectGarbage();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakBuffers = base.arrayBuffers;
    let samples = 0;
    const measure = () => {
      // Twice: V8 frees dead buffers' memory in the background after a collection, and the next
      // collection first waits for that, so the second figure counts only buffers still held.
      collectGarbage();
      collectGarbage();
      const m = process.memoryUsage();
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakBuffers = Math.max(peakBuffers, m.arrayBuffers);
      samples++;
    };
    const sample = setInterval(measure, 100);
    // Cleared however the test ends: a timeout leaves the request pending, and the sampling (two forced
    // collections every 100 ms) would slow every test after it.
    onTestFinished(() => clearInterval(sample));
    const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            "Preservica-Access-Token": token,
            "Content-Type": "application/octet-stream",
            "Content-Length": String(SIZE),
            Filename: "big.bin",
            "Fixity-SHA-256": expected,
          },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => {
            body += d;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      (async () => {
        // One chunk in flight at a time: the test's own buffers stay out of the measurement.
        for (let i = 0; i < SIZE / CHUNK; i++) {
          if (i === (SIZE / CHUNK) * 0.75) measure();
          await new Promise<void>((ok, fail) => req.write(chunkAt(i), (err) => (err ? fail(err) : ok())));
        }
        req.end();
      })().catch(reject);
    });
    clearInterval(sample);
    expect(reply.status, reply.body).toBe(200);
    const growth = { heap: peakHeap - base.heapUsed, buffers: peakBuffers - base.arrayBuffers };
    expect(samples).toBeGreaterThan(1);
    console.log(
      `64 MiB upload (${samples} samples): heap grew ${(growth.heap / 2 ** 20).toFixed(1)} MiB, buffers ${(growth.buffers / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(growth.heap + growth.buffers).toBeLessThan(16 * 1024 * 1024);

    expect(text((await progressOf(curator, reply.body)).Status)).toBe("COMPLETED");
    expect(repo.svc.content.size(expected)).toBe(SIZE);
    const dl = await curator(`/api/content/download?id=${encodeURIComponent(`sdb:CO|${f.co}`)}`);
    const got = createHash("sha256");
    for await (const chunk of dl.body as unknown as AsyncIterable<Uint8Array>) got.update(chunk);
    expect(got.digest("hex")).toBe(expected);
    expect(contentFiles(repo).filter((p) => p.startsWith(".incoming"))).toEqual([]);
  }, 120_000);
});

describe("an upload cut off by the client", () => {
  it("removes the partial file and changes nothing", async () => {
    const before = storeHash(repo.svc.db);
    const blobs = contentFiles(repo);
    const token = (await login(repo.url, "curator")).token;
    const req = request(new URL(`${repo.url}${E}/content-objects/${f.co}/generations`), {
      method: "POST",
      headers: {
        "Preservica-Access-Token": token,
        "Content-Type": "application/octet-stream",
        "Content-Length": String(1024 * 1024),
        Filename: "cut.bin",
        "Fixity-MD5": "0".repeat(32),
      },
    });
    req.on("error", () => {}); // the reset this test causes
    req.write(randomBytes(256 * 1024));
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return ok();
    };
    const partial = () => contentFiles(repo).some((p) => p.startsWith(".incoming"));
    expect(await until(partial)).toBe(true);
    req.destroy();
    expect(await until(() => !partial())).toBe(true);
    await repo.svc.actions.idle();
    expect(contentFiles(repo)).toEqual(blobs);
    expect(storeHash(repo.svc.db)).toBe(before);
  });
});

describe("format identification", () => {
  const ascii = (s: string) => Buffer.from(s, "latin1");
  const cases: [string, Uint8Array, string, string | null, string][] = [
    [
      "PDF 1.4",
      pdfFile({ title: "t", author: "a", date: "2020-01-01", lines: [] }),
      "a.pdf",
      "fmt/18",
      "application/pdf",
    ],
    ["PDF 1.7", ascii("%PDF-1.7\n%\xe2\xe3\n"), "a.bin", "fmt/276", "application/pdf"],
    ["PNG", pngFile(1, 1, () => [0, 0, 0]), "a", "fmt/11", "image/png"],
    [
      "JPEG (JFIF 1.01)",
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1]),
      "a.jpg",
      "fmt/43",
      "image/jpeg",
    ],
    [
      "JPEG (Exif)",
      Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0, 16, 0x45, 0x78, 0x69, 0x66, 0, 0]),
      "a.jpg",
      "fmt/41",
      "image/jpeg",
    ],
    [
      "TIFF (little-endian)",
      Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]),
      "a.tif",
      "fmt/353",
      "image/tiff",
    ],
    ["TIFF (big-endian)", Buffer.from([0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8]), "a", "fmt/353", "image/tiff"],
    ["GIF 89a", ascii("GIF89a\x01\x00\x01\x00"), "a.gif", "fmt/4", "image/gif"],
    ["GIF 87a", ascii("GIF87a\x01\x00\x01\x00"), "a.gif", "fmt/3", "image/gif"],
    ["WAV (PCMWAVEFORMAT)", wavFile(1), "a.wav", "fmt/141", "audio/x-wav"],
    ["ZIP", Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0]), "a.zip", "x-fmt/263", "application/zip"],
    ["XML with a declaration", ascii('<?xml version="1.0"?><a/>'), "a.txt", "fmt/101", "application/xml"],
    ["XML by extension", ascii("<a/>"), "a.xml", "fmt/101", "application/xml"],
    ["CSV", ascii("a,b\r\n1,2\r\n"), "a.csv", "x-fmt/18", "text/csv"],
    ["JSON by extension", ascii("1"), "a.json", "fmt/817", "application/json"],
    ["JSON by content", ascii('{"a": 1}'), "a", "fmt/817", "application/json"],
    ["plain text (UTF-8)", Buffer.from("Café\n", "utf8"), "readme", "x-fmt/111", "text/plain"],
    [
      "a PDF name on bytes that are not one",
      Buffer.from([0, 1, 2, 3]),
      "a.pdf",
      "fmt/276",
      "application/pdf",
    ],
    ["unknown bytes", Buffer.from([0, 1, 2, 3, 0xfe]), "a.dat", null, "application/octet-stream"],
  ];
  for (const [what, head, filename, puid, mime] of cases) {
    it(what, () => {
      const fmt = identifyFormat(head, filename);
      expect(fmt.puid).toBe(puid);
      expect(fmt.mimeType).toBe(mime);
    });
  }
});
