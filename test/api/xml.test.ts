import { describe, expect, it } from "vitest";
import { readChildren, readEntity, readMetadata } from "../../src/api/entity.js";
import {
  all,
  attr,
  childText,
  decodeXmlText,
  innerXml,
  one,
  parseXml,
  rootOf,
  text,
} from "../../src/api/xml.js";

function doc(version: string, prefix = "xip") {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<EntityResponse xmlns="http://preservica.com/EntityAPI/v${version}" xmlns:${prefix}="http://preservica.com/XIP/v${version}">
  <${prefix}:InformationObject>
    <${prefix}:Ref>7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f</${prefix}:Ref>
    <${prefix}:Title>Minutes &amp; accounts 1850</${prefix}:Title>
    <${prefix}:Description/>
    <${prefix}:SecurityTag>open</${prefix}:SecurityTag>
    <${prefix}:Parent>0b6c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3</${prefix}:Parent>
  </${prefix}:InformationObject>
  <AdditionalInformation>
    <Self>http://h/api/entity/information-objects/7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f</Self>
    <Metadata>
      <Fragment schema="http://www.openarchives.org/OAI/2.0/oai_dc/">http://h/api/entity/information-objects/7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f/metadata/11111111-2222-4333-8444-555555555555</Fragment>
    </Metadata>
  </AdditionalInformation>
</EntityResponse>`;
}

describe("XML reading", () => {
  it("reads v6.2 and v7.7 entity documents the same, whatever the prefix", () => {
    const a = readEntity(parseXml(doc("6.2")));
    const b = readEntity(parseXml(doc("7.7", "x")));
    const c = readEntity(parseXml(doc("8.1")));
    expect(a).toEqual(b);
    expect(a).toEqual(c);
    expect(a).toEqual({
      ref: "7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f",
      type: "IO",
      title: "Minutes & accounts 1850",
      securityTag: "open",
      parentRef: "0b6c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3",
      fragments: [
        {
          mref: "11111111-2222-4333-8444-555555555555",
          schema: "http://www.openarchives.org/OAI/2.0/oai_dc/",
          url: "http://h/api/entity/information-objects/7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f/metadata/11111111-2222-4333-8444-555555555555",
        },
      ],
    });
  });

  it("keeps values as strings and lists as arrays even with one member", () => {
    const d = parseXml(
      `<ChildrenResponse xmlns="http://preservica.com/EntityAPI/v7.7"><Children><Child title="1850" ref="00012" type="SO">u</Child></Children><Paging><TotalResults>1</TotalResults></Paging></ChildrenResponse>`,
    );
    const root = rootOf(d);
    expect(root.name).toBe("ChildrenResponse");
    const children = root.el.Children as unknown as { Child: unknown[] };
    expect(Array.isArray(children.Child)).toBe(true);
    expect(readChildren(d)).toEqual({ items: [{ ref: "00012", type: "SO", title: "1850" }], total: 1 });
  });

  it("does not expand entities declared in a DOCTYPE (billion laughs)", () => {
    const lol = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<Root><Title>&lol9;</Title><Plain a="&lol;">x &lt; y</Plain></Root>`;
    const started = Date.now();
    const root = rootOf(parseXml(lol)).el;
    expect(childText(root, "Title")).toBe("&lol9;");
    expect(attr(one(root, "Plain"), "a")).toBe("&lol;");
    expect(text(one(root, "Plain"))).toBe("x < y");
    expect(Date.now() - started).toBeLessThan(500);
  });

  it("does not resolve external entities", () => {
    const xxe = `<?xml version="1.0"?>
<!DOCTYPE r [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> <!ENTITY net SYSTEM "http://127.0.0.1:1/x"> ]>
<r><v>&xxe;</v><w>&net;</w></r>`;
    // Refused outright, before anything could be read or fetched.
    expect(() => parseXml(xxe)).toThrow(/external entities/i);
    const internalOnly = `<!DOCTYPE r [ <!ENTITY secret "expanded"> ]><r><v>&secret;</v></r>`;
    expect(childText(rootOf(parseXml(internalOnly)).el, "v")).toBe("&secret;");
  });

  it("decodes the predefined entities and valid character references once", () => {
    expect(decodeXmlText("&amp;lt; &#65;&#x42; &quot;&apos; &#0; &#xD800; &nope;")).toBe(
      `&lt; AB "' &#0; &#xD800; &nope;`,
    );
  });

  it("rejects documents that are not XML", () => {
    expect(() => parseXml("<a><b></a>")).toThrow(/not well-formed|XML/);
  });

  it("gives a metadata fragment's document verbatim, standing alone", () => {
    const raw = `<?xml version="1.0"?><MetadataResponse xmlns="http://preservica.com/EntityAPI/v7.7" xmlns:xip="http://preservica.com/XIP/v7.7" xmlns:dc="http://purl.org/dc/elements/1.1/"><xip:MetadataContainer schemaUri="http://www.openarchives.org/OAI/2.0/oai_dc/"><xip:Ref>11111111-2222-4333-8444-555555555555</xip:Ref><xip:Entity>7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f</xip:Entity><xip:Content><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/">
  <dc:title>Minutes &amp; accounts</dc:title>
  <dc:description>Nested <![CDATA[<raw>]]> text</dc:description>
</oai_dc:dc></xip:Content></xip:MetadataContainer><AdditionalInformation><Self>u</Self></AdditionalInformation></MetadataResponse>`;
    const m = readMetadata(parseXml(raw), raw);
    expect(m.mref).toBe("11111111-2222-4333-8444-555555555555");
    expect(m.schema).toBe("http://www.openarchives.org/OAI/2.0/oai_dc/");
    expect(m.entityRef).toBe("7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f");
    expect(
      m.document,
    ).toBe(`<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:title>Minutes &amp; accounts</dc:title>
  <dc:description>Nested <![CDATA[<raw>]]> text</dc:description>
</oai_dc:dc>`);
    // It parses on its own.
    expect(all(rootOf(parseXml(m.document)).el, "title")).toHaveLength(1);
  });

  it("gives escaped and empty fragment content as text", () => {
    const wrap = (inner: string) =>
      `<R xmlns:x="urn:x"><x:MetadataContainer><x:Content>${inner}</x:Content></x:MetadataContainer></R>`;
    expect(innerXml(wrap("not &lt;xml"), "MetadataContainer", "Content")).toBe("not <xml");
    expect(innerXml(wrap(""), "MetadataContainer", "Content")).toBe("");
    expect(
      innerXml(`<R><MetadataContainer><Content/></MetadataContainer></R>`, "MetadataContainer", "Content"),
    ).toBe("");
    expect(innerXml("<R/>", "MetadataContainer", "Content")).toBeUndefined();
  });
});
