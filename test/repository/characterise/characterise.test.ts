import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { buildZip, children, E, hash, ingest } from "../ingest/ingest-helpers.js";
import { settled } from "../writes/structure-helpers.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import { cameraJpeg, scannedTiff } from "./images.js";

/**
 * Characterisation: every stored file's format identified from its content and its technical properties
 * read and served in the GenerationResponse's xip:Properties, for the demo files (characterised on first
 * read), for ingested packages, and for replaced content.
 */

let repo: RunningRepository;
let users: Users;
let target: string;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  users = await signIn(repo);
  target = insertEntity(repo.svc.db, {
    type: "SO",
    title: "Scans",
    securityTag: "open",
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
});

interface Generation {
  puid: string;
  formatName: string;
  /** Property name → value. */
  properties: Record<string, string>;
  /** Each property's group, PUID, name and value, in order. */
  raw: { group: string; puid: string; name: string; value: string }[];
}

async function xmlOf(path: string) {
  const res = await users.curator(path.replace(/^https?:\/\/[^/]+/, ""));
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return parseXml(body).root;
}

/** The active generation of an asset's first content object, as GenerationResponse has it. */
async function generationOf(assetRef: string): Promise<Generation> {
  const reps = await xmlOf(`${E}/information-objects/${assetRef}/representations`);
  const rep = await xmlOf(text(arr(reps.Representations?.Representation)[0]));
  const co = text(arr(rep.Representation.ContentObjects?.ContentObject)[0]);
  const gens = await xmlOf(`${E}/content-objects/${co}/generations`);
  const active = arr(gens.Generations?.Generation).filter((g) => g["@active"] === "true");
  const gen = await xmlOf(text(active[active.length - 1]));
  const format = arr(gen.Generation.Formats?.Format)[0];
  const raw = arr(gen.Generation.Properties?.Property).map((p) => ({
    group: text(p.Group),
    puid: text(p.PUID),
    name: text(p.PropertyName),
    value: text(p.Value),
  }));
  return {
    puid: text(format?.PUID),
    formatName: text(format?.FormatName),
    properties: Object.fromEntries(raw.map((p) => [p.name, p.value])),
    raw,
  };
}

describe("the demo files", () => {
  it("a PNG photograph carries its dimensions, bit depth and colour space", async () => {
    const g = await generationOf(DEMO.refs.pngAsset);
    expect(g.properties).toMatchObject({ "Bits Per Sample": "8", "Colour Space": "RGB" });
    expect(Number(g.properties["Image Width"])).toBeGreaterThan(0);
    expect(Number(g.properties["Image Height"])).toBeGreaterThan(0);
    // The element layout the real service uses: Group, PUID, PropertyName, Value.
    expect(g.raw[0]).toMatchObject({ group: "Image", puid: "prp/3", name: "Image Width" });
    // Read twice, the same (characterised once, remembered).
    expect((await generationOf(DEMO.refs.pngAsset)).raw).toEqual(g.raw);
  });

  it("a PDF carries its page count, a WAV recording its duration and sampling", async () => {
    expect((await generationOf(DEMO.refs.pdfAsset)).properties).toMatchObject({ "Page Count": "1" });
    const wav = (await generationOf(DEMO.refs.wavAsset)).properties;
    expect(wav).toMatchObject({
      "Sample Rate (Hz)": "8000",
      "Number Of Channels": "1",
      "Bits Per Sample": "8",
    });
    expect(Number(wav["Duration (s)"])).toBeGreaterThan(0);
  });

  it("a text file has no technical properties, and an empty Properties element", async () => {
    expect((await generationOf(DEMO.refs.textAsset)).raw).toEqual([]);
  });
});

describe("ingest", () => {
  it("characterises each file as it is stored: identified by content, properties read, unknown files kept", async () => {
    const flac = Buffer.concat([Buffer.from("fLaC", "latin1"), Buffer.from([0, 0, 0, 34]), Buffer.alloc(60)]);
    const zip = await buildZip([
      { name: "scan-0001.tif", data: scannedTiff(400, 500), compress: false },
      { name: "harbour.jpg", data: cameraJpeg(1200, 800) },
      // A misleading extension: the content decides.
      { name: "interview.dat", data: flac },
      { name: "mystery.bin", data: randomBytes(3000) },
    ]);
    const p = await ingest(users.curator, target, zip, { Filename: "scans.zip" });
    expect(p).toMatchObject({ status: "COMPLETED", done: 4, failed: 0 });
    const assets = await children(users.curator, target);

    const tiff = await generationOf(assets.get("scan-0001.tif")?.ref as string);
    expect(tiff.puid).toBe("fmt/353");
    // The TIFF's directory lies after 600,000 bytes of pixels: read by seeking, not by reading them.
    expect(tiff.properties).toEqual({
      "Image Width": "400",
      "Image Height": "500",
      "Bits Per Sample": "8",
      "Samples Per Pixel": "3",
      "Colour Space": "RGB",
      "X Resolution": "600 dpi",
      "Y Resolution": "600 dpi",
      "Camera Make": "Epson",
      "Camera Model": "Perfection V850",
    });

    const jpeg = await generationOf(assets.get("harbour.jpg")?.ref as string);
    expect(jpeg.properties).toMatchObject({
      "Image Width": "1200",
      "Image Height": "800",
      "Colour Space": "sRGB",
      "Camera Make": "Canon",
      "Camera Model": "Canon EOS 5D",
      "Capture Date": "2019-06-14T09:30:05",
    });
    expect(jpeg.raw.find((r) => r.name === "Camera Make")?.group).toBe("Camera");

    const audio = await generationOf(assets.get("interview.dat")?.ref as string);
    expect(audio).toMatchObject({ puid: "fmt/279", formatName: "FLAC (Free Lossless Audio Codec)" });

    const unknown = await generationOf(assets.get("mystery.bin")?.ref as string);
    expect(unknown).toMatchObject({ puid: "", raw: [] });
  });
});

describe("content replacement", () => {
  it("characterises the new generation", async () => {
    const zip = await buildZip([{ name: "plan.txt", data: "a plan to be scanned\n" }]);
    await ingest(users.curator, target, zip, { Filename: "plan.zip" });
    const asset = (await children(users.curator, target)).get("plan.txt")?.ref as string;
    const reps = await xmlOf(`${E}/information-objects/${asset}/representations`);
    const rep = await xmlOf(text(arr(reps.Representations?.Representation)[0]));
    const co = text(arr(rep.Representation.ContentObjects?.ContentObject)[0]);

    const jpeg = cameraJpeg(640, 480);
    const res = await users.curator(`${E}/content-objects/${co}/generations?replaceType=previous`, {
      method: "POST",
      body: jpeg,
      headers: {
        "Content-Type": "application/octet-stream",
        Filename: "plan.jpg",
        "Fixity-SHA-256": hash("sha256", jpeg),
      },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await settled(users.curator, await res.text())).status).toBe("COMPLETED");
    expect((await generationOf(asset)).properties).toMatchObject({
      "Image Width": "640",
      "Image Height": "480",
    });
  });
});
