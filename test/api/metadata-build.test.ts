import { describe, expect, it } from "vitest";
import {
  applyFields,
  DUBLIN_CORE,
  diffLine,
  documentFieldSchema,
  entityXml,
  escapeXmlStrict as escapeXml,
  fieldDiff,
  groupFieldSchema,
  InvalidMetadataError,
  identifierXml,
  linkXml,
  metadataContainerXml,
  rootNamespace,
  standaloneDocument,
  xipNamespace,
} from "../../src/api/metadata-build.js";
import { metadataFields } from "../../src/api/metadata-fields.js";
import { checkWellFormed, parseXml } from "../../src/api/xml.js";

const HOSTILE = `A & B <c> "d" 'e' ]]> </oai_dc:dc><x>`;
const XIP = "http://preservica.com/XIP/v7.7";

describe("escaping", () => {
  it("escapes every markup character so a hostile value stays a value", () => {
    const e = escapeXml(HOSTILE);
    expect(e).not.toMatch(/[<>"']|&(?!amp;|lt;|gt;|quot;|apos;)/);
    checkWellFormed(`<a t="${e}">${e}</a>`);
    expect(metadataFields(`<a>${e}</a>`).fields).toEqual([]); // no children: the value is the root's text
  });

  it("refuses characters XML 1.0 cannot carry, naming them", () => {
    expect(() => escapeXml("bell\u0007", "The title")).toThrow(/The title holds the character U\+0007/);
    expect(() => escapeXml("half \uD800 pair")).toThrow(InvalidMetadataError);
    expect(escapeXml("tab\tline\nemoji 😀")).toBe("tab\tline\nemoji 😀");
  });
});

describe("request documents", () => {
  it("builds a save body with the values escaped and an empty Description to clear it", () => {
    const xml = entityXml(XIP, {
      ref: "r1",
      type: "IO",
      title: HOSTILE,
      securityTag: "open",
      parentRef: "p1",
    });
    const doc = parseXml(xml);
    const io = doc.InformationObject as Record<string, unknown>;
    expect(io.Title).toBe(HOSTILE.trim());
    expect(xml).toContain("<Description/>");
    expect(xml).toContain(`xmlns="${XIP}"`);
    expect(xml).toContain("<Parent>p1</Parent>");
    expect(xml).not.toContain("CustomType");
  });

  it("builds identifier, link and container bodies", () => {
    expect(parseXml(identifierXml(XIP, { type: "a<b", value: "]]>", entityRef: "r" }))).toMatchObject({
      Identifier: [{ Type: "a<b", Value: "]]>", Entity: ["r"] }],
    });
    expect(parseXml(linkXml(XIP, { linkType: "t", from: "f", to: "t2" }))).toMatchObject({
      Link: [{ Type: "t", FromEntity: "f", ToEntity: "t2" }],
    });
    const c = metadataContainerXml(XIP, {
      schema: "urn:x&y",
      entityRef: "r",
      mref: "m",
      document: `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<a xmlns="urn:x&amp;y"><b>1</b></a>`,
    });
    checkWellFormed(c);
    expect(c).toContain(`schemaUri="urn:x&amp;y"`);
    expect(c).toContain(`<xip:Ref>m</xip:Ref>`);
    expect(c).not.toContain("<?xml");
  });

  it("refuses documents that are not well-formed or carry a DOCTYPE", () => {
    expect(() => standaloneDocument("<a><b></a>")).toThrow(/not well-formed/);
    expect(() => standaloneDocument(`<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`)).toThrow(/DOCTYPE/);
    expect(() => standaloneDocument("just text")).toThrow(InvalidMetadataError);
    expect(rootNamespace(`<p:a xmlns:p="urn:p"/>`)).toBe("urn:p");
    expect(rootNamespace("<a/>")).toBeUndefined();
  });

  it("picks the XIP namespace of the service's version", () => {
    expect(xipNamespace({ major: 7, minor: 7 })).toBe(XIP);
    expect(xipNamespace({ major: 8, minor: 1 })).toBe("http://preservica.com/XIP/v8.1");
    expect(xipNamespace({ major: 6, minor: 1 })).toBe("http://preservica.com/XIP/v6.0");
  });
});

describe("field maps", () => {
  it("builds a new Dublin Core document in schema order, hostile values escaped", () => {
    const xml = applyFields(DUBLIN_CORE, undefined, {
      rights: "Open",
      creator: [HOSTILE, "Clerk"],
      title: "T",
    });
    checkWellFormed(xml);
    expect(rootNamespace(xml)).toBe("http://www.openarchives.org/OAI/2.0/oai_dc/");
    expect(metadataFields(xml).fields).toEqual([
      { name: "title", value: "T" },
      { name: "creator", value: HOSTILE.trim() },
      { name: "creator", value: "Clerk" },
      { name: "rights", value: "Open" },
    ]);
  });

  it("changes only the named fields of an existing document and keeps the rest verbatim", () => {
    const before = `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:x="urn:other">
  <dc:title>Old</dc:title><dc:creator>A</dc:creator><dc:creator>B</dc:creator><x:note lang="en">keep &amp; me</x:note><dc:rights>R</dc:rights>
</oai_dc:dc>`;
    const after = applyFields(DUBLIN_CORE, before, {
      title: "New",
      creator: "C",
      rights: null,
      subject: "S",
    });
    expect(metadataFields(after).fields).toEqual([
      { name: "title", value: "New" },
      { name: "creator", value: "C" },
      { name: "subject", value: "S" },
      { name: "note@lang", value: "en" },
      { name: "note", value: "keep & me" },
    ]);
    expect(fieldDiff(before, after).map((c) => diffLine(c))).toEqual([
      'title: "Old" → "New"',
      'creator: "A", "B" → "C"',
      'subject: (none) → "S"',
      'rights: "R" → (none)',
    ]);
  });

  it("declares the field namespace when a document lacks it, and uses the document's own prefix", () => {
    const own = `<d xmlns="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:e="http://purl.org/dc/elements/1.1/"><e:title>t</e:title></d>`;
    expect(applyFields(DUBLIN_CORE, own, { date: "1850" })).toContain("<e:date>1850</e:date>");
    const bare = `<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/"/>`;
    const out = applyFields(DUBLIN_CORE, bare, { date: "1850" });
    expect(out).toContain(`xmlns:dc="http://purl.org/dc/elements/1.1/"`);
    expect(metadataFields(out).fields).toEqual([{ name: "date", value: "1850" }]);
  });

  it("refuses unknown fields, nested documents and broken group rules", () => {
    expect(() => applyFields(DUBLIN_CORE, undefined, { colour: "red" })).toThrow(
      /"colour" is not a field of .*; its fields: title, creator/,
    );
    expect(() => applyFields(DUBLIN_CORE, "<a><b><c>1</c></b></a>", { title: "x" })).toThrow(
      /cannot be edited field by field/,
    );
    const group = groupFieldSchema({
      schemaUri: "http://www.preservica.com/metadata/group/accession",
      fields: [
        { id: "number", maxOccurs: 1 },
        { id: "status", values: ["open", "closed"] },
        { id: "notes", maxOccurs: -1 },
      ],
    });
    expect(() => applyFields(group, undefined, { number: ["1", "2"] })).toThrow(/at most 1 value/);
    expect(() => applyFields(group, undefined, { status: "lost" })).toThrow(/one of: open, closed/);
    const doc = applyFields(group, undefined, { notes: ["a", "b"], number: "ACC-1" });
    expect(doc).toMatch(/^<accession xmlns="http:\/\/www\.preservica\.com\/metadata\/group\/accession">/);
    expect(metadataFields(doc).fields.map((f) => f.name)).toEqual(["number", "notes", "notes"]);
  });

  it("edits a document of an unknown schema by the fields it already has", () => {
    const acc = `<accession xmlns="urn:acc" note="1 &amp; 2"><number>1</number><extent>2 boxes</extent></accession>`;
    const spec = documentFieldSchema("urn:acc", acc);
    expect(spec.fields).toEqual(["number", "extent"]);
    const out = applyFields(spec, acc, { extent: "3 < 4" });
    expect(out).toContain(`note="1 &amp; 2"`);
    expect(metadataFields(out).fields).toContainEqual({ name: "extent", value: "3 < 4" });
    expect(() => applyFields(spec, acc, { depositor: "x" })).toThrow(/its fields: number, extent/);
  });
});
