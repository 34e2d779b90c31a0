import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "./support.js";

interface Answer {
  format?: {
    puid: string;
    name: string;
    mimeTypes: string[];
    families: string[];
    ruleSets: { name: string; businessRules: string[] }[];
    migration: { profile: string; action: string; target: string | null }[];
  };
  formatsTotal: number;
  ruleSets: { name: string; rules: number; formats: string[] }[];
}

/** Nothing here writes: both eras read one repository. */
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("format_registry (%s)", (era) => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });

  it("looks a format up by PUID with its rule sets and the live migration profiles that name it", async () => {
    const res = await mcp.raw("format_registry", { puid: "fmt/18" });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.format).toMatchObject({
      puid: "fmt/18",
      name: "Acrobat PDF 1.4 - Portable Document Format",
      mimeTypes: ["application/pdf"],
      families: ["document"],
    });
    expect(a.format?.ruleSets).toContainEqual({ name: "Default", businessRules: ["identify-known-formats"] });
    expect(a.format?.migration).toContainEqual({
      profile: "PDF to PDF/A",
      action: "MIGRATE",
      target: "fmt/354",
    });
    const text = textOf(res);
    expect(text).toMatch(
      /^fmt\/18: Acrobat PDF 1\.4 - Portable Document Format \(version 1\.4\); MIME application\/pdf/,
    );
    expect(text).toContain("PDF to PDF/A: migrate to fmt/354");
  });

  it("lists the rule sets; refuses an unknown PUID naming what is registered, and a malformed one", async () => {
    const a = await mcp.call<Answer>("format_registry", {});
    expect(a.formatsTotal).toBeGreaterThan(10);
    expect(a.ruleSets.find((r) => r.name === "Default")?.formats).toContain("fmt/18");
    const unknown = await mcp.raw("format_registry", { puid: "fmt/99999" });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^The registry has no format fmt\/99999; it holds \d+ formats: /);
    const bad = await mcp.raw("format_registry", { puid: "pdf" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/PRONOM id/);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "format_registry");
  });
});
