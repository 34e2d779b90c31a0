import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
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

describe("format_registry's answer text", () => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("format_registry", { puid: "fmt/18" });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "fmt/18: Acrobat PDF 1.4 - Portable Document Format (version 1.4); MIME application/pdf; extensions .pdf; families document.
      Rule sets: Default (identify-known-formats).
      Live migration profiles: PDF to PDF/A: migrate to fmt/354; Retain as received: retain.
      26 formats registered; 1 rule set:
      - Default: 26 rules for x-fmt/111, x-fmt/18, fmt/101, fmt/817, fmt/14, fmt/15, fmt/16, fmt/17, fmt/18, fmt/19, fmt/20, fmt/276, fmt/1129, fmt/11, fmt/41, fmt/42, fmt/43, fmt/44, fmt/353, fmt/3, fmt/4, fmt/6, fmt/141, fmt/142, fmt/143, x-fmt/263 — The registry's built-in rules: every known format is identified on ingest"
    `);
  });
});
