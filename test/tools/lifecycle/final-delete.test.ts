import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { binRefs, deleteToBin, exists, makeTree } from "./support.js";

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("final_delete (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const curator = useMcp({ user: "curator", flags: FLAGS, repo, era });

  it("previews (cannot be undone, nothing changed), then removes the deletion for good", async () => {
    const t = makeTree(repo, "Gone for good");
    const deletion = await deleteToBin(mcp, repo, t.folder.ref);
    const p = await mcp.call<Preview>("final_delete", { ref: t.folder.ref });
    expect(p.confirmationRequired.summary).toBe(
      `Delete folder “Gone for good” ${t.folder.ref} and the 3 entities deleted with it for good: this cannot be undone`,
    );
    expect(p.confirmationRequired.details.join("\n")).toMatch(`deletion job ${deletion}`);
    expect(await binRefs(repo)).toContain(t.folder.ref);

    const res = await mcp.raw("final_delete", {
      ref: t.folder.ref,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as { job: string };
    expect(textOf(res)).toMatch(
      `for good (cannot be undone): done (job ${a.job}); the service says: Removed 4 entities for good`,
    );
    expect(await binRefs(repo)).not.toContain(t.folder.ref);
    expect(await exists(repo, "structural-objects", t.folder.ref)).toBe(false);
    const rows = repo.svc.db
      .prepare("SELECT COUNT(*) AS n FROM entities WHERE ref IN (?, ?, ?, ?)")
      .get(t.folder.ref, t.sub.ref, t.a1.ref, t.a2.ref) as { n: number };
    expect(rows.n).toBe(0);
    const rec = await mcp.raw("recover_entity", { ref: t.folder.ref });
    expect(textOf(rec)).toMatch(/is not in the recycle bin/);
  });

  it("refuses what is not in the recycle bin, and is hidden from a curator", async () => {
    const t = makeTree(repo, "Still live");
    const res = await mcp.raw("final_delete", { ref: t.a1.ref });
    expect(textOf(res)).toMatch(/only deleted entities can be deleted for good.*Nothing was deleted\.$/);
    expect(await exists(repo, "information-objects", t.a1.ref)).toBe(true);
    const names = (await curator.client.listTools()).tools.map((x) => x.name);
    expect(names).not.toContain("final_delete");
    expect(names).toContain("recycle_bin");
  });
});
