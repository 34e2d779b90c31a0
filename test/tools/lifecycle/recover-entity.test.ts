import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { binRefs, deleteToBin, exists, makeTree } from "./support.js";

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("recover_entity (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const curator = useMcp({ user: "curator", flags: FLAGS, repo, era });

  it("brings a deleted folder back with everything deleted with it", async () => {
    const t = makeTree(repo, "Recovered papers");
    const deletion = await deleteToBin(mcp, repo, t.folder.ref);
    const res = await mcp.raw("recover_entity", { ref: t.folder.ref });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as { job: string };
    expect(res.structuredContent).toMatchObject({
      entity: { ref: t.folder.ref, type: "folder", title: "Recovered papers" },
      deletion,
      entities: 4,
    });
    expect(textOf(res)).toMatch(
      `Recovering folder “Recovered papers” ${t.folder.ref} and the 3 entities deleted with it from the recycle bin (deletion ${deletion}): done (job ${a.job}); the service says: Recovered 4 entities from the recycle bin.`,
    );
    expect(textOf(res)).toMatch("It went back to the top level.");
    // Back already when it answers: no waiting on the job.
    for (const [p, ref] of [
      ["structural-objects", t.folder.ref],
      ["structural-objects", t.sub.ref],
      ["information-objects", t.a1.ref],
      ["information-objects", t.a2.ref],
    ] as const)
      expect(await exists(repo, p, ref)).toBe(true);
    expect(await binRefs(repo)).not.toContain(t.folder.ref);
  });

  it("says when something is not in the recycle bin, changing nothing", async () => {
    const t = makeTree(repo, "Never deleted");
    const res = await mcp.raw("recover_entity", { ref: t.a1.ref });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe(
      `${t.a1.ref} is not in the recycle bin (or not at the top of a deletion); \`recycle_bin\` lists what can be recovered. Nothing was changed.`,
    );
  });

  it("is not offered to a curator (this service lets only holders of Delete recover)", async () => {
    const names = (await curator.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("recover_entity");
  });
});
