import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp } from "../../helpers/use-mcp.js";
import { asset, auditIdIn, auditLines, HOSTILE, storeDigest, useAuditedCurator } from "./support.js";

interface Answer {
  ref: string;
  type: string;
  before: { title: string; description?: string };
  after: { title: string; description?: string };
  changed: string[];
}
interface Got {
  entity: { title: string; description?: string };
}

describe.each(ERAS)("update_entity (%s)", (era) => {
  const { auditLog, repo, curator } = useAuditedCurator(era);
  const reader = useMcp({ user: "reader", flags: ["--toolsets", "all"], era, repo });

  it("changes a title without asking, answers before → after and keeps the old values in the audit log", async () => {
    const a = asset(repo, "Minute book 1850", { description: "Bound volume" });
    const res = await curator.raw("update_entity", { ref: a.ref, title: HOSTILE });
    expect(res.isError, textOf(res)).toBeFalsy();
    expect(res.structuredContent as unknown as Answer).toEqual({
      ref: a.ref,
      type: "asset",
      before: { title: "Minute book 1850", description: "Bound volume" },
      after: { title: HOSTILE, description: "Bound volume" },
      changed: ["title"],
    });
    expect(textOf(res)).toContain(`  title: “Minute book 1850” → “${HOSTILE}”`);
    const got = await curator.call<Got>("get_entity", { ref: a.ref });
    expect(got.entity).toMatchObject({ title: HOSTILE, description: "Bound volume" });
    const entry = auditLines(auditLog).find((l) => l.id === auditIdIn(textOf(res)));
    expect(entry).toMatchObject({
      tool: "update_entity",
      targets: [{ ref: a.ref, title: HOSTILE }],
      previous: { ref: a.ref, entityType: "IO", title: "Minute book 1850", description: "Bound volume" },
    });
  });

  it("sets and clears a description of a folder, and says when nothing changes", async () => {
    const a = asset(repo);
    const folderRef = a.parent_ref as string;
    const set = await curator.call<Answer>("update_entity", {
      ref: folderRef,
      description: "Council & <minutes>",
    });
    expect(set).toMatchObject({
      type: "folder",
      changed: ["description"],
      after: { description: "Council & <minutes>" },
    });
    const cleared = await curator.raw("update_entity", { ref: folderRef, description: "" });
    expect(textOf(cleared)).toContain("  description: “Council & <minutes>” → (none)");
    expect((await curator.call<Got>("get_entity", { ref: folderRef })).entity.description).toBeUndefined();
    const before = storeDigest(repo);
    const same = await curator.raw("update_entity", { ref: folderRef, title: "Metadata tests" });
    expect(textOf(same)).toMatch(/already has this title; nothing was changed/);
    expect(storeDigest(repo)).toBe(before);
  });

  it("refuses empty calls, wrong refs and characters XML cannot carry, changing nothing", async () => {
    const a = asset(repo);
    const before = storeDigest(repo);
    expect(textOf(await curator.raw("update_entity", { ref: a.ref }))).toMatch(
      /Pass `title`, `description` or both/,
    );
    expect(
      textOf(await curator.raw("update_entity", { ref: "11111111-2222-4333-8444-555555555555", title: "x" })),
    ).toMatch(/^Nothing with ref/);
    expect(textOf(await curator.raw("update_entity", { ref: a.ref, title: "bad\u0001" }))).toMatch(
      /The title holds the character U\+0001.*Nothing was changed/,
    );
    expect(textOf(await curator.raw("update_entity", { ref: a.ref, title: "   " }))).toMatch(/title/);
    expect(storeDigest(repo)).toBe(before);
  });

  it("is not offered to a reader", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("update_entity");
  });
});
