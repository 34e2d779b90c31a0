import { describe, expect, it } from "vitest";
import { metadataFields } from "../../../src/api/metadata-fields.js";
import { XmlParseError } from "../../../src/api/xml.js";
import { UserInputError } from "../../../src/tools/define.js";
import { decodeCursor, encodeCursor, pageFacts, queryHash } from "../../../src/tools/support/cursor.js";
import { toInstant } from "../../../src/tools/support/dates.js";
import { incompleteTail, leadingContinuation, looksLikeText } from "../../../src/tools/support/file-text.js";
import { schemaMatches, schemaName } from "../../../src/tools/support/schemas.js";

describe("metadata documents as fields", () => {
  it("keeps document order, interleaved repeats included, with local names", () => {
    const xml = `<?xml version="1.0"?>
      <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <dc:subject>B</dc:subject><dc:title>T</dc:title><dc:subject>A</dc:subject><dc:subject/>
      </oai_dc:dc>`;
    expect(metadataFields(xml)).toEqual({
      root: "dc",
      fields: [
        { name: "subject", value: "B" },
        { name: "title", value: "T" },
        { name: "subject", value: "A" },
      ],
    });
  });

  it("names nested elements by path and attributes with @, leaving namespace declarations out", () => {
    const xml = `<rec xmlns="urn:x" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="r1">
      <date xsi:type="W3CDTF">1858</date><place><town>Harbour Town</town><county>Cornwall &amp; Scilly</county></place></rec>`;
    expect(metadataFields(xml).fields).toEqual([
      { name: "@id", value: "r1" },
      { name: "date@type", value: "W3CDTF" },
      { name: "date", value: "1858" },
      { name: "place/town", value: "Harbour Town" },
      { name: "place/county", value: "Cornwall & Scilly" },
    ]);
  });

  it("never expands declared entities, and refuses what is not XML", () => {
    const xml = `<!DOCTYPE r [<!ENTITY boom "BOOM">]><r><a>&boom;</a></r>`;
    expect(metadataFields(xml).fields).toEqual([{ name: "a", value: "&boom;" }]);
    expect(() => metadataFields("<r><a></r>")).toThrow(XmlParseError);
  });
});

describe("dates", () => {
  it("turns periods into their first or last instant", () => {
    expect(toInstant("2025", "start", "x")).toBe("2025-01-01T00:00:00.000Z");
    expect(toInstant("2025", "end", "x")).toBe("2025-12-31T23:59:59.999Z");
    expect(toInstant("2024-02", "end", "x")).toBe("2024-02-29T23:59:59.999Z");
    expect(toInstant("2025-07-15", "end", "x")).toBe("2025-07-15T23:59:59.999Z");
    expect(toInstant("2025-07-15T12:00:00+02:00", "end", "x")).toBe("2025-07-15T10:00:00.000Z");
    expect(toInstant("2025-07-15T12:00", "start", "x")).toBe("2025-07-15T12:00:00.000Z");
  });

  it("refuses what is not a date", () => {
    for (const bad of ["2025-13", "2025-02-30", "July 2025", "", "2025-07-15T25:00:00Z"]) {
      expect(() => toInstant(bad, "start", "from"), bad).toThrow(UserInputError);
    }
  });
});

describe("cursors", () => {
  it("round-trip an offset for the same question whatever the page size or key order", () => {
    const a = queryHash("search", { query: "maps", type: "asset", limit: 5 });
    const b = queryHash("search", { type: "asset", query: "maps", limit: 50, cursor: "x" });
    expect(a).toBe(b);
    expect(decodeCursor(encodeCursor(40, a), b)).toBe(40);
    expect(decodeCursor(undefined, a)).toBe(0);
    expect(() => decodeCursor(encodeCursor(40, a), queryHash("search", { query: "plans" }))).toThrow(
      /different question/,
    );
    expect(() => decodeCursor(Buffer.from('{"o":-1,"h":"x"}').toString("base64url"), a)).toThrow(
      /not one this tool/,
    );
  });

  it("report more only when more remain", () => {
    expect(pageFacts(0, 20, 45, "h")).toMatchObject({ total: 45, hasMore: true });
    expect(pageFacts(40, 5, 45, "h")).toEqual({ total: 45, hasMore: false });
    expect(pageFacts(60, 0, 45, "h")).toEqual({ total: 45, hasMore: false });
  });
});

describe("schema names", () => {
  it("uses the usual prefix for known schemas and the last meaningful segment for others", () => {
    expect(schemaName("http://www.openarchives.org/OAI/2.0/oai_dc/")).toBe("oai_dc");
    expect(schemaName("http://harbourtown.example.org/schema/accession/v1")).toBe("accession");
    expect(schemaName("http://www.loc.gov/mods/v3")).toBe("mods");
    expect(schemaName("http://example.org/ns/Photo.xsd")).toBe("photo");
    expect(schemaMatches("http://www.openarchives.org/OAI/2.0/oai_dc/", "OAI_DC")).toBe(true);
    expect(
      schemaMatches(
        "http://www.openarchives.org/OAI/2.0/oai_dc/",
        "http://www.openarchives.org/OAI/2.0/oai_dc",
      ),
    ).toBe(true);
  });
});

describe("text files", () => {
  it("knows text by name or PRONOM id, and finds UTF-8 sequences cut at either end", () => {
    expect(looksLikeText("a.CSV", [])).toBe(true);
    expect(looksLikeText("data", [{ puid: "fmt/101" }])).toBe(true);
    expect(looksLikeText("scan.tif", [{ puid: "fmt/353" }])).toBe(false);
    const ship = Buffer.from("a🚢", "utf8"); // 1 + 4 bytes
    expect(incompleteTail(ship.subarray(0, 3))).toBe(2);
    expect(incompleteTail(ship)).toBe(0);
    expect(leadingContinuation(ship.subarray(2))).toBe(3);
  });
});
