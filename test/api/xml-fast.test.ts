import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeXmlText, LIST_ELEMENTS, parseXml, parseXmlFully } from "../../src/api/xml.js";
import { parsePlainXml } from "../../src/api/xml-fast.js";
import { propertyRuns } from "../helpers/property-runs.js";

/** Generated documents compared with the full parser. */
const RUNS = propertyRuns(500, 5000);

const fast = (xml: string) => parsePlainXml(xml, decodeXmlText, (n) => LIST_ELEMENTS.has(n));
const full = (xml: string): unknown => {
  try {
    return parseXmlFully(xml);
  } catch (err) {
    return `error: ${(err as Error).name}`;
  }
};

describe("the one-pass XML fast path", () => {
  it("builds the same tree as the validator and parser on the shapes the service sends", () => {
    const docs = [
      `<a x="1"/>`,
      `<a x="1"></a>`,
      `<a x=" 1 ">  t  </a>`,
      `<a>  </a>`,
      `<a></a>`,
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<R xmlns="u" xmlns:x="v"><x:Children><x:Child ref="1" title="a &amp; b" type="SO">http://h/u</x:Child></x:Children><Paging><TotalResults>1</TotalResults></Paging></R>`,
      `<a><b>1</b><b>2</b><c/><b>3</b></a>`,
      `<a>x &lt; y &#65; &#x42; &nope; &#0;</a>`,
      `<!-- c --><a/>\n<!-- d -->\n`,
      `<Entity/>`,
      `<a><Child x="1">t</Child></a>`,
      `\uFEFF<a q='single "quoted"' r="&quot;&apos;"><b/></a>`,
      `<a><b>0012</b><c>1850</c><d>true</d></a>`,
      `<x:a><x:b>\u00a0v\u000b</x:b><c> \u00a0 </c></x:a>`, // trimmed as String.prototype.trim does
      `<!-- a - b --><a/>`,
    ];
    for (const doc of docs) {
      const f = fast(doc);
      expect(f, doc).toBeDefined();
      expect(f, doc).toEqual(full(doc));
    }
  });

  it("leaves documents that are not well-formed, or outside its subset, to the full parser", () => {
    const refused = [
      "<a><b></a>", // mismatched
      "<a><b>x</b>", // cut off
      "<a><b>x</b></a><c/>", // two roots
      "<a/>trailing",
      "<a x='1' x='2'/>",
      "<a x=1/>",
      "<a>&</a>",
      "<a b='<'/>",
      "<a>x</A>",
      "<x:a></y:a>", // end tags name the same prefix and local name, and nothing more
      "<x:a></x:ab>",
      "<x:a></a>",
      "<a></x:a>",
      "<!-- a -- b --><a/>",
      "<a><b></b",
      "<1a/>",
      "<a><![CDATA[x]]></a>",
      "<a>text <b/> more</a>",
      `<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`,
      "<a><!-- inside --></a>",
      "<a><?pi x?></a>",
      "<a xml:lang='en'/>",
      "<a:b:c/>",
      "<a><__proto__>x</__proto__></a>",
      "<a><constructor>x</constructor></a>",
      "<a><toString/></a>",
      "<a valueOf='1'/>",
      "hello",
      "",
    ];
    for (const doc of refused) expect(fast(doc), doc).toBeUndefined();
    expect(() => parseXml("<a><b></a>")).toThrow(/not well-formed/);
    expect(() => parseXml("<a><b>x</b>")).toThrow(/not well-formed/);
  });

  it("agrees with the full parser on generated documents", () => {
    const name = fc.constantFrom("a", "b", "Child", "x:Title", "Ref", "Entity", "Paging", "y:Fragment");
    const textValue = fc.constantFrom(
      "",
      " ",
      "v",
      " 12 ",
      "a &amp; b",
      "&lt;x&gt;",
      "&#233;",
      "&bad",
      "1850",
    );
    const attrs = fc.uniqueArray(
      fc.tuple(fc.constantFrom("ref", "type", "title", "schema", "xmlns", "xmlns:x"), textValue),
      { selector: (a) => a[0], maxLength: 3 },
    );
    type Tree = { name: string; attrs: [string, string][]; body: Tree[] | string };
    const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
      node: fc.record({
        name,
        attrs,
        body: fc.oneof({ depthSize: "small" }, textValue, fc.array(tie("node"), { maxLength: 4 })),
      }),
    })).node;
    const write = (t: Tree): string => {
      const a = t.attrs.map(([k, v]) => ` ${k}="${v}"`).join("");
      if (typeof t.body === "string")
        return t.body === "" ? `<${t.name}${a}/>` : `<${t.name}${a}>${t.body}</${t.name}>`;
      return `<${t.name}${a}>\n  ${t.body.map(write).join("\n  ")}\n</${t.name}>`;
    };
    let taken = 0;
    fc.assert(
      fc.property(tree, fc.boolean(), (t, decl) => {
        const doc = `${decl ? '<?xml version="1.0"?>\n' : ""}${write(t)}`;
        const f = fast(doc);
        if (f !== undefined) {
          taken++;
          expect(f).toEqual(full(doc));
        }
        // The public parser answers what the full one does, whichever path it took.
        let viaPublic: unknown;
        try {
          viaPublic = parseXml(doc);
        } catch (err) {
          viaPublic = `error: ${(err as Error).name}`;
        }
        expect(viaPublic).toEqual(full(doc));
      }),
      { numRuns: RUNS },
    );
    // Most generated documents are inside the subset, so the comparison above is not vacuous.
    expect(taken).toBeGreaterThan(RUNS / 2);
  });
});
