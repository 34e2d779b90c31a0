import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * What `npm run build` leaves in dist/ (the run's pretest build, or the one before a single file's run): the
 * compiled form of each source file and the bundle, nothing else. npm pack ships all of dist/ (package.json
 * `files`), so a file left there by an earlier build of a source since removed or renamed would ship too, and
 * could even still be loaded; the build starts from an empty dist/ (scripts/clean-dist.mjs) so that it cannot.
 */
const ROOT = resolve(import.meta.dirname, "..");
const COMPILED = ["src", "repository"];

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe("the build's output (dist/)", () => {
  it("holds the compiled sources and the bundle, no file of a source that is gone (npm run build, if not)", () => {
    expect(readdirSync(join(ROOT, "dist")).sort()).toEqual(["bundle", ...COMPILED].sort());
    for (const folder of COMPILED) {
      const produced = filesBelow(join(ROOT, folder))
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
        .flatMap((f) => [f.replace(/\.ts$/, ".js"), f.replace(/\.ts$/, ".js.map")])
        .sort();
      expect(filesBelow(join(ROOT, "dist", folder)), `dist/${folder}`).toEqual(produced);
    }
    expect(filesBelow(join(ROOT, "dist", "bundle")).filter((f) => !f.endsWith(".cjs"))).toEqual([]);
  });
});
