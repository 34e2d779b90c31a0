import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newPackagePath } from "../../../repository/ingest/packages.js";
import { startIngest } from "../../../repository/ingest/start.js";
import type { RunningRepository } from "../../../repository/server.js";
import { getAction } from "../../../repository/store/actions/read.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import {
  buildZip,
  fragmentsOf,
  hash,
  identifiersOf,
  ingest,
  progressErrors,
  readAsset,
  type ZipItem,
} from "./ingest-helpers.js";

/**
 * XIP packages as pyPreservica builds them (uploadAPI.py): `simple_asset_package` zips a top folder
 * `<ioRef>/` holding `metadata.xml` (root `xip:XIP`, XIP v6.0 namespace, pretty-printed by minidom)
 * and `content/p1/<file>` (preservation) and `content/a1/<file>` (access); the generation names its
 * bitstream `p1/<file>`, the bitstream carries PhysicalLocation `p1` and a SHA1 fixity.
 * `multi_asset_package` puts every file bare under `<packageId>/content/` with an empty
 * PhysicalLocation. The package's refs are kept, and `<Parent>` places it when no folder is given.
 */

let repo: RunningRepository;
let users: Users;
let folder: string;

const TIFF = Buffer.concat([Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), Buffer.alloc(5000, 4)]);
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
  Buffer.from("JFIF\0"),
  Buffer.from([1, 1]),
  Buffer.alloc(700, 2),
]);
const DC = "http://www.openarchives.org/OAI/2.0/oai_dc/";

