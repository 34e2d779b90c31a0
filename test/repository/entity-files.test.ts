import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { ALL_PERMISSIONS, addSecurityTag, grant, Permission, Role } from "../../repository/store/auth.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../repository/store/entities/write.js";
import { authed, login, startTestRepository } from "../helpers/repository.js";
import { arr, ENTITY_NS, getXml, jsonError, text } from "./entity-xml.js";

/** The content chain over real HTTP: representations, generations, bitstreams, byte-exact downloads. */

const NO_DOWNLOAD = "entity-test-nodownload";
const E = "/api/entity";

let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let reader: ReturnType<typeof authed>;
const big = randomBytes(3 * 1024 * 1024 + 17);
const small = Buffer.from("Minute book, page one.\n", "utf8");
const f = {} as {
  io: string;
  co: string;
  co2: string;
  closedCo: string;
  noDownloadIo: string;
  noDownloadCo: string;
};

beforeAll(async () => {
  repo = await startTestRepository();
  const { db, content } = repo.svc;
  // A tag everyone may read but only managers may download from.
  addSecurityTag(db, NO_DOWNLOAD);
  grant(db, Role.ACCESS, NO_DOWNLOAD, [Permission.READ_METADATA]);
  grant(db, Role.MANAGER, NO_DOWNLOAD, ALL_PERMISSIONS);
  const folder = insertEntity(db, { type: "SO", title: "Files", securityTag: "open" }).ref;
  f.io = insertEntity(db, { type: "IO", title: "Minute book", securityTag: "open", parentRef: folder }).ref;
  f.co = insertEntity(db, { type: "CO", title: "scan.tif", securityTag: "open", parentRef: f.io }).ref;
  f.co2 = insertEntity(db, { type: "CO", title: "page.txt", securityTag: "open", parentRef: f.io }).ref;
  f.closedCo = insertEntity(db, {
    type: "CO",
    title: "redacted.txt",
    securityTag: "closed",
    parentRef: f.io,
  }).ref;
  addRepresentation(db, f.io, "Preservation", "Preservation-1", [f.co, f.closedCo]);
  addRepresentation(db, f.io, "Access", "Access-1", [f.co2]);
  addRepresentation(db, f.io, "Access", null, [f.co2]);
  const g1 = addGeneration(db, f.co, {
    label: "Master",
    formatGroup: "tiff",
    effectiveDate: "2024-03-01T10:00:00.000Z",
    formatPuid: "fmt/353",
    formatName: "Tagged Image File Format",
    formatVersion: "6.0",
  });
  addBitstream(db, g1, {
    filename: "scan 1871 é.tif",
    originalName: "Scan-1871.TIF",
    mimeType: "image/tiff",
    blob: content.put(big),
  });
  addGeneration(db, f.co, { original: false, active: false });
  const g2 = addGeneration(db, f.co2, {});
  addBitstream(db, g2, { filename: "page.txt", mimeType: "text/plain", blob: content.put(small) });

  f.noDownloadIo = insertEntity(db, { type: "IO", title: "Look only", securityTag: NO_DOWNLOAD }).ref;
  f.noDownloadCo = insertEntity(db, {
    type: "CO",
    title: "look.txt",
    securityTag: NO_DOWNLOAD,
    parentRef: f.noDownloadIo,
  }).ref;
  const g3 = addGeneration(db, f.noDownloadCo, {});
  addBitstream(db, g3, { filename: "look.txt", mimeType: "text/plain", blob: content.put(small) });

  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
});

afterAll(async () => {
  await repo?.close();
});

const bitstreamPath = () => `${E}/content-objects/${f.co}/generations/1/bitstreams/1`;

