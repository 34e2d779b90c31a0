import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { bitstreamUri } from "../../../src/resources/uris.js";
import { type BlockingProxy, startProxiedMcp } from "../../helpers/blocking-proxy.js";
import { type McpHarness, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { tenPagePdf } from "../../repository/search/pdf-fixture.js";
import { DEMO, entity, nodeOf, seedFile } from "./demo-facts.js";

interface Answer {
  contentObject: string;
  asset?: string;
  representation?: string;
  generation: number;
  bitstream: number;
  filename: string;
  size: number;
  formats: { puid?: string; name?: string; version?: string }[];
  fixities: { algorithm: string; value: string }[];
  mimeType?: string;
  uri: string;
  text?: string;
  offset?: number;
  truncated?: boolean;
  nextOffset?: number;
  otherFiles?: number;
}
type Raw = Awaited<ReturnType<McpHarness["raw"]>>;

function links(res: Raw) {
  return (res.content as { type: string; uri?: string; mimeType?: string; name?: string }[]).filter(
    (c) => c.type === "resource_link",
  );
}

/** A text file of multi-byte characters (2, 3 and 4 bytes in UTF-8), so byte slices fall mid-character. */
const UNICODE = Buffer.from("Ærø café — naïve “quotes” 🚢 harbour\n".repeat(40), "utf8");
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
const CSV = Buffer.from("name,parish\nAnn Pilbeam,Saint Clement\n");

describe("get_file", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });
  let fixture: { asset: string; co: string };
  /** An asset of a PNG, a CSV, a ten-page PDF and a broken PDF, in that order (one content object each). */
  let mixed: string;
  beforeAll(async () => {
    const { db, content } = mcp.repo.svc;
    const asset = insertEntity(db, {
      type: "IO",
      title: "Fixture: log book in two generations",
      securityTag: "open",
      parentRef: nodeOf("photographs").ref,
    });
    const co = insertEntity(db, { type: "CO", title: "log.txt", securityTag: "open", parentRef: asset.ref });
    const g1 = addGeneration(db, co.ref, {
      original: true,
      active: false,
      formatPuid: "x-fmt/111",
      formatName: "Plain Text File",
    });
    addBitstream(db, g1, {
      filename: "log-v1.txt",
      mimeType: "text/plain",
      blob: content.put(Buffer.from("first version\n")),
    });
    const g2 = addGeneration(db, co.ref, {
      original: false,
      active: true,
      formatPuid: "x-fmt/111",
      formatName: "Plain Text File",
    });
    addBitstream(db, g2, {
      filename: "log.txt",
      mimeType: "text/plain; charset=utf-8",
      blob: content.put(UNICODE),
    });
    addBitstream(db, g2, {
      filename: "not-really-text.txt",
      mimeType: "text/plain",
      blob: content.put(Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00, 0x10, 0x20, 0x00])),
    });
    addRepresentation(db, asset.ref, "Preservation", "Preservation", [co.ref]);
    fixture = { asset: asset.ref, co: co.ref };

    const m = insertEntity(db, {
      type: "IO",
      title: "Fixture: survey with photo, register and reports",
      securityTag: "open",
      parentRef: nodeOf("photographs").ref,
    });
    const files = [
      {
        name: "photo.png",
        mime: "image/png",
        puid: "fmt/11",
        format: "Portable Network Graphics",
        bytes: PNG,
      },
      {
        name: "register.csv",
        mime: "text/csv",
        puid: "x-fmt/18",
        format: "Comma Separated Values",
        bytes: CSV,
      },
      {
        name: "Report.pdf",
        mime: "application/pdf",
        puid: "fmt/18",
        format: "Acrobat PDF 1.4",
        bytes: tenPagePdf(),
      },
      {
        name: "broken.pdf",
        mime: "application/pdf",
        puid: "fmt/18",
        format: "Acrobat PDF 1.4",
        bytes: Buffer.from("%PDF-1.4 walrus"),
      },
    ];
    const cos = files.map((f) => {
      const c = insertEntity(db, { type: "CO", title: f.name, securityTag: "open", parentRef: m.ref });
      const g = addGeneration(db, c.ref, {
        original: true,
        active: true,
        formatPuid: f.puid,
        formatName: f.format,
      });
      addBitstream(db, g, { filename: f.name, mimeType: f.mime, blob: content.put(f.bytes) });
      return c.ref;
    });
    addRepresentation(db, m.ref, "Preservation", "Preservation", cos);
    mixed = m.ref;
  });
  it("returns a small text file's text, byte-exact against the seed, with its facts", async () => {
    const seed = seedFile("harbourMasterJournal1852");
    const res = await mcp.raw("get_file", { ref: DEMO.refs.textAsset });
    const a = res.structuredContent as unknown as Answer;
    expect(Buffer.from(a.text ?? "", "utf8").equals(seed.bytes)).toBe(true);
    expect(a).toMatchObject({
      asset: DEMO.refs.textAsset,
      representation: "Preservation",
      generation: 1,
      bitstream: 1,
      filename: seed.filename,
      size: seed.bytes.length,
      offset: 0,
      truncated: false,
    });
    expect(a.fixities.find((f) => f.algorithm === "SHA256")?.value.toLowerCase()).toBe(seed.sha256);
    expect(a.formats[0]?.puid).toBe("x-fmt/111");
    expect(a.mimeType).toBe("text/plain");
    expect(a.uri).toBe(bitstreamUri(a.contentObject, 1, 1));
    expect(textOf(res)).toContain(seed.bytes.toString("utf8"));
    expect(links(res)).toEqual([]);
  });

  it("gives a binary file as a resource link, without its bytes", async () => {
    const seed = seedFile("photoNorthQuay1890");
    const res = await mcp.raw("get_file", { ref: DEMO.refs.pngAsset });
    const a = res.structuredContent as unknown as Answer;
    expect(a.text).toBeUndefined();
    expect(a).toMatchObject({ filename: seed.filename, size: seed.bytes.length, mimeType: "image/png" });
    expect(links(res)).toEqual([
      expect.objectContaining({
        uri: bitstreamUri(a.contentObject, 1, 1),
        name: seed.filename,
        mimeType: "image/png",
      }),
    ]);
    expect(textOf(res)).toMatch(
      /Not text, so not shown inline\. Read the bytes as the resource preservation:\/\/bitstream\//,
    );
    expect(textOf(res).length).toBeLessThan(1500);
  });

  it("says what resolution a picture is: its technical properties in the text and the structured content", async () => {
    const seed = seedFile("photoNorthQuay1890");
    // The PNG's own header says its dimensions (IHDR: width at byte 16, height at byte 20).
    const width = String(seed.bytes.readUInt32BE(16));
    const height = String(seed.bytes.readUInt32BE(20));
    const res = await mcp.raw("get_file", { ref: DEMO.refs.pngAsset });
    const a = res.structuredContent as unknown as Answer & {
      properties?: { name: string; value: string; group?: string; puid?: string }[];
    };
    expect(a.properties).toEqual(
      expect.arrayContaining([
        { name: "Image Width", value: width, group: "Image", puid: "prp/3" },
        expect.objectContaining({ name: "Image Height", value: height }),
        expect.objectContaining({ name: "Colour Space", value: "RGB" }),
      ]),
    );
    // Every property the structured content holds is in the text.
    const line = textOf(res)
      .split("\n")
      .find((l) => l.startsWith("Technical properties: "));
    for (const p of a.properties ?? []) expect(line).toContain(`${p.name} ${p.value}`);
    expect(line).toContain(`Image Width ${width}; Image Height ${height}`);
  });

  it("chooses the access copy when asked, and a content object directly", async () => {
    const seed = seedFile("mapNorthQuay1850", "Access");
    const access = await mcp.call<Answer>("get_file", {
      ref: DEMO.refs.mapNorthQuay1850,
      representation: "Access",
    });
    expect(access).toMatchObject({
      representation: "Access",
      filename: seed.filename,
      size: seed.bytes.length,
    });
    const direct = await mcp.call<Answer>("get_file", { ref: access.contentObject });
    expect(direct.filename).toBe(seed.filename);
    expect(direct.asset).toBeUndefined();
    const none = await mcp.raw("get_file", { ref: DEMO.refs.textAsset, representation: "Access" });
    expect(textOf(none)).toMatch(/has no Access copy; it has: Preservation\./);
  });

  it("says how many other files the copy has, and names their content object refs to pass on", async () => {
    const a = await mcp.call<Answer>("get_file", { ref: DEMO.refs.byeLaw1858 });
    expect(a.otherFiles).toBe(1);
    expect(a.filename).toBe(seedFile("byeLaw1858").filename);
    // The second file is a content object of its own: the answer gives its ref, and that ref gets it.
    const res = await mcp.raw("get_file", { ref: DEMO.refs.byeLaw1858 });
    const second = seedFile("byeLaw1858", "Preservation", 1).filename;
    const named = textOf(res).match(
      new RegExp(
        `Other files of the Preservation copy \\(pass a ref to \`get_file\`\\): ([0-9a-f-]{36}) "${second}"\\.`,
      ),
    );
    expect(named, textOf(res)).not.toBeNull();
    const next = await mcp.call<Answer>("get_file", { ref: named?.[1] });
    expect(next.filename).toBe(second);
    // Asking the asset for "file 2" points to the same ref instead of only saying there is no file 2.
    const two = await mcp.raw("get_file", { ref: DEMO.refs.byeLaw1858, bitstream: 2 });
    expect(two.isError).toBe(true);
    expect(textOf(two)).toMatch(
      new RegExp(
        `has no file 2; .* other Preservation files are content objects of their own: pass one as ref \\(${named?.[1]} "${second}"\\)\\.`,
      ),
    );
  });

  it("pages a text file by bytes without splitting characters; the pieces join to the file", async () => {
    const seed = seedFile("rateBook1861North");
    const pieces: string[] = [];
    let offset = 0;
    for (let i = 0; i < 20; i++) {
      const res = await mcp.raw("get_file", { ref: DEMO.refs.csvAsset, maxBytes: 256, offset });
      const a = res.structuredContent as unknown as Answer;
      expect(a.offset).toBe(offset);
      pieces.push(a.text ?? "");
      if (a.nextOffset === undefined) {
        expect(a.truncated).toBe(false);
        break;
      }
      expect(a.truncated).toBe(true);
      expect(textOf(res)).toMatch(`call again with offset ${a.nextOffset}`);
      expect(links(res)).toHaveLength(1);
      offset = a.nextOffset;
    }
    expect(Buffer.from(pieces.join(""), "utf8").equals(seed.bytes)).toBe(true);

    const uni: string[] = [];
    offset = 0;
    for (let i = 0; i < 40; i++) {
      const a = await mcp.call<Answer>("get_file", { ref: fixture.asset, maxBytes: 256, offset });
      expect(a.text).not.toContain("\uFFFD");
      uni.push(a.text ?? "");
      if (a.nextOffset === undefined) break;
      offset = a.nextOffset;
    }
    expect(uni.length).toBeGreaterThan(2);
    expect(uni.join("")).toBe(UNICODE.toString("utf8"));
    // An offset in the middle of a character starts at the next whole one.
    const mid = await mcp.call<Answer>("get_file", { ref: fixture.asset, offset: 1 });
    expect(mid.offset).toBe(2);
    expect(mid.text).toBe(UNICODE.subarray(2).toString("utf8"));
  });

  it("uses the active generation by default, an older one on request, and another file by number", async () => {
    const latest = await mcp.call<Answer>("get_file", { ref: fixture.co });
    expect(latest).toMatchObject({ generation: 2, filename: "log.txt", size: UNICODE.length });
    expect(latest.fixities.find((f) => f.algorithm === "SHA256")?.value).toBe(
      createHash("sha256").update(UNICODE).digest("hex"),
    );
    const first = await mcp.call<Answer>("get_file", { ref: fixture.co, generation: 1 });
    expect(first).toMatchObject({ generation: 1, filename: "log-v1.txt", text: "first version\n" });
    const binary = await mcp.raw("get_file", { ref: fixture.co, bitstream: 2 });
    expect((binary.structuredContent as unknown as Answer).text).toBeUndefined();
    expect(textOf(binary)).toMatch(/does not decode as text/);
    expect(links(binary)).toHaveLength(1);

    const noGen = await mcp.raw("get_file", { ref: fixture.co, generation: 7 });
    expect(textOf(noGen)).toBe(`Content object ${fixture.co} has no generation 7; it has 1, 2.`);
    const noFile = await mcp.raw("get_file", { ref: fixture.co, bitstream: 3 });
    expect(textOf(noFile)).toMatch(/has no file 3; it has 2 \(1: log\.txt, 2: not-really-text\.txt\)/);
    const past = await mcp.raw("get_file", { ref: fixture.co, offset: UNICODE.length });
    expect(textOf(past)).toMatch(/is past the end of log\.txt/);
  });

  it("answers a folder ref with what to do instead, and refuses a reader closed files", async () => {
    const folder = await mcp.raw("get_file", { ref: DEMO.refs.photographs });
    expect(folder.isError).toBe(true);
    expect(textOf(folder)).toBe(
      `${DEMO.refs.photographs} is a folder ("${entity(DEMO.refs.photographs).title}"), not an asset or content object. Folders hold no files: list its assets with \`browse\`, then pass an asset ref.`,
    );
    const closed = await reader.raw("get_file", { ref: DEMO.refs.closedAsset });
    expect(textOf(closed)).toMatch(/^You do not have permission/);
    const big = await mcp.raw("get_file", { ref: DEMO.refs.textAsset, maxBytes: 1_000_000 });
    expect(big.isError).toBe(true);
  });

  it("returns a PDF's extracted text (the demo's council minutes)", async () => {
    const seed = seedFile("councilMinutes1851");
    // The seed's PDF shows its title first, as a string literal of the content stream.
    const title = seed.bytes.toString("latin1").match(/\((.+?)\) Tj/)?.[1] ?? "";
    expect(title.length).toBeGreaterThan(5);
    const res = await mcp.raw("get_file", { ref: DEMO.refs.pdfAsset });
    const a = res.structuredContent as unknown as Answer;
    expect(a).toMatchObject({
      filename: seed.filename,
      size: seed.bytes.length,
      mimeType: "application/pdf",
    });
    expect(a.text).toContain(title);
    expect(a.truncated).toBe(false);
    expect(textOf(res)).toMatch(/Text extracted from the PDF \(1 page; all of it\):/);
    expect(links(res)).toHaveLength(1);
  });

  it("picks a file of an asset by name or by format, and lists the files when none matches", async () => {
    // By default the first file: the PNG.
    expect((await mcp.call<Answer>("get_file", { ref: mixed })).filename).toBe("photo.png");
    for (const pick of [
      { format: "csv" },
      { format: ".CSV" },
      { format: "text/csv" },
      { format: "x-fmt/18" },
      { format: "text" },
      { name: "register.csv" },
      { name: "REG*.csv" },
      { name: "*.csv", format: "csv" },
    ]) {
      const a = await mcp.call<Answer>("get_file", { ref: mixed, ...pick });
      expect(a, JSON.stringify(pick)).toMatchObject({
        asset: mixed,
        representation: "Preservation",
        filename: "register.csv",
        text: CSV.toString("utf8"),
      });
    }
    expect((await mcp.call<Answer>("get_file", { ref: mixed, format: "image" })).filename).toBe("photo.png");
    expect((await mcp.call<Answer>("get_file", { ref: mixed, format: "fmt/11" })).filename).toBe("photo.png");
    // Several match: the first, and the answer says so.
    const pdfs = await mcp.raw("get_file", { ref: mixed, format: "pdf" });
    expect((pdfs.structuredContent as unknown as Answer).filename).toBe("Report.pdf");
    expect(textOf(pdfs)).toMatch(/First of 2 files matching name\/format/);
    // A content object ref is searched among its own files.
    const csvCo = (await mcp.call<Answer>("get_file", { ref: mixed, name: "register.csv" })).contentObject;
    expect((await mcp.call<Answer>("get_file", { ref: csvCo, format: "csv" })).filename).toBe("register.csv");

    const none = await mcp.raw("get_file", { ref: mixed, name: "*.docx" });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toBe(
      'No file of the Preservation copy of asset "Fixture: survey with photo, register and reports" matches name "*.docx". Its files: photo.png (Portable Network Graphics (fmt/11)), register.csv (Comma Separated Values (x-fmt/18)), Report.pdf (Acrobat PDF 1.4 (fmt/18)), broken.pdf (Acrobat PDF 1.4 (fmt/18)). Pass one of these names as name, or a format (extension, PUID, media type).',
    );
    const both = await mcp.raw("get_file", { ref: mixed, name: "photo.png", format: "csv" });
    expect(textOf(both)).toMatch(/matches name "photo\.png" and format "csv"\. Its files: photo\.png/);
  });

  it("pages a long PDF's text by bytes; the pieces join to the whole text", async () => {
    const pieces: string[] = [];
    let offset = 0;
    let calls = 0;
    for (; calls < 10; calls++) {
      const a = await mcp.call<Answer>("get_file", {
        ref: mixed,
        name: "report.pdf",
        offset,
        maxBytes: 16_384,
      });
      expect(a.offset).toBe(offset);
      pieces.push(a.text ?? "");
      if (a.nextOffset === undefined) break;
      expect(a.truncated).toBe(true);
      offset = a.nextOffset;
    }
    expect(calls).toBeGreaterThan(0);
    const whole = pieces.join("");
    expect(whole).toMatch(/^Page 1 line 1: the harbour master recorded/);
    expect(whole).toContain("Page 10 line 50: the harbour master recorded the tides and the keepers.");
    expect(whole.match(/Page \d+ line \d+:/g)).toHaveLength(500);
    const past = await mcp.raw("get_file", { ref: mixed, name: "report.pdf", offset: 10_000_000 });
    expect(past.isError).toBe(true);
  });

  it("gives a PDF whose text cannot be read as a link, saying why", async () => {
    const res = await mcp.raw("get_file", { ref: mixed, name: "broken.pdf" });
    expect(res.isError).toBeFalsy();
    expect((res.structuredContent as unknown as Answer).text).toBeUndefined();
    expect(textOf(res)).toMatch(/No text could be read from this PDF: .+\. Read the bytes as the resource/);
    expect(links(res)).toHaveLength(1);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("get_file", { ref: DEMO.refs.textAsset, maxBytes: 300 });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "harbour-masters-journal-1852.txt, 370 bytes, Plain Text File (x-fmt/111); content object d233686f-6005-42fc-a605-3abb2dff0da9 (Preservation copy of asset e4490e85-51ec-4227-a858-7011400354b1), generation 1, file 1
      Fixity: MD5 d97426a143cc7a7b9b8fa03755db98b3; SHA1 3ce0c8df0015383a4612284fb3e82aa18f4f964b; SHA256 58e7e052f07c1aa56473d66b13cc15f5ceee5d448a626628e59ed2ab18c55fcb; SHA512 c2af0d7d9650cc31c3f4a46fda85260167def5fb0e80d56c31208c508d0225fffebaf6cd4ddbcb1a0a2ca8851870f89997633202ba48738367c74840dbdca270
      Media type text/plain.
      Text (bytes 0–299 of 370):
      Harbour Master's journal, 1852. Transcribed by volunteers of the Harbour Town Archives.

      1 January 1852. Wind SW, fresh. High water 10.42. Schooner Providence of Falmouth entered with coal.
      2 January 1852. Gale from the west. All vessels kept in harbour. Pier head light damaged.
      3 January 1852. Mode
      [cut: 70 more bytes; call again with offset 300, or read the resource preservation://bitstream/d233686f-6005-42fc-a605-3abb2dff0da9/1/1]"
    `);
  });
});

/**
 * Choosing a file by name reads the content objects of the asset's chosen copy: one that cannot be read is
 * left out of the choice and named, in the answer or in the refusal (the real service behind a loopback
 * proxy that answers one representation with the service's JSON 404). Other copies are not read at all.
 */
describe("get_file by name when part of the asset cannot be read", () => {
  let proxy: BlockingProxy;
  let mcp: McpHarness;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ proxy, mcp, close } = await startProxiedMcp());
  });
  afterAll(() => close());

  it("names the copy it could not read; a copy it was not asked about does not matter", async () => {
    const ref = DEMO.refs.pngAsset;
    const path = (type: string) => `/api/entity/information-objects/${ref}/representations/${type}/1`;
    proxy.rules.push({ path: path("Access"), mode: "item-404" });
    const fine = await mcp.raw("get_file", { ref, name: "*.png" });
    expect(fine.isError, textOf(fine)).toBeFalsy();
    expect((fine.structuredContent as { filename: string }).filename).toMatch(/\.png$/);
    expect(textOf(fine)).not.toContain("Not read");

    proxy.rules.push({ path: path("Preservation"), mode: "item-404" });
    const lost = await mcp.raw("get_file", { ref, name: "*.png" });
    expect(lost.isError).toBe(true);
    expect(textOf(lost)).toContain("holds no files. Not read (the rest of this answer stands):");
    expect(textOf(lost)).toContain(
      `the Preservation representation 1 of asset ${ref}: the service answered HTTP 404`,
    );
    proxy.rules.length = 0;
  });
});
