import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { LONG_AGO, signIn, type Users } from "../writes/write-helpers.js";
import {
  buildZip,
  children,
  E,
  fragmentsOf,
  hash,
  identifiersOf,
  ingest,
  progressErrors,
  readAsset,
} from "./ingest-helpers.js";

/**
 * OPEX packages: folder and file manifests give titles, descriptions, security tags, identifiers,
 * Dublin Core and other descriptive metadata, and fixities checked against the bytes; a PAX folder is
 * one asset with preservation and access representations. Read back through the Entity API and found
 * by the Content API search.
 */

let repo: RunningRepository;
let users: Users;
let target: string;

const OPEX = "http://www.openpreservationexchange.org/opex/v1.2";
const DC = `xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"`;

const LETTER = "Dear Sir, the schooner Kestrel arrived on the morning tide.\n";
const REPLY = "Thank you for your letter of the 3rd.\n";
const TIFF = Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00]), Buffer.alloc(3000, 9)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(900, 3)]);

function manifest(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<opex:OPEXMetadata xmlns:opex="${OPEX}">${body}</opex:OPEXMetadata>`;
}

beforeAll(async () => {
  repo = await startTestRepository();
  users = await signIn(repo);
  target = insertEntity(repo.svc.db, {
    type: "SO",
    title: "OPEX deposits",
    securityTag: "open",
    created: LONG_AGO,
  }).ref;
});

afterAll(async () => {
  await repo?.close();
});

describe("an OPEX package", () => {
  it("carries titles, descriptions, tags, identifiers, metadata and checked fixities onto the entities", async () => {
    const zip = await buildZip([
      {
        name: "ACC-17/ACC-17.opex",
        data: manifest(`
          <opex:Transfer><opex:Manifest>
            <opex:Files><opex:File type="content" size="${LETTER.length}">letter.txt</opex:File>
              <opex:File type="metadata">letter.txt.opex</opex:File></opex:Files>
            <opex:Folders><opex:Folder>Letters</opex:Folder><opex:Folder>Survey.pax</opex:Folder></opex:Folders>
          </opex:Manifest></opex:Transfer>
          <opex:Properties>
            <opex:Title>Accession 2024/17: Harbour master's papers</opex:Title>
            <opex:Description>Papers deposited by the harbour master's office</opex:Description>
            <opex:SecurityDescriptor>staff</opex:SecurityDescriptor>
            <opex:Identifiers><opex:Identifier type="accession">2024/17</opex:Identifier></opex:Identifiers>
          </opex:Properties>
          <opex:DescriptiveMetadata>
            <oai_dc:dc ${DC}><dc:title>Harbour master's papers</dc:title><dc:creator>Harbour Master's Office</dc:creator></oai_dc:dc>
          </opex:DescriptiveMetadata>`),
      },
      { name: "ACC-17/letter.txt", data: LETTER },
      {
        name: "ACC-17/letter.txt.opex",
        data: manifest(`
          <opex:Transfer><opex:SourceID>L-001</opex:SourceID><opex:Fixities>
            <opex:Fixity type="SHA-256" value="${hash("sha256", LETTER).toUpperCase()}"/>
            <opex:Fixity type="MD5" value="${hash("md5", LETTER)}"/>
          </opex:Fixities></opex:Transfer>
          <opex:Properties>
            <opex:Title>Letter on the arrival of the Kestrel</opex:Title>
            <opex:Description>Letter to the harbour board</opex:Description>
            <opex:SecurityDescriptor>closed</opex:SecurityDescriptor>
            <opex:Identifiers><opex:Identifier type="code">L-001</opex:Identifier><opex:Identifier type="ref">HB/7/1</opex:Identifier></opex:Identifiers>
          </opex:Properties>
          <opex:DescriptiveMetadata>
            <oai_dc:dc ${DC}><dc:title>Arrival of the Kestrel</dc:title><dc:creator>Captain Obadiah Quill</dc:creator><dc:date>1887-04-03</dc:date></oai_dc:dc>
            <rec:record xmlns:rec="http://example.org/accession/v1"><rec:box>7</rec:box></rec:record>
            <LegacyXIP xmlns="http://preservica.com/LegacyXIP"><Virtual>false</Virtual></LegacyXIP>
          </opex:DescriptiveMetadata>`),
      },
      {
        name: "ACC-17/Letters/Letters.opex",
        data: manifest("<opex:Properties><opex:Title>Correspondence</opex:Title></opex:Properties>"),
      },
      { name: "ACC-17/Letters/reply.txt", data: REPLY },
      {
        name: "ACC-17/Survey.pax.opex",
        data: manifest(`
          <opex:Transfer><opex:Fixities>
            <opex:Fixity type="SHA-1" value="${hash("sha1", TIFF)}" path="Representation_Preservation/survey.tif"/>
            <opex:Fixity type="SHA-512" value="${hash("sha512", JPEG)}" path="Representation_Access/survey.jpg"/>
          </opex:Fixities></opex:Transfer>
          <opex:Properties><opex:Title>Survey of the east quay</opex:Title></opex:Properties>`),
      },
      { name: "ACC-17/Survey.pax/Representation_Preservation/survey.tif", data: TIFF },
      { name: "ACC-17/Survey.pax/Representation_Access/survey.jpg", data: JPEG },
      // A content object folder with two generations, as this service's own export writes them.
      {
        name: "ACC-17/Quay plan.pax/Representation_Preservation/plan/Generation_1/plan-1901.txt",
        data: "first draft",
      },
      {
        name: "ACC-17/Quay plan.pax/Representation_Preservation/plan/Generation_2/plan-1902.txt",
        data: "as built",
      },
    ]);
    const p = await ingest(users.curator, target, zip);
    expect(p).toMatchObject({ status: "COMPLETED", total: 6, done: 6, failed: 0 });

    const top = await children(users.curator, target);
    const acc = top.get("Accession 2024/17: Harbour master's papers");
    expect(acc?.type).toBe("SO");
    const folderXml = await (await users.curator(`${E}/structural-objects/${acc?.ref}`)).text();
    expect(folderXml).toContain(
      "<xip:Description>Papers deposited by the harbour master's office</xip:Description>",
    );
    expect(folderXml).toContain("<xip:SecurityTag>staff</xip:SecurityTag>");
    expect(await identifiersOf(users.curator, "structural-objects", acc?.ref as string)).toEqual([
      ["accession", "2024/17"],
    ]);
    const folderFragments = await fragmentsOf(users.curator, "structural-objects", acc?.ref as string);
    expect(folderFragments.map((f) => f.schema)).toEqual(["http://www.openarchives.org/OAI/2.0/oai_dc/"]);
    expect(folderFragments[0]?.xml).toContain("Harbour Master's Office");

    const inAcc = await children(users.curator, acc?.ref as string);
    expect([...inAcc.keys()].sort()).toEqual([
      "Correspondence",
      "Letter on the arrival of the Kestrel",
      "Quay plan",
      "Survey of the east quay",
    ]);

    const letter = await readAsset(
      users.curator,
      inAcc.get("Letter on the arrival of the Kestrel")?.ref as string,
    );
    expect(letter).toMatchObject({ description: "Letter to the harbour board", tag: "closed" });
    const letterBs = letter.representations[0]?.contentObjects[0]?.generations[0]?.bitstreams[0];
    expect(letterBs?.bytes.toString()).toBe(LETTER);
    expect(letterBs).toMatchObject({ filename: "letter.txt", originalName: "letter.txt" });
    expect(letterBs?.fixity.SHA256).toBe(hash("sha256", LETTER));
    expect(await identifiersOf(users.curator, "information-objects", letter.ref)).toEqual([
      ["code", "L-001"],
      ["ref", "HB/7/1"],
    ]);
    const frags = await fragmentsOf(users.curator, "information-objects", letter.ref);
    // Preservica's own LegacyXIP bookkeeping is not descriptive metadata and is not kept.
    expect(frags.map((f) => f.schema)).toEqual([
      "http://www.openarchives.org/OAI/2.0/oai_dc/",
      "http://example.org/accession/v1",
    ]);
    expect(frags[0]?.xml).toContain("Captain Obadiah Quill");
    expect(frags[1]?.xml).toContain("<rec:box>7</rec:box>");

    // The folder without a tag of its own takes its parent's; so do its assets.
    const corr = inAcc.get("Correspondence");
    const inCorr = await children(users.curator, corr?.ref as string);
    const reply = await readAsset(users.curator, inCorr.get("reply.txt")?.ref as string);
    expect(reply.tag).toBe("staff");
    expect(reply.representations[0]?.contentObjects[0]?.generations[0]?.bitstreams[0]?.bytes.toString()).toBe(
      REPLY,
    );

    // The PAX folder is one asset: a preservation and an access representation, one content object each.
    const survey = await readAsset(users.curator, inAcc.get("Survey of the east quay")?.ref as string);
    // Named as the real service names them: type and place among the asset's representations.
    expect(survey.representations.map((r) => [r.type, r.name]).sort()).toEqual([
      ["Access", "Access-2"],
      ["Preservation", "Preservation-1"],
    ]);
    const rep = (type: string) => survey.representations.find((r) => r.type === type);
    const tif = rep("Preservation")?.contentObjects[0];
    expect(tif?.title).toBe("survey.tif");
    expect(tif?.generations[0]).toMatchObject({ puid: "fmt/353" });
    expect(tif?.generations[0]?.bitstreams[0]?.bytes.equals(TIFF)).toBe(true);
    expect(rep("Access")?.contentObjects[0]?.generations[0]?.bitstreams[0]?.bytes.equals(JPEG)).toBe(true);

    const plan = await readAsset(users.curator, inAcc.get("Quay plan")?.ref as string);
    const planCo = plan.representations[0]?.contentObjects[0];
    expect(planCo?.title).toBe("plan");
    expect(
      planCo?.generations.map((g) => [g.original, g.active, g.bitstreams.map((b) => b.bytes.toString())]),
    ).toEqual([
      [true, false, ["first draft"]],
      [false, true, ["as built"]],
    ]);

    // Found by the Content API: by Dublin Core text, and as the staff/closed tags allow.
    const found = async (who: typeof users.curator, q: string) =>
      (
        (await (await who(`/api/content/search?q=${encodeURIComponent(q)}&max=10`)).json()) as {
          value: { objectIds: string[] };
        }
      ).value.objectIds;
    expect(await found(users.curator, "Obadiah Quill")).toEqual([`sdb:IO|${letter.ref}`]);
    expect(await found(users.reader, "Obadiah Quill")).toEqual([]);
    const byCreator = await users.curator(
      `/api/content/search?q=${encodeURIComponent(JSON.stringify({ q: "", fields: [{ name: "oai_dc.creator", values: ["Captain Obadiah Quill"] }] }))}`,
    );
    expect(((await byCreator.json()) as { value: { objectIds: string[] } }).value.objectIds).toEqual([
      `sdb:IO|${letter.ref}`,
    ]);
  });

  it("fails the items it cannot ingest, naming them, and ingests the rest (FINISHED_MIXED_OUTCOME)", async () => {
    const GOOD = "good bytes\n";
    const zip = await buildZip([
      {
        name: "Mixed/Mixed.opex",
        data: manifest(`<opex:Transfer><opex:Manifest><opex:Files>
            <opex:File type="content">good.txt</opex:File><opex:File type="content">promised.txt</opex:File>
          </opex:Files></opex:Manifest></opex:Transfer>`),
      },
      { name: "Mixed/good.txt", data: GOOD },
      {
        name: "Mixed/good.txt.opex",
        data: manifest(
          `<opex:Transfer><opex:Fixities><opex:Fixity type="SHA-256" value="${hash("sha256", GOOD)}"/></opex:Fixities></opex:Transfer>`,
        ),
      },
      { name: "Mixed/secret.txt", data: "secret" },
      {
        name: "Mixed/secret.txt.opex",
        data: manifest(
          "<opex:Properties><opex:SecurityDescriptor>top-secret</opex:SecurityDescriptor></opex:Properties>",
        ),
      },
      { name: "Mixed/odd.txt", data: "odd" },
      {
        name: "Mixed/odd.txt.opex",
        data: manifest(
          `<opex:Transfer><opex:Fixities><opex:Fixity type="CRC32" value="abcd1234"/></opex:Fixities></opex:Transfer>`,
        ),
      },
      {
        name: "Mixed/Locked/Locked.opex",
        data: manifest(
          "<opex:Properties><opex:SecurityDescriptor>no-such-tag</opex:SecurityDescriptor></opex:Properties>",
        ),
      },
      { name: "Mixed/Locked/inner.txt", data: "inner" },
    ]);
    const p = await ingest(users.curator, target, zip);
    expect(p).toMatchObject({ status: "FINISHED_MIXED_OUTCOME", total: 5, done: 1, failed: 4 });
    const errors = await progressErrors(users.curator, p.id);
    expect(errors).toHaveLength(4);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Mixed\/secret\.txt: security tag "top-secret" does not exist; use one of: /),
        expect.stringMatching(
          /^Mixed\/odd\.txt: Mixed\/odd\.txt\.opex declares a "CRC32" fixity, which this service does not check/,
        ),
        expect.stringMatching(
          /^Mixed\/Locked\/inner\.txt: not ingested because its folder Mixed\/Locked\/ is not \(Mixed\/Locked\/: security tag "no-such-tag" does not exist/,
        ),
        "Mixed/promised.txt is listed in the manifest Mixed/Mixed.opex but is not in the package",
      ]),
    );
    const mixed = await children(
      users.curator,
      (await children(users.curator, target)).get("Mixed")?.ref as string,
    );
    expect([...mixed.keys()]).toEqual(["good.txt"]);
  });
});
