import { beforeAll, describe, expect, it } from "vitest";
import { ERAS, type McpHarness, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, auditIdIn, tempAuditLog } from "../metadata/support.js";

/**
 * audit_log: what was changed through the assistant, newest first, filtered and paged; a curator sees their
 * own entries, a manager everyone's. Two servers (a curator's and a manager's) write one audit file, as a
 * single-instance team would; the shared trail across instances is tested in test/e2e/http-shared-state.test.ts.
 */

type Listed = {
  entries: {
    id: string;
    user: string;
    tool: string;
    outcome: string;
    targets: { ref: string; title: string }[];
    undoable: boolean;
  }[];
  scope: "own" | "everyone";
  total: number;
  hasMore: boolean;
  nextCursor?: string;
};

describe.each(ERAS)("audit_log (%s)", (era) => {
  const file = tempAuditLog();
  const refs: string[] = [];
  let renameId: string;
  const repo = useRepository({ seed: "none" });
  const flags = ["--toolsets", "all", "--audit-log", file];
  const curator = useMcp({ user: "curator", flags, era, repo });
  const manager = useMcp({ user: "manager", flags, era, repo });
  const noTrail = useMcp({ user: "curator", flags: ["--toolsets", "all"], era, repo });
  beforeAll(async () => {
    for (const [i, who] of [curator, curator, manager].entries()) {
      const item = asset(repo, `Ledger ${i}`);
      refs.push(item.ref);
      const res = await who.raw("update_entity", { ref: item.ref, title: `Ledger ${i} (renamed)` });
      expect(res.isError, textOf(res)).toBeFalsy();
      if (i === 1) renameId = auditIdIn(textOf(res)) as string;
    }
    // A refusal is recorded too: the service refuses a curator's re-tagging (an asset's re-tagging has no
    // plan, so its refusal names no target).
    await curator.raw("set_security_tag", { ref: refs[0], tag: "closed" });
  });

  it("is offered only where a trail outlives the process (an audit file or a shared store)", async () => {
    const names = async (h: McpHarness) => (await h.client.listTools()).tools.map((t) => t.name);
    expect(await names(curator)).toContain("audit_log");
    expect(await names(noTrail)).not.toContain("audit_log");
  });

  it("a manager sees everyone's entries, newest first, each with its undo id; a curator only their own", async () => {
    const all = await manager.call<Listed>("audit_log", {});
    expect(all.scope).toBe("everyone");
    expect(all.total).toBe(4);
    expect(all.entries.map((e) => [e.user, e.tool, e.outcome])).toEqual([
      ["curator", "set_security_tag", "refused"],
      ["manager", "update_entity", "done"],
      ["curator", "update_entity", "done"],
      ["curator", "update_entity", "done"],
    ]);
    expect(all.entries[2]).toMatchObject({
      id: renameId,
      undoable: true,
      targets: [{ ref: refs[1], title: "Ledger 1 (renamed)" }],
    });
    expect(all.entries[0]?.undoable).toBe(false);

    const res = await curator.raw("audit_log", {});
    const own = res.structuredContent as Listed;
    expect(own.scope).toBe("own");
    expect(own.entries.map((e) => e.user)).toEqual(["curator", "curator", "curator"]);
    const text = textOf(res);
    expect(text).toMatch(
      /^3 entries in the audit trail by curator \(only your own: managers and administrators see everyone's\), newest first:/,
    );
    expect(text).toContain(
      `audit entry ${renameId} (\`undo_metadata_change\` with this id puts back what was there before)`,
    );
    expect(text).toMatch(/curator: set_security_tag refused\n {2}why: .*permission/);

    const other = await curator.raw("audit_log", { person: "manager" });
    expect(other.isError).toBe(true);
    expect(textOf(other)).toMatch(
      /only your own entries \(curator\); managers and administrators see everyone's/,
    );
    expect(
      (await manager.call<Listed>("audit_log", { person: "manager" })).entries.map((e) => e.user),
    ).toEqual(["manager"]);
  });

  it("filters by target and dates", async () => {
    const onFirst = await manager.call<Listed>("audit_log", { target: refs[0] });
    expect(onFirst.entries.map((e) => e.tool)).toEqual(["update_entity"]);
    const year = new Date().getUTCFullYear();
    expect((await manager.call<Listed>("audit_log", { since: String(year) })).total).toBe(4);
    const before = await manager.raw("audit_log", { until: String(year - 1) });
    expect((before.structuredContent as Listed).total).toBe(0);
    expect(textOf(before)).toMatch(/^No entry in the audit trail until /);
    const upside = await manager.raw("audit_log", { since: String(year), until: String(year - 1) });
    expect(textOf(upside)).toMatch(/since is after until/);
  });

  it("pages with a cursor that says what is left, unshifted by entries written meanwhile", async () => {
    const first = await manager.call<Listed>("audit_log", { limit: 2 });
    expect(first).toMatchObject({ total: 4, hasMore: true });
    const item = asset(repo, "Written between pages");
    await curator.call("update_entity", { ref: item.ref, title: "Written between pages (renamed)" });
    const res = await manager.raw("audit_log", { limit: 2, cursor: first.nextCursor });
    const second = res.structuredContent as Listed;
    expect(second.total).toBe(4);
    expect(second.hasMore).toBe(false);
    expect([...first.entries, ...second.entries].map((e) => e.targets[0]?.ref)).toEqual([
      undefined,
      refs[2],
      refs[1],
      refs[0],
    ]);
    expect(textOf(res)).toContain("Showing 3–4 of 4 (the end).");
    const foreign = await manager.raw("audit_log", {
      limit: 2,
      person: "curator",
      cursor: first.nextCursor,
    });
    expect(textOf(foreign)).toMatch(/cursor belongs to a different question/);
  });
});