beforeAll(async () => {
  repo = await startTestRepository();
  users = await signIn(repo);
  folder = insertEntity(repo.svc.db, {
    type: "SO",
    title: "XIP deposits",
    securityTag: "open",
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
});

/** The package simple_asset_package builds for one preservation and one access file. */
function simpleAssetPackage(opts: { parent: string; io?: string; sha1?: string }): {
  io: string;
  pres: string;
  acc: string;
  items: ZipItem[];
} {
  const io = opts.io ?? randomUUID();
  const pres = randomUUID();
  const acc = randomUUID();
  const effective = "2025-03-04T10:11:12.123456";
  const metadata = `<?xml version="1.0" ?>
<xip:XIP xmlns:xip="http://preservica.com/XIP/v6.0">
  <xip:InformationObject>
    <xip:Ref>${io}</xip:Ref>
    <xip:Title>Survey of the east quay</xip:Title>
    <xip:Description>Engineer's survey, 1902</xip:Description>
    <xip:SecurityTag>open</xip:SecurityTag>
    <xip:CustomType/>
    <xip:Parent>${opts.parent}</xip:Parent>
  </xip:InformationObject>
  <xip:Representation>
    <xip:InformationObject>${io}</xip:InformationObject>
    <xip:Name>Preservation</xip:Name>
    <xip:Type>Preservation</xip:Type>
    <xip:ContentObjects>
      <xip:ContentObject>${pres}</xip:ContentObject>
    </xip:ContentObjects>
  </xip:Representation>
  <xip:Representation>
    <xip:InformationObject>${io}</xip:InformationObject>
    <xip:Name>Access</xip:Name>
    <xip:Type>Access</xip:Type>
    <xip:ContentObjects>
      <xip:ContentObject>${acc}</xip:ContentObject>
    </xip:ContentObjects>
  </xip:Representation>
  <xip:ContentObject>
    <xip:Ref>${pres}</xip:Ref>
    <xip:Title>survey</xip:Title>
    <xip:Description>survey</xip:Description>
    <xip:SecurityTag>open</xip:SecurityTag>
    <xip:CustomType/>
    <xip:Parent>${io}</xip:Parent>
  </xip:ContentObject>
  <xip:ContentObject>
    <xip:Ref>${acc}</xip:Ref>
    <xip:Title>survey</xip:Title>
    <xip:Description>survey</xip:Description>
    <xip:SecurityTag>open</xip:SecurityTag>
    <xip:CustomType/>
    <xip:Parent>${io}</xip:Parent>
  </xip:ContentObject>
  <xip:Generation original="true" active="true">
    <xip:ContentObject>${pres}</xip:ContentObject>
    <xip:Label>survey</xip:Label>
    <xip:EffectiveDate>${effective}</xip:EffectiveDate>
    <xip:Bitstreams>
      <xip:Bitstream>p1/survey.tif</xip:Bitstream>
    </xip:Bitstreams>
    <xip:Formats/>
    <xip:Properties/>
  </xip:Generation>
  <xip:Generation original="true" active="true">
    <xip:ContentObject>${acc}</xip:ContentObject>
    <xip:Label>survey</xip:Label>
    <xip:EffectiveDate>${effective}</xip:EffectiveDate>
    <xip:Bitstreams>
      <xip:Bitstream>a1/survey.jpg</xip:Bitstream>
    </xip:Bitstreams>
    <xip:Formats/>
    <xip:Properties/>
  </xip:Generation>
  <xip:Bitstream>
    <xip:Filename>survey.tif</xip:Filename>
    <xip:FileSize>${TIFF.length}</xip:FileSize>
    <xip:PhysicalLocation>p1</xip:PhysicalLocation>
    <xip:Fixities>
      <xip:Fixity>
        <xip:FixityAlgorithmRef>SHA1</xip:FixityAlgorithmRef>
        <xip:FixityValue>${opts.sha1 ?? hash("sha1", TIFF)}</xip:FixityValue>
      </xip:Fixity>
    </xip:Fixities>
  </xip:Bitstream>
  <xip:Bitstream>
    <xip:Filename>survey.jpg</xip:Filename>
    <xip:FileSize>${JPEG.length}</xip:FileSize>
    <xip:PhysicalLocation>a1</xip:PhysicalLocation>
    <xip:Fixities>
      <xip:Fixity>
        <xip:FixityAlgorithmRef>SHA1</xip:FixityAlgorithmRef>
        <xip:FixityValue>${hash("sha1", JPEG)}</xip:FixityValue>
      </xip:Fixity>
    </xip:Fixities>
  </xip:Bitstream>
  <xip:Identifier>
    <xip:Type>code</xip:Type>
    <xip:Value>EQ-1902-01</xip:Value>
    <xip:Entity>${io}</xip:Entity>
  </xip:Identifier>
  <xip:Metadata schemaUri="${DC}">
    <xip:Ref>${randomUUID()}</xip:Ref>
    <xip:Entity>${io}</xip:Entity>
    <xip:Content>
      <ns0:dc xmlns:ns0="${DC}" xmlns:ns1="http://purl.org/dc/elements/1.1/">
        <ns1:title>Survey of the east quay</ns1:title>
        <ns1:creator>Josiah Wexford, harbour engineer</ns1:creator>
      </ns0:dc>
    </xip:Content>
  </xip:Metadata>
</xip:XIP>
`;
  // shutil.make_archive(top, "zip", top): directories as their own entries, then their files.
  const items: ZipItem[] = [
    { name: `${io}/`, dir: true },
    { name: `${io}/content/`, dir: true },
    { name: `${io}/metadata.xml`, data: metadata },
    { name: `${io}/content/a1/`, dir: true },
    { name: `${io}/content/p1/`, dir: true },
    { name: `${io}/content/a1/survey.jpg`, data: JPEG },
    { name: `${io}/content/p1/survey.tif`, data: TIFF },
  ];
  return { io, pres, acc, items };
}

describe("an XIP package as pyPreservica's simple_asset_package builds it", () => {
  it("keeps its refs, representations, metadata, identifiers and checked fixities", async () => {
    const pkg = simpleAssetPackage({ parent: folder });
    const p = await ingest(users.curator, folder, await buildZip(pkg.items));
    expect(p).toMatchObject({ status: "COMPLETED", total: 2, done: 2, failed: 0 });

    const asset = await readAsset(users.curator, pkg.io);
    expect(asset).toMatchObject({
      title: "Survey of the east quay",
      description: "Engineer's survey, 1902",
      tag: "open",
      parent: folder,
    });
    const rep = (type: string) => asset.representations.find((r) => r.type === type);
    const pres = rep("Preservation")?.contentObjects[0];
    expect(pres).toMatchObject({ ref: pkg.pres, title: "survey" });
    expect(pres?.generations).toHaveLength(1);
    expect(pres?.generations[0]).toMatchObject({ original: true, active: true, puid: "fmt/353" });
    const tif = pres?.generations[0]?.bitstreams[0];
    expect(tif).toMatchObject({ filename: "survey.tif", size: TIFF.length });
    expect(tif?.bytes.equals(TIFF)).toBe(true);
    expect(tif?.fixity.SHA1).toBe(hash("sha1", TIFF));
    expect(tif?.fixity.SHA512).toBe(hash("sha512", TIFF));
    const acc = rep("Access")?.contentObjects[0];
    expect(acc?.ref).toBe(pkg.acc);
    expect(acc?.generations[0]?.bitstreams[0]?.bytes.equals(JPEG)).toBe(true);
    expect(acc?.generations[0]?.puid).toBe("fmt/43");

    expect(await identifiersOf(users.curator, "information-objects", pkg.io)).toEqual([
      ["code", "EQ-1902-01"],
    ]);
    const frags = await fragmentsOf(users.curator, "information-objects", pkg.io);
    expect(frags.map((f) => f.schema)).toEqual([DC]);
    expect(frags[0]?.xml).toContain("Josiah Wexford, harbour engineer");
    const search = await users.curator(`/api/content/search?q=${encodeURIComponent("Josiah Wexford")}`);
    expect(((await search.json()) as { value: { objectIds: string[] } }).value.objectIds).toEqual([
      `sdb:IO|${pkg.io}`,
    ]);

    // The same package again: its refs are taken now, so nothing is ingested and the reason is given.
    const again = await ingest(users.curator, folder, await buildZip(pkg.items));
    expect(again.status).toBe("FAILED");
    expect((await progressErrors(users.curator, again.id))[0]).toMatch(
      new RegExp(`an entity with ref ${pkg.io} already exists`),
    );
  });

  it("fails the asset whose file does not match its declared SHA1, naming the file", async () => {
    const pkg = simpleAssetPackage({ parent: folder, sha1: hash("sha1", "something else") });
    const before = repo.svc.db.prepare("SELECT count(*) AS n FROM entities").get();
    const p = await ingest(users.curator, folder, await buildZip(pkg.items));
    expect(p).toMatchObject({ status: "FAILED", total: 2, done: 0, failed: 2 });
    const errors = await progressErrors(users.curator, p.id);
    expect(errors[0]).toMatch(
      new RegExp(
        `^${pkg.io}/content/p1/survey\\.tif: fixity mismatch, ${pkg.io}/metadata\\.xml declares SHA1 ${hash("sha1", "something else")} but the file's ${TIFF.length} bytes have ${hash("sha1", TIFF)}`,
      ),
    );
    expect(repo.svc.db.prepare("SELECT count(*) AS n FROM entities").get()).toEqual(before);
  });

  it("takes the parent from <Parent> when the ingest names no folder (the S3 upload without a header)", async () => {
    const elsewhere = insertEntity(repo.svc.db, {
      type: "SO",
      title: "Elsewhere",
      securityTag: "open",
      created: LONG_AGO,
    }).ref;
    const pkg = simpleAssetPackage({ parent: elsewhere });
    const path = newPackagePath(repo.svc.dataDir);
    writeFileSync(path, await buildZip(pkg.items));
    const action = startIngest(repo.svc, {
      packagePath: path,
      parentRef: null,
      username: "curator",
      source: "s3",
      packageName: `${pkg.io}.zip`,
    });
    expect(action).toMatchObject({ kind: "ingest", status: "ACTIVE", entity_ref: null });
    await repo.svc.actions.idle();
    expect(getAction(repo.svc.db, action.id)?.status).toBe("COMPLETED");
    expect((await readAsset(users.curator, pkg.io)).parent).toBe(elsewhere);
  });
});

describe("an XIP package as multi_asset_package builds it", () => {
  it("finds bare-named bitstreams under content/ and makes one asset per file", async () => {
    const pkgId = randomUUID();
    const files = [
      { name: "ledger-1.txt", data: "Ledger one" },
      { name: "ledger-2.txt", data: "Ledger two" },
    ].map((f) => ({ ...f, io: randomUUID(), co: randomUUID() }));
    const xip = `<?xml version="1.0" ?>
<xip:XIP xmlns:xip="http://preservica.com/XIP/v6.0">${files
      .map(
        (f) => `
  <xip:InformationObject><xip:Ref>${f.io}</xip:Ref><xip:Title>${f.name.slice(0, -4)}</xip:Title><xip:Description>${f.name.slice(0, -4)}</xip:Description><xip:SecurityTag>open</xip:SecurityTag><xip:CustomType/><xip:Parent>${folder}</xip:Parent></xip:InformationObject>
  <xip:Representation><xip:InformationObject>${f.io}</xip:InformationObject><xip:Name>Preservation</xip:Name><xip:Type>Preservation</xip:Type><xip:ContentObjects><xip:ContentObject>${f.co}</xip:ContentObject></xip:ContentObjects></xip:Representation>
  <xip:ContentObject><xip:Ref>${f.co}</xip:Ref><xip:Title>${f.name.slice(0, -4)}</xip:Title><xip:Description>${f.name.slice(0, -4)}</xip:Description><xip:SecurityTag>open</xip:SecurityTag><xip:CustomType/><xip:Parent>${f.io}</xip:Parent></xip:ContentObject>
  <xip:Generation original="true" active="true"><xip:ContentObject>${f.co}</xip:ContentObject><xip:Label>${f.name.slice(0, -4)}</xip:Label><xip:EffectiveDate>2025-03-04T10:11:12.123456</xip:EffectiveDate><xip:Bitstreams><xip:Bitstream>${f.name}</xip:Bitstream></xip:Bitstreams><xip:Formats/><xip:Properties/></xip:Generation>
  <xip:Bitstream><xip:Filename>${f.name}</xip:Filename><xip:FileSize>${f.data.length}</xip:FileSize><xip:PhysicalLocation/><xip:Fixities><xip:Fixity><xip:FixityAlgorithmRef>SHA1</xip:FixityAlgorithmRef><xip:FixityValue>${hash("sha1", f.data)}</xip:FixityValue></xip:Fixity></xip:Fixities></xip:Bitstream>`,
      )
      .join("")}
</xip:XIP >
`;
    const zip = await buildZip([
      { name: `${pkgId}/`, dir: true },
      { name: `${pkgId}/content/`, dir: true },
      { name: `${pkgId}/metadata.xml`, data: xip },
      ...files.map((f) => ({ name: `${pkgId}/content/${f.name}`, data: f.data })),
    ]);
    const p = await ingest(users.manager, folder, zip);
    expect(p).toMatchObject({ status: "COMPLETED", total: 2, done: 2 });
    for (const f of files) {
      const a = await readAsset(users.manager, f.io);
      expect(a.title).toBe(f.name.slice(0, -4));
      const bs = a.representations[0]?.contentObjects[0]?.generations[0]?.bitstreams[0];
      expect(bs?.filename).toBe(f.name);
      expect(bs?.bytes.toString()).toBe(f.data);
    }
  });
});
