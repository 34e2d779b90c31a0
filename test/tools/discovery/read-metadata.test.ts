import { describe, expect, it } from "vitest";
import { ACCESSION_SCHEMA, OAI_DC_SCHEMA } from "../../../repository/seed/metadata.js";
import { addFragment } from "../../../repository/store/entities/write.js";
import { metadataUri } from "../../../src/resources/uris.js";
import { textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { assetNode, DEMO, entity, NODES } from "./demo-facts.js";

interface Answer {
  ref: string;
  mref: string;
  schema: string;
  schemaName: string;
  fields?: { name: string; value: string }[];
  xml?: string;
  truncated: boolean;
  size: number;
  uri: string;
}

const values = (a: Answer, name: string) =>
  (a.fields ?? []).filter((f) => f.name === name).map((f) => f.value);

describe("read_metadata", () => {
  const mcp = useMcp({ user: "manager" });
  const reader = useMcp({ user: "reader", repo: mcp.repo });

  it("reads an entity's only fragment as Dublin Core fields, repeated elements in order", async () => {
    const node = assetNode("byeLaw1858");
    const a = await mcp.call<Answer>("read_metadata", { ref: DEMO.refs.byeLaw1858 });
    expect(a).toMatchObject({ schema: OAI_DC_SCHEMA, schemaName: "oai_dc", truncated: false });
    expect(a.uri).toBe(metadataUri(DEMO.refs.byeLaw1858, a.mref));
    expect(values(a, "title")).toEqual([node.title]);
    expect(values(a, "creator")).toEqual([node.creator]);
    expect(values(a, "subject")).toEqual(node.subjects);
    expect(values(a, "date")).toEqual([node.date]);
    expect(values(a, "identifier")[0]).toBe(node.code);
    // Local names, no namespace prefixes, no empty values.
    for (const f of a.fields ?? []) {
      expect(f.name).not.toContain(":");
      expect(f.value).not.toBe("");
    }
  });

  it("gives the same document verbatim as XML", async () => {
    const fields = await mcp.call<Answer>("read_metadata", { ref: DEMO.refs.byeLaw1858 });
    const xml = await mcp.call<Answer>("read_metadata", { ref: DEMO.refs.byeLaw1858, format: "xml" });
    expect(xml.fields).toBeUndefined();
    expect(xml.xml).toMatch(/^<oai_dc:dc /);
    expect(xml.size).toBe(xml.xml?.length);
    const title = assetNode("byeLaw1858").title;
    expect(xml.xml).toContain(`<dc:title>${title}</dc:title>`);
    // Every field value is in the XML, in the same order.
    let at = 0;
    for (const f of fields.fields ?? []) {
      const i = xml.xml?.indexOf(`>${f.value.replaceAll("&", "&amp;")}<`, at) ?? -1;
      expect(i, f.name).toBeGreaterThanOrEqual(at);
      at = i;
    }
  });

  it("picks one of several fragments by schema short name, schema URI or mref", async () => {
    const ref = DEMO.refs.interviewDoyle;
    const none = await mcp.raw("read_metadata", { ref });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toMatch(
      /has 2 fragments; pass mref or schema: oai_dc [0-9a-f-]{36}, accession [0-9a-f-]{36}\./,
    );

    const accession = assetNode("interviewDoyle").accession;
    const byName = await mcp.call<Answer>("read_metadata", { ref, schema: "accession" });
    expect(byName.schema).toBe(ACCESSION_SCHEMA);
    expect(byName.fields).toEqual(Object.entries(accession ?? {}).map(([name, value]) => ({ name, value })));
    const byUri = await mcp.call<Answer>("read_metadata", { ref, schema: ACCESSION_SCHEMA });
    expect(byUri.mref).toBe(byName.mref);
    const byMref = await mcp.call<Answer>("read_metadata", { ref, mref: byName.mref });
    expect(byMref.fields).toEqual(byName.fields);

    const otherMref = await mcp.raw("read_metadata", { ref, mref: "00000000-0000-4000-8000-000000000000" });
    expect(textOf(otherMref)).toMatch(
      /has no fragment 00000000-0000-4000-8000-000000000000; its fragments: oai_dc/,
    );
    const otherSchema = await mcp.raw("read_metadata", { ref, schema: "mods" });
    expect(textOf(otherSchema)).toMatch(
      /has no fragments of schema "mods"; its fragments are: oai_dc .*, accession/,
    );
  });

  it('takes what people call Dublin Core ("Dublin Core", "DC") for the oai_dc fragment', async () => {
    const ref = DEMO.refs.interviewDoyle;
    const oaiDc = await mcp.call<Answer>("read_metadata", { ref, schema: "oai_dc" });
    for (const schema of ["Dublin Core", "dc", "DC", "dublin_core"]) {
      const res = await mcp.call<Answer>("read_metadata", { ref, schema });
      expect(res.mref, schema).toBe(oaiDc.mref);
    }
    // A family name is not a wildcard: the accession record is still not Dublin Core.
    const notDc = await mcp.raw("read_metadata", { ref, schema: "dcterms" });
    expect(textOf(notDc)).toMatch(/has no fragments of schema "dcterms"/);
  });

  it("says so when an entity has no metadata at all", async () => {
    const bare = NODES.find((n) => n.node.kind === "asset" && n.node.dc === false && !n.node.accession);
    expect(bare).toBeDefined();
    const res = await mcp.raw("read_metadata", { ref: bare?.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe(
      `The asset "${entity(bare?.ref as string).title}" has no metadata fragments; its title and description are in \`get_entity\`.`,
    );
  });

  it("cuts a very large document, saying where the whole of it is", async () => {
    const ref = DEMO.refs.photoHerringFleet1905;
    const big = `<notes xmlns="http://example.org/notes">${Array.from({ length: 2000 }, (_, i) => `<note n="${i}">Long note ${i}</note>`).join("")}</notes>`;
    const mref = addFragment(mcp.repo.svc.db, ref, "http://example.org/notes", big);
    const xml = await mcp.raw("read_metadata", { ref, mref, format: "xml" });
    const a = xml.structuredContent as unknown as Answer;
    expect(a.truncated).toBe(true);
    expect(a.xml?.length).toBe(16_000);
    expect(a.size).toBeGreaterThan(16_000);
    expect(textOf(xml)).toMatch(
      /\[cut at 16,000 of [\d,]+ characters; the whole document is the resource preservation:\/\/metadata\//,
    );

    const fields = await mcp.raw("read_metadata", { ref, schema: "notes" });
    const f = fields.structuredContent as unknown as Answer;
    expect(f.fields).toHaveLength(200);
    expect(f.fields?.slice(0, 2)).toEqual([
      { name: "note@n", value: "0" },
      { name: "note", value: "Long note 0" },
    ]);
    expect(f.truncated).toBe(true);
    expect(textOf(fields)).toMatch(/… and 3800 more fields/);
  });

  it("says what to do with a stored document that is not XML, and still shows it verbatim", async () => {
    const ref = DEMO.refs.pdfAsset;
    const notXml = "Accession notes: box 4 <unsorted & undated";
    const mref = addFragment(mcp.repo.svc.db, ref, "urn:example:notes", notXml);
    const fields = await mcp.raw("read_metadata", { ref, mref });
    expect(fields.isError).toBe(true);
    expect(textOf(fields)).toMatch(/not well-formed XML.*format "xml"/);
    const xml = await mcp.call<Answer>("read_metadata", { ref, mref, format: "xml" });
    expect(xml.xml).toBe(notXml);
  });

  it("refuses a reader closed metadata, and explains bad refs", async () => {
    const closed = await reader.raw("read_metadata", { ref: DEMO.refs.closedAsset });
    expect(textOf(closed)).toMatch(/^You do not have permission/);
    const bad = await mcp.raw("read_metadata", { ref: DEMO.refs.byeLaw1858, mref: "dc" });
    expect(textOf(bad)).toMatch(/"dc" is not a ref/);
  });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("read_metadata", { ref: DEMO.refs.byeLaw1858 });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "oai_dc metadata (http://www.openarchives.org/OAI/2.0/oai_dc/) of asset "Bye-laws for the regulation of the Market 1858" a26e292a-febc-41a7-9778-da83cc81b45a, fragment dfdcaeb1-12c0-4dc2-9dae-727f04f9f355 (866 characters):
      title: Bye-laws for the regulation of the Market 1858
      creator: Harbour Town Borough Council
      subject: Bye-laws
      subject: Local government
      description: Bye-laws for the regulation of the Market 1858, made by the Borough Council on 4 May 1858; printed text and a structured transcription.
      publisher: Harbour Town Archives
      date: 1858-05-04
      type: Text
      format: application/pdf
      identifier: HTA/HTC/3/1858
      language: en
      rights: Open. Copyright Harbour Town Council; may be reproduced for private study with acknowledgement."
    `);
  });
});
