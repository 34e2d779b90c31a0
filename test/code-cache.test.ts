import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codeCacheDir } from "../src/cli/code-cache.js";

// What the cache does to a start is tested on the real bundle (test/cli-bundle.test.ts); here, where it goes.
describe("codeCacheDir", () => {
  const leaf = join("preservation-mcp", `v8-${process.version}-${process.arch}`);

  it("follows XDG_CACHE_HOME wherever it is set", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(codeCacheDir({ XDG_CACHE_HOME: "/x/cache", LOCALAPPDATA: "C:\\L" }, platform)).toBe(
        join("/x/cache", leaf),
      );
    }
  });

  it("uses each platform's per-user cache folder otherwise, never a shared temporary one", () => {
    expect(codeCacheDir({}, "linux")).toBe(join(homedir(), ".cache", leaf));
    expect(codeCacheDir({}, "darwin")).toBe(join(homedir(), "Library", "Caches", leaf));
    expect(codeCacheDir({ LOCALAPPDATA: "C:\\Users\\a\\AppData\\Local" }, "win32")).toBe(
      join("C:\\Users\\a\\AppData\\Local", leaf),
    );
    // An empty XDG_CACHE_HOME counts as unset, as the XDG specification says.
    expect(codeCacheDir({ XDG_CACHE_HOME: "" }, "linux")).toBe(join(homedir(), ".cache", leaf));
  });
});
