import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { authed, login } from "../../helpers/repository.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { configEvents, expectHiddenFromCurator, FLAGS, serviceJson } from "./support.js";

const DEMO_DRAFT = "2026 review: PDF/A and TIFF for all content";

interface Rule {
  id: string;
  priority: number;
  profileId: string;
  entityRefs: string[];
}
interface Draft {
  id: string;
  name: string;
  status: string;
  appliedBy: string | null;
  rules: Rule[];
  profiles: { id: string }[];
}

describe.each(ERAS)("apply_migration_policy (%s)", (era) => {
  const live = () =>
    serviceJson<{ rules: Rule[]; profiles: { id: string }[] }>(repo, "/api/settings/migration/config");
  const drafts = async () =>
    (await serviceJson<{ drafts: Draft[] }>(repo, "/api/settings/migration/config/drafts")).drafts;
  const strip = (rules: Rule[]) =>
    rules.map(({ id, priority, profileId, entityRefs }) => ({ id, priority, profileId, entityRefs }));

  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, era, repo });

  it("a wrong draft gives a clear error naming the drafts there are", async () => {
    const res = await mcp.raw("apply_migration_policy", { draft: "no such draft" });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(
      /^No migration draft "no such draft"\. Drafts: “2026 review: .*” [0-9a-f-]{36} \(DRAFT\)/,
    );
  });

  it("refuses a stale confirmation: the draft changed between preview and confirm", async () => {
    const put = authed(repo.url, (await login(repo.url, "manager")).token);
    const body = (formats: string) =>
      JSON.stringify({
        name: `Keep PNG ${era}`,
        profiles: [{ id: "keep-png", name: "Keep PNG", formats: [{ puid: formats, action: "RETAIN" }] }],
        rules: [{ id: "all", profileId: "keep-png", entityRefs: [] }],
      });
    const made = await put("/api/settings/migration/config/drafts", { method: "POST", body: body("fmt/11") });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { id: string }).id;
    const before = await live();
    const p = await mcp.call<Preview>("apply_migration_policy", { draft: id });
    const changed = await put(`/api/settings/migration/config/drafts/${id}`, {
      method: "PUT",
      body: body("fmt/12"),
    });
    expect(changed.status).toBe(200);
    const res = await mcp.raw("apply_migration_policy", {
      draft: id,
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(await live()).toEqual(before);
    expect((await drafts()).find((d) => d.id === id)?.status).toBe("DRAFT");
  });

  it("previews the differences (and the impact once computed) changing nothing; applies exactly the draft once confirmed", async () => {
    const before = await live();
    const draft = (await drafts()).find((d) => d.name === DEMO_DRAFT) as Draft;
    const p = await mcp.call<Preview>("apply_migration_policy", { draft: DEMO_DRAFT });
    const plan = p.confirmationRequired;
    expect(plan.summary).toMatch(
      new RegExp(`^Apply migration draft “${DEMO_DRAFT}”: live rules 4 → 3, \\d+ changes$`),
    );
    expect(plan.details).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Rule everything-else added at priority 3: .* on all content$/),
        expect.stringMatching(/^Rule oral-history changed: priority 4 → 2$/),
        expect.stringMatching(
          /^Rule photographs removed \(was priority 2: Images to TIFF on “Photographs”\)$/,
        ),
        expect.stringMatching(/^Rule council-minutes removed /),
        `Impact not computed for this draft since its last change; \`migration_policy\` with draft "${DEMO_DRAFT}" and impact true computes it.`,
      ]),
    );
    expect(plan.targets).toEqual([{ ref: `migration-draft:${draft.id}`, title: DEMO_DRAFT }]);
    expect(await live()).toEqual(before);

    const impact = await mcp.call<{ impact: { assetsAffected: number; filesAffected: number } }>(
      "migration_policy",
      { draft: DEMO_DRAFT, impact: true },
    );
    const p2 = await mcp.call<Preview>("apply_migration_policy", { draft: DEMO_DRAFT });
    expect(p2.confirmationRequired.details.at(-1)).toMatch(
      new RegExp(
        `^Impact \\(computed .+\\): would migrate ${impact.impact.assetsAffected} assets of \\d+ \\(${impact.impact.filesAffected} files, [\\d,]+ bytes\\)\\.$`,
      ),
    );
    expect(await live()).toEqual(before);

    const res = await mcp.raw("apply_migration_policy", {
      draft: DEMO_DRAFT,
      confirmation: p2.confirmationRequired.token,
    });
    expect(res.isError).toBeFalsy();
    const now = await live();
    expect(strip(now.rules)).toEqual(strip(draft.rules));
    expect(now.profiles.map((x) => x.id).sort()).toEqual(draft.profiles.map((x) => x.id).sort());
    const applied = (await drafts()).find((d) => d.id === draft.id);
    expect(applied).toMatchObject({ status: "APPLIED", appliedBy: "manager" });
    // The answer lists the same changes the preview showed.
    expect((res.structuredContent as { changes: string[] }).changes).toEqual(
      p2.confirmationRequired.details.filter((l) => /^(Rule|Profile) /.test(l)),
    );
    expect(textOf(res)).toMatch(
      new RegExp(
        `^Applied migration draft “${DEMO_DRAFT}” ${draft.id}: the live rules are now its 3 rules \\(were 4\\)`,
      ),
    );
    expect((await configEvents(repo, "SETTINGS"))[0]).toMatchObject({
      commandType: "APPLY",
      username: "manager",
    });

    const again = await mcp.raw("apply_migration_policy", { draft: DEMO_DRAFT });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(
      new RegExp(`^Draft “${DEMO_DRAFT}” was applied already \\(.+ by manager\\)`),
    );
  });

  it("is not listed for a curator, and refused if called anyway", async () => {
    await expectHiddenFromCurator(repo, era, "apply_migration_policy", { draft: DEMO_DRAFT });
  });
});