describe("representations", () => {
  it("lists representations with type, name and …/representations/{Type}/{n} URLs", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.io}/representations`);
    expect(reply.rootName).toBe("RepresentationsResponse");
    const reps = arr(reply.root.Representations.Representation);
    const base = `${repo.url}${E}/information-objects/${f.io}/representations`;
    expect(reps.map((r) => [r["@type"], r["@name"], text(r)])).toEqual([
      ["Access", "Access-1", `${base}/Access/1`],
      // Unnamed, the third representation is named as the real service names it: type and place.
      ["Access", "Access-3", `${base}/Access/2`],
      ["Preservation", "Preservation-1", `${base}/Preservation/1`],
    ]);
    expect(reply.root.Paging.TotalResults).toBe("3");
  });

  it("renders one representation with its readable content objects", async () => {
    const reply = await getXml(reader, `${E}/information-objects/${f.io}/representations/Preservation/1`);
    expect(reply.rootName).toBe("RepresentationResponse");
    const rep = reply.root.Representation;
    expect(rep.InformationObject).toBe(f.io);
    expect(rep.Name).toBe("Preservation-1");
    expect(rep.Type).toBe("Preservation");
    expect(arr(rep.ContentObjects.ContentObject)).toEqual([f.co]);
    const cos = arr(reply.root.ContentObjects.ContentObject);
    expect(cos).toHaveLength(1);
    expect(cos[0]).toMatchObject({ "@title": "scan.tif", "@ref": f.co, "@type": "CO" });
    expect(text(cos[0])).toBe(`${repo.url}${E}/content-objects/${f.co}`);

    const asManager = await getXml(
      manager,
      `${E}/information-objects/${f.io}/representations/Preservation/1`,
    );
    expect(arr(asManager.root.Representation.ContentObjects.ContentObject)).toEqual([f.co, f.closedCo]);

    const alias = await getXml(reader, `${E}/information-objects/${f.io}/representations/Access`);
    expect(alias.root.Representation.Name).toBe("Access-1");
  });

  it("answers a representation by its name as well as by type and number", async () => {
    // Real representations are named Preservation-1, Access-2 and answer at …/representations/Access-2.
    const byName = await getXml(reader, `${E}/information-objects/${f.io}/representations/Access-3`);
    expect(byName.root.Representation.Name).toBe("Access-3");
    expect(byName.root.Representation.Type).toBe("Access");
    const byNumber = await getXml(reader, `${E}/information-objects/${f.io}/representations/Access/2`);
    expect(byName.text).toBe(byNumber.text);
    const lowerCase = await getXml(reader, `${E}/information-objects/${f.io}/representations/preservation-1`);
    expect(lowerCase.root.Representation.Name).toBe("Preservation-1");
    const missing = await reader(`${E}/information-objects/${f.io}/representations/Access-9`);
    expect(missing.status).toBe(404);
    expect((await jsonError(missing)).message).toMatch(/no representation named Access-9/);
  });

  it("answers 404 for a missing representation and 400 for a bad number", async () => {
    expect((await reader(`${E}/information-objects/${f.io}/representations/Access/3`)).status).toBe(404);
    expect((await reader(`${E}/information-objects/${f.io}/representations/Other/1`)).status).toBe(404);
    expect((await reader(`${E}/information-objects/${f.io}/representations/Access/0`)).status).toBe(400);
    expect((await reader(`${E}/information-objects/${f.io}/representations/Access/x`)).status).toBe(400);
    expect((await reader(`${E}/information-objects/${f.co}/representations`)).status).toBe(404);
  });
});

describe("generations", () => {
  it("lists generations with active flags and …/generations/{n} URLs", async () => {
    const reply = await getXml(reader, `${E}/content-objects/${f.co}/generations`);
    expect(reply.rootName).toBe("GenerationsResponse");
    const gens = arr(reply.root.Generations.Generation);
    expect(gens.map((g) => [g["@active"], text(g)])).toEqual([
      ["true", `${repo.url}${E}/content-objects/${f.co}/generations/1`],
      ["false", `${repo.url}${E}/content-objects/${f.co}/generations/2`],
    ]);
    expect(reply.root.Paging.TotalResults).toBe("2");
  });

  it("renders a generation: attributes always, formats with valid, root-level bitstream URLs", async () => {
    const reply = await getXml(reader, `${E}/content-objects/${f.co}/generations/1`);
    expect(reply.rootName).toBe("GenerationResponse");
    const g = reply.root.Generation;
    expect(g["@original"]).toBe("true");
    expect(g["@active"]).toBe("true");
    expect(g.ContentObject).toBe(f.co);
    // The schema allows a Label, but no real GenerationResponse carries one (issue 19).
    expect(g.Label).toBeUndefined();
    expect(g.FormatGroup).toBe("tiff");
    expect(g.EffectiveDate).toBe("2024-03-01T10:00:00.000Z");
    expect(arr(g.Bitstreams.Bitstream)).toEqual(["scan 1871 é.tif"]);
    const format = g.Formats.Format;
    expect(format).toMatchObject({
      "@valid": "true",
      PUID: "fmt/353",
      Priority: "1",
      FormatName: "Tagged Image File Format",
      FormatVersion: "6.0",
    });
    expect(format.IdentificationMethod).toBeDefined();
    const bitstreams = arr(reply.root.Bitstreams.Bitstream);
    expect(bitstreams).toHaveLength(1);
    expect(bitstreams[0]["@filename"]).toBe("scan 1871 é.tif");
    expect(text(bitstreams[0])).toBe(`${repo.url}${bitstreamPath()}`);

    const second = await getXml(reader, `${E}/content-objects/${f.co}/generations/2`);
    expect(second.root.Generation["@original"]).toBe("false");
    expect(second.root.Generation["@active"]).toBe("false");
    expect(arr(second.root.Bitstreams?.Bitstream)).toEqual([]);
  });

  it("answers 404 for a missing generation or bitstream and 400 for bad numbers", async () => {
    expect((await reader(`${E}/content-objects/${f.co}/generations/3`)).status).toBe(404);
    expect((await reader(`${E}/content-objects/${f.co}/generations/1/bitstreams/2`)).status).toBe(404);
    expect((await reader(`${E}/content-objects/${f.co}/generations/-1`)).status).toBe(400);
    expect((await reader(`${E}/content-objects/${f.co}/generations/1/bitstreams/one`)).status).toBe(400);
  });
});

describe("bitstreams", () => {
  it("renders size, fixities (algorithm before value) and the content URL", async () => {
    const reply = await getXml(reader, bitstreamPath());
    expect(reply.rootName).toBe("BitstreamResponse");
    const b = reply.root.Bitstream;
    expect(b.Filename).toBe("scan 1871 é.tif");
    expect(b.FileSize).toBe(String(big.length));
    const fixities = Object.fromEntries(
      arr(b.Fixities.Fixity).map((x) => [x.FixityAlgorithmRef, x.FixityValue]),
    );
    expect(fixities.SHA256).toBe(createHash("sha256").update(big).digest("hex"));
    expect(fixities.MD5).toBe(createHash("md5").update(big).digest("hex"));
    expect(fixities.SHA1).toBe(createHash("sha1").update(big).digest("hex"));
    // Clients read the two children of Fixity by position.
    for (const m of reply.text.matchAll(/<xip:Fixity>(.*?)<\/xip:Fixity>/g)) {
      expect(m[1]).toMatch(/^<xip:FixityAlgorithmRef>[A-Z0-9]+<\/xip:FixityAlgorithmRef><xip:FixityValue>/);
    }
    expect(reply.root.AdditionalInformation.Self).toBe(`${repo.url}${bitstreamPath()}`);
    expect(reply.root.AdditionalInformation.Content).toBe(`${repo.url}${bitstreamPath()}/content`);
  });

  it("includes OriginalName from v6.3 on, not in v6.2", async () => {
    for (const [prefix, expected] of [
      ["", "Scan-1871.TIF"],
      ["/v7.7", "Scan-1871.TIF"],
      ["/v6.3", "Scan-1871.TIF"],
      ["/v6.2", undefined],
      ["/v6.0", undefined],
    ] as const) {
      const reply = await getXml(reader, `${E}${prefix}/content-objects/${f.co}/generations/1/bitstreams/1`);
      expect(reply.root.Bitstream.OriginalName, prefix).toBe(expected);
      if (prefix) expect(reply.ns.entity).toBe(ENTITY_NS(prefix.slice(2)));
      expect(reply.root.AdditionalInformation.Content).toBe(
        `${repo.url}${E}${prefix}/content-objects/${f.co}/generations/1/bitstreams/1/content`,
      );
    }
  });

  it("leaves OriginalName out where it would only repeat Filename (as real 6.3 replies do)", async () => {
    for (const prefix of ["", "/v6.3"]) {
      const reply = await getXml(reader, `${E}${prefix}/content-objects/${f.co2}/generations/1/bitstreams/1`);
      expect(reply.root.Bitstream.Filename, prefix).toBe("page.txt");
      expect(reply.root.Bitstream.OriginalName, prefix).toBeUndefined();
    }
  });
});

describe("content download", () => {
  it("streams the exact bytes, whose SHA256 and MD5 match the reported fixities", async () => {
    const meta = await getXml(reader, bitstreamPath());
    const fixities = Object.fromEntries(
      arr(meta.root.Bitstream.Fixities.Fixity).map((x) => [x.FixityAlgorithmRef, x.FixityValue]),
    );
    const res = await reader(`${bitstreamPath()}/content`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/tiff");
    expect(res.headers.get("content-length")).toBe(String(big.length));
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    const disposition = res.headers.get("content-disposition") ?? "";
    expect(disposition).toMatch(/^attachment; filename="scan 1871 _\.tif"; filename\*=UTF-8''/);
    expect(decodeURIComponent(disposition.split("''")[1] ?? "")).toBe("scan 1871 é.tif");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBe(Number(meta.root.Bitstream.FileSize));
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(fixities.SHA256);
    expect(createHash("md5").update(bytes).digest("hex")).toBe(fixities.MD5);
    expect(bytes.equals(big)).toBe(true);
  });

  it("serves single byte ranges with 206 and Content-Range", async () => {
    const size = big.length;
    for (const [range, start, end] of [
      ["bytes=0-0", 0, 0],
      ["bytes=10-19", 10, 19],
      [`bytes=${size - 5}-`, size - 5, size - 1],
      ["bytes=-7", size - 7, size - 1],
      [`bytes=100-${size + 1000}`, 100, size - 1],
      [`bytes=-${size + 50}`, 0, size - 1],
    ] as const) {
      const res = await reader(`${bitstreamPath()}/content`, { headers: { Range: range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get("content-range"), range).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers.get("content-length"), range).toBe(String(end - start + 1));
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.equals(big.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it("answers 416 with bytes */size for unsatisfiable ranges, and ignores malformed ones", async () => {
    const size = big.length;
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, "bytes=-0"]) {
      const res = await reader(`${bitstreamPath()}/content`, { headers: { Range: range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get("content-range")).toBe(`bytes */${size}`);
      await res.arrayBuffer();
    }
    for (const range of ["items=0-5", "bytes=5-2", "bytes=abc"]) {
      const res = await reader(`${bitstreamPath()}/content`, { headers: { Range: range } });
      expect(res.status, range).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBe(size);
    }
  });

  it("answers HEAD with the headers and no body", async () => {
    const res = await reader(`${E}/content-objects/${f.co2}/generations/1/bitstreams/1/content`, {
      method: "HEAD",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(small.length));
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it("needs Download as well as Read Metadata (403 otherwise)", async () => {
    const path = `${E}/content-objects/${f.noDownloadCo}/generations/1/bitstreams/1`;
    await getXml(reader, path);
    const denied = await reader(`${path}/content`);
    expect(denied.status).toBe(403);
    expect((await jsonError(denied)).message).toMatch(/Download/);
    const allowed = await manager(`${path}/content`);
    expect(allowed.status).toBe(200);
    expect(Buffer.from(await allowed.arrayBuffer()).equals(small)).toBe(true);

    const closed = await reader(`${E}/content-objects/${f.closedCo}/generations`);
    expect(closed.status).toBe(403);
  });
});
