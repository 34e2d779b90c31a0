import { describe, expect, it } from "vitest";
import { checkEntryName } from "../../../repository/ingest/entry-names.js";

/** The zip-slip check of entry names, case by case (the whole package is refused on any problem). */
describe("checkEntryName", () => {
  it("normalises safe names: separators, empty and . segments, directory entries", () => {
    expect(checkEntryName("a/b/c.txt")).toEqual({ path: "a/b/c.txt", directory: false });
    expect(checkEntryName("./a//b/./c.txt")).toEqual({ path: "a/b/c.txt", directory: false });
    expect(checkEntryName("a\\b\\c.txt")).toEqual({ path: "a/b/c.txt", directory: false });
    expect(checkEntryName("folder/")).toEqual({ path: "folder", directory: true });
    expect(checkEntryName("naïve café/…dots...txt")).toEqual({
      path: "naïve café/…dots...txt",
      directory: false,
    });
    expect(checkEntryName("..hidden/x..y")).toEqual({ path: "..hidden/x..y", directory: false });
  });

  it.each([
    ["../evil", /leads out of the package/],
    ["a/../../evil", /leads out of the package/],
    ["a/b/..", /leads out of the package/],
    ["a\\..\\..\\evil", /leads out of the package/],
    ["/etc/passwd", /absolute path/],
    ["\\\\server\\share\\evil", /absolute path/],
    ["\\evil", /absolute path/],
    ["C:/Windows/evil", /drive letter/],
    ["c:evil", /drive letter/],
    ["bad\u0000name", /control characters/],
    ["new\nline", /control characters/],
    [`${"x".repeat(256)}/a`, /longer than 255/],
  ])("refuses %j", (name, problem) => {
    const r = checkEntryName(name);
    expect("problem" in r && r.problem).toMatch(problem);
  });
});
