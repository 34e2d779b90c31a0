import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { stableText } from "../../helpers/snapshot.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { expectHiddenFromCurator, FLAGS } from "./support.js";

interface Answer {
  events: {
    at: string;
    username: string;
    category: string;
    commandType: string;
    subject: string;
    summary: string;
  }[];
  total: number;
  offset: number;
  byCategory: Record<string, number>;
  authentication: { maxSessionLifetimeMins: number };
}

/** Nothing here writes: both eras read one repository. */
const repo = useRepository({ seed: "demo" });

describe.each(ERAS)("configuration_history (%s)", (era) => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });

  it("lists config events newest first with the session lifetime, bounded and paged", async () => {
    const res = await mcp.raw("configuration_history", { limit: 2 });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.authentication.maxSessionLifetimeMins).toBe(480);
    expect(a.events).toHaveLength(2);
    expect(a.total).toBeGreaterThan(2);
    expect((a.events[0]?.at ?? "") >= (a.events[1]?.at ?? "")).toBe(true);
    const text = textOf(res);
    expect(text).toContain("Authentication: sessions last at most 480 minutes (8 h).");
    expect(text).toContain(`Showing 1–2 of ${a.total}; for more, call again with offset 2.`);
    const next = await mcp.call<Answer>("configuration_history", { limit: 2, offset: 2 });
    expect(next.events[0]?.summary).not.toBe(a.events[0]?.summary);
  });

  it("filters by category, action and dates", async () => {
    const a = await mcp.call<Answer>("configuration_history", { category: "STORAGE", commandType: "CREATE" });
    expect(a.events.length).toBeGreaterThan(0);
    for (const e of a.events) expect(e).toMatchObject({ category: "STORAGE", commandType: "CREATE" });
    expect(a.byCategory).toEqual({ STORAGE: a.events.length });
    const none = await mcp.raw("configuration_history", { from: "2099-01-01" });
    expect((none.structuredContent as unknown as Answer).total).toBe(0);
    const bad = await mcp.raw("configuration_history", { from: "yesterday" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/ISO 8601/);
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "configuration_history");
  });
});

describe("configuration_history's answer text", () => {
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo });

  it("answers in words a person can act on (the whole text, pinned)", async () => {
    const res = await mcp.raw("configuration_history", { limit: 2 });
    expect(stableText(textOf(res))).toMatchInlineSnapshot(`
      "Authentication: sessions last at most 480 minutes (8 h).
      15 configuration events, newest first:
      - 2026-02-12T14:30:00.000Z manager: SETTINGS CREATE migration draft dabe0904-d6fd-4a38-94bf-b37c0cb95e6f — Created migration draft "2026 review: PDF/A and TIFF for all content" (3 profiles, 3 rules)
      - 2025-09-10T14:30:00.000Z manager: STORAGE CREATE 53700f91-1346-4048-9995-62843f415b8a — Added GLACIER storage adapter "Cold tier (Glacier Deep Archive)" (disabled)
      Showing 1–2 of 15; for more, call again with offset 2."
    `);
  });
});
