import { mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageFileName, sweepPackages } from "../../../repository/ingest/packages.js";
import { createAction } from "../../../repository/store/actions/write.js";
import { openDatabase } from "../../../repository/store/db.js";
import { tempDir } from "../../helpers/temp-dir.js";

/** The packages folder: what a crash leaves there is swept, what an unfinished ingest needs is kept. */

const dir = tempDir("ingest-packages-");

describe("sweepPackages", () => {
  it("removes day-old files no unfinished ingest names, keeps the rest", () => {
    const db = openDatabase(dir);
    const pkgs = join(dir, "packages");
    mkdirSync(join(pkgs, "parts-of-another-route"), { recursive: true });
    const old = (Date.now() - 2 * 24 * 3_600_000) / 1000;
    for (const name of ["waiting.zip", "left-over.zip", "cut-off.zip.part", "fresh.zip.part"]) {
      writeFileSync(join(pkgs, name), "x");
      if (name !== "fresh.zip.part") utimesSync(join(pkgs, name), old, old);
    }
    createAction(
      db,
      { kind: "ingest", username: "curator", params: { package: "waiting.zip" } },
      new Date().toISOString(),
    );
    createAction(
      db,
      { kind: "ingest", username: "curator", status: "COMPLETED", params: { package: "left-over.zip" } },
      new Date().toISOString(),
    );
    sweepPackages(db, dir);
    expect(readdirSync(pkgs).sort()).toEqual(["fresh.zip.part", "parts-of-another-route", "waiting.zip"]);
    db.close();
  });

  it("takes only files directly in the packages folder as an ingest's package", () => {
    expect(packageFileName(dir, join(dir, "packages", "a.zip"))).toBe("a.zip");
    expect(() => packageFileName(dir, join(dir, "elsewhere.zip"))).toThrow(/must lie directly in/);
    expect(() => packageFileName(dir, join(dir, "packages", "sub", "a.zip"))).toThrow(/must lie directly in/);
  });
});
