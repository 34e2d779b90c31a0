import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "./support.js";

interface Rule {
  id: string;
  priority: number;
  profile: string;
  formats: string[];
  scope: { ref: string; title: string | null }[];
}
interface Answer {
  live: Rule[];
  drafts: { id: string; name: string; status: string }[];
  draft?: { name: string; rules: Rule[] };
  impact?: {
    job: string;
    status: string;
    assetsAffected: number;
    filesAffected: number;
    formats: { puid: string; action: string; assets: number }[];
    largestFolders: { ref: string; title: string | null; assets: number }[];
  };
}

/** Nothing here writes: both eras read one repository. */
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("migration_policy (%s)", (era) => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });

  it("lists the live rules by priority with the titles of what they cover, and the drafts", async () => {
    const res = await mcp.raw("migration_policy", {});
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.live.map((r) => r.priority)).toEqual([1, 2, 3, 4]);
    const photos = a.live.find((r) => r.id === "photographs");
    expect(photos).toMatchObject({ profile: "Images to TIFF", formats: ["fmt/11 → fmt/353"] });
    expect(photos?.scope[0]?.title).toBe("Photographs");
    expect(a.drafts).toEqual([
      expect.objectContaining({ name: "2026 review: PDF/A and TIFF for all content", status: "DRAFT" }),
    ]);
    expect(textOf(res)).toMatch(
      /^Live migration rules \(4\), first match wins:\n1\. Closed correspondence stays as received — Retain as received \(fmt\/18 retained, /,
    );
    expect(textOf(res)).toMatch(
      /Photographs — Images to TIFF \(fmt\/11 → fmt\/353\) on “Photographs” [0-9a-f-]{36}/,
    );
  });

  it("computes a draft's impact as a job and summarises it: assets, formats, largest folders", async () => {
    const res = await mcp.raw("migration_policy", {
      draft: "2026 review: PDF/A and TIFF for all content",
      impact: true,
    });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    const i = a.impact;
    expect(i?.status).toBe("COMPLETED");
    expect(i?.job).toMatch(/^[0-9a-f-]{36}$/);
    const migrated = i?.formats.filter((f) => f.action === "MIGRATE") ?? [];
    expect(migrated.map((f) => f.puid).sort()).toEqual(["fmt/11", "fmt/141", "fmt/18"]);
    // Every affected asset is counted under some folder (fewer than the lookup bound here).
    expect(i?.largestFolders.length).toBeGreaterThan(0);
    expect(i?.largestFolders[0]?.title).toBeTruthy();
    const counts = i?.largestFolders.map((f) => f.assets) ?? [];
    expect([...counts].sort((x, y) => y - x)).toEqual(counts);
    const text = textOf(res);
    expect(text).toMatch(
      new RegExp(
        `^Draft “2026 review: PDF/A and TIFF for all content” would migrate ${i?.assetsAffected} assets of \\d+ \\(${i?.filesAffected} files, [\\d,]+ bytes\\) in 3 formats\\. Job ${i?.job}\\.`,
      ),
    );
    expect(text).toMatch(/Largest folders: “[^”]+” [0-9a-f-]{36} \(\d+\)/);
    expect(a.draft?.rules.map((r) => r.id)).toEqual([
      "closed-correspondence",
      "oral-history",
      "everything-else",
    ]);
  });

  it("refuses an unknown draft naming the ones there are", async () => {
    const res = await mcp.raw("migration_policy", { draft: "no such draft", impact: true });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/^No migration draft "no such draft"\. Drafts: “2026 review/);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "migration_policy");
  });
});

describe("migration_policy's answer text", () => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("migration_policy", {});
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "Live migration rules (4), first match wins:
      1. Closed correspondence stays as received — Retain as received (fmt/18 retained, fmt/11 retained, x-fmt/111 retained) on “Closed Correspondence” 2d9e34c8-fd05-432a-b708-8f39cd837b5f (rule id closed-correspondence)
      2. Photographs — Images to TIFF (fmt/11 → fmt/353) on “Photographs” 93951a69-2b7f-4d19-bccb-04b90e50cb4b (rule id photographs)
      3. Council minutes — PDF to PDF/A (fmt/18 → fmt/354) on “Council Minutes” f4eb66df-e3d1-4a5d-9040-ba1117ec18b8 (rule id council-minutes)
      4. Oral history — Audio to Broadcast WAVE (fmt/141 → fmt/2) on “Interview with Margaret Doyle, net maker” 1a60996f-4bd2-4361-b96f-ef2d38f97c83 (rule id oral-history)
      Drafts: “2026 review: PDF/A and TIFF for all content” dabe0904-d6fd-4a38-94bf-b37c0cb95e6f (DRAFT, 2026-02-12 14:30 by manager)."
    `);
  });
});
