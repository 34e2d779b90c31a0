import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed/demo.js";
import { DEMO_SETTINGS } from "../../../repository/seed/settings.js";
import type { RunningRepository } from "../../../repository/server.js";
import { authed, DEMO_USERS, login, startTestRepository } from "../../helpers/repository.js";
import { storeHash } from "../writes/store-hash.js";

/**
 * The Settings API (migration configuration, drafts, metadata enrichment) and the Analytics API's
 * policy.impact, over HTTP against the demo: each surface with the right role and the wrong one, the
 * state behind it, and a config event for every change.
 */

let repo: RunningRepository;
let manager: ReturnType<typeof authed>;
let curator: ReturnType<typeof authed>;
let reader: ReturnType<typeof authed>;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  manager = authed(repo.url, (await login(repo.url, "manager")).token);
  curator = authed(repo.url, (await login(repo.url, "curator")).token);
  reader = authed(repo.url, (await login(repo.url, "reader")).token);
}, 120_000);
afterAll(async () => {
  await repo?.close();
});

const S = "/api/settings";
const M = `${S}/migration/config`;
const E = `${S}/metadata-enrichment/config`;

function json(body: unknown): RequestInit {
  return { body: JSON.stringify(body), headers: { "Content-Type": "application/json;charset=UTF-8" } };
}

function configEvents(
  since: string,
): { command_type: string; subject: string; username: string; summary: string }[] {
  return repo.svc.db
    .prepare(
      "SELECT command_type, subject, username, summary FROM config_events WHERE category = 'SETTINGS' AND id > ? ORDER BY id",
    )
    .all(Number(since)) as { command_type: string; subject: string; username: string; summary: string }[];
}

function lastEventId(): string {
  return String(
    (repo.svc.db.prepare("SELECT coalesce(max(id), 0) AS n FROM config_events").get() as { n: number }).n,
  );
}

interface Rule {
  id: string;
  priority: number;
  profileId: string;
  entityRefs: string[];
  entityMap?: Record<string, { title: string | null; type: string | null }>;
}
interface Config {
  profiles: { id: string; formats: { puid: string; action: string; targetPuid: string | null }[] }[];
  rules: Rule[];
}

describe("migration configuration", () => {
  it("needs a token to read, and gives the live rules naming demo entities to any signed-in user", async () => {
    expect((await fetch(`${repo.url}${M}/rules`)).status).toBe(401);
    const res = await reader(`${M}/rules`);
    expect(res.status).toBe(200);
    const { rules } = (await res.json()) as { rules: Rule[] };
    expect(rules.map((r) => r.id)).toEqual(Object.values(DEMO_SETTINGS.rules));
    expect(rules.map((r) => r.priority)).toEqual([1, 2, 3, 4]);
    expect(rules.find((r) => r.id === "photographs")?.entityRefs).toEqual([DEMO.refs.photographs]);
    const one = (await (await reader(`${M}/rules/council-minutes`)).json()) as Rule;
    expect(one).toMatchObject({ profileId: "pdf-to-pdfa", entityRefs: [DEMO.refs.councilMinutesSeries] });
    expect((await reader(`${M}/rules/no-such-rule`)).status).toBe(404);
    const profile = (await (
      await reader(`${M}/profiles/images-to-tiff`)
    ).json()) as Config["profiles"][number];
    expect(profile.formats).toEqual([{ puid: "fmt/11", action: "MIGRATE", targetPuid: "fmt/353" }]);
  });

  it("expand=entityMap adds the titles of the entities a rule names (only those the caller may read)", async () => {
    const title = (ref: string) => DEMO.entities.find((e) => e.ref === ref)?.title;
    const asManager = (await (await manager(`${M}/rules?expand=entityMap`)).json()) as { rules: Rule[] };
    const closed = asManager.rules.find((r) => r.id === "closed-correspondence") as Rule;
    expect(closed.entityMap).toEqual({
      [DEMO.refs.closedCorrespondence]: { title: title(DEMO.refs.closedCorrespondence), type: "SO" },
    });
    const single = (await (await manager(`${M}/rules/oral-history?expand=entityMap`)).json()) as Rule;
    expect(single.entityMap?.[DEMO.refs.interviewDoyle]).toEqual({
      title: title(DEMO.refs.interviewDoyle),
      type: "IO",
    });
    const asReader = (await (
      await reader(`${M}/rules/closed-correspondence?expand=entityMap`)
    ).json()) as Rule;
    expect(asReader.entityMap?.[DEMO.refs.closedCorrespondence]?.title).toBeNull();
    expect((await manager(`${M}/rules`)).ok).toBe(true);
    const plain = (await (await manager(`${M}/rules`)).json()) as { rules: Rule[] };
    expect(plain.rules[0]?.entityMap).toBeUndefined();
    expect((await manager(`${M}/rules?expand=titles`)).status).toBe(400);
  });

  it("a draft leaves the live rules untouched until it is applied; each change records a config event", async () => {
    const since = lastEventId();
    const liveBefore = await (await manager(M)).text();
    const draft = {
      name: "Test draft: PNG stays",
      profiles: [{ id: "keep-png", name: "Keep PNG", formats: [{ puid: "fmt/11", action: "RETAIN" }] }],
      rules: [{ id: "all", profileId: "keep-png", entityRefs: [] }],
    };
    // Refused for a non-administrator, with nothing stored.
    const hash = storeHash(repo.svc.db);
    const refused = await curator(`${M}/drafts`, { method: "POST", ...json(draft) });
    expect(refused.status).toBe(403);
    expect(storeHash(repo.svc.db)).toBe(hash);
    // A rule naming a profile the draft lacks, or an entity that does not exist: 400, nothing stored.
    const badProfile = await manager(`${M}/drafts`, {
      method: "POST",
      ...json({ ...draft, rules: [{ profileId: "nope", entityRefs: [] }] }),
    });
    expect(badProfile.status).toBe(400);
    const badRef = await manager(`${M}/drafts`, {
      method: "POST",
      ...json({
        ...draft,
        rules: [{ profileId: "keep-png", entityRefs: ["00000000-0000-4000-8000-000000000000"] }],
      }),
    });
    expect(badRef.status).toBe(400);
    expect(storeHash(repo.svc.db)).toBe(hash);

    const created = await manager(`${M}/drafts`, { method: "POST", ...json(draft) });
    expect(created.status).toBe(201);
    const d = (await created.json()) as { id: string; status: string; rules: Rule[] };
    expect(d.status).toBe("DRAFT");
    expect(d.rules).toEqual([{ id: "all", name: null, priority: 1, profileId: "keep-png", entityRefs: [] }]);
    expect(await (await manager(M)).text()).toBe(liveBefore);

    const edited = await manager(`${M}/drafts/${d.id}`, {
      method: "PUT",
      ...json({ ...draft, name: "Test draft: PNG stays (edited)" }),
    });
    expect(edited.status).toBe(200);
    expect(await (await manager(M)).text()).toBe(liveBefore);
    expect((await curator(`${M}/drafts/${d.id}/apply`, { method: "POST" })).status).toBe(403);
    expect(await (await manager(M)).text()).toBe(liveBefore);

    const applied = await manager(`${M}/drafts/${d.id}/apply`, { method: "POST" });
    expect(applied.status).toBe(200);
    const live = (await (await manager(M)).json()) as Config;
    expect(live.rules.map((r) => [r.id, r.profileId])).toEqual([["all", "keep-png"]]);
    expect(live.profiles.map((p) => p.id)).toEqual(["keep-png"]);
    // An applied draft is the record of what was applied: no more edits.
    expect((await manager(`${M}/drafts/${d.id}`, { method: "PUT", ...json(draft) })).status).toBe(409);
    const listed = (await (await reader(`${M}/drafts`)).json()) as {
      drafts: { id: string; status: string }[];
    };
    expect(listed.drafts.find((x) => x.id === d.id)?.status).toBe("APPLIED");
    expect(listed.drafts.find((x) => x.id === DEMO_SETTINGS.draftId)?.status).toBe("DRAFT");

    // Restore the demo's live configuration with PUT (also a change with its event), then delete the draft.
    const restored = await manager(M, { method: "PUT", body: liveBefore });
    expect(restored.status).toBe(200);
    expect(await (await manager(M)).text()).toBe(liveBefore);
    expect((await curator(M, { method: "PUT", body: liveBefore })).status).toBe(403);
    expect((await manager(`${M}/drafts/${d.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await manager(`${M}/drafts/${d.id}`)).status).toBe(404);

    expect(configEvents(since).map((e) => [e.command_type, e.subject, e.username])).toEqual([
      ["CREATE", `migration draft ${d.id}`, "manager"],
      ["UPDATE", `migration draft ${d.id}`, "manager"],
      ["APPLY", `migration draft ${d.id}`, "manager"],
      ["UPDATE", "migration configuration", "manager"],
      ["DELETE", `migration draft ${d.id}`, "manager"],
    ]);
  });
});

describe("metadata enrichment", () => {
  it("lists the demo's profiles and rules", async () => {
    const { profiles } = (await (await reader(`${E}/profiles`)).json()) as {
      profiles: { id: string; name: string; piiSettings: { active: boolean } }[];
    };
    expect(profiles.map((p) => [p.name, p.piiSettings.active])).toEqual([
      ["PII screening", true],
      ["No enrichment", false],
    ]);
    const { rules } = (await (await reader(`${E}/rules`)).json()) as {
      rules: { id: string; priority: number }[];
    };
    expect(rules.map((r) => [r.id, r.priority])).toEqual([
      [DEMO_SETTINGS.enrichment.staffRule, 1],
      [DEMO_SETTINGS.enrichment.defaultRule, 2],
    ]);
  });

  it("profiles and rules as pyPreservica sends them; a profile in use cannot be deleted (403)", async () => {
    const since = lastEventId();
    const profileBody = { name: "Test profile", piiSettings: { active: "true" } };
    expect((await curator(`${E}/profiles`, { method: "POST", ...json(profileBody) })).status).toBe(403);
    const made = await manager(`${E}/profiles`, { method: "POST", ...json(profileBody) });
    expect(made.status).toBe(201);
    const profile = (await made.json()) as { id: string; piiSettings: { active: boolean } };
    expect(profile.piiSettings.active).toBe(true);
    // The client posts rules with a double slash after /api/settings.
    const ruleBody = { profileId: profile.id, priority: "1", selectorSettings: {} };
    expect(
      (await curator(`${S}//metadata-enrichment/config/rules`, { method: "POST", ...json(ruleBody) })).status,
    ).toBe(403);
    const ruleRes = await manager(`${S}//metadata-enrichment/config/rules`, {
      method: "POST",
      ...json(ruleBody),
    });
    expect(ruleRes.status).toBe(201);
    const rule = (await ruleRes.json()) as { id: string; priority: number };
    expect(rule.priority).toBe(1);
    // Existing rules moved down one to make room.
    const { rules } = (await (await reader(`${E}/rules`)).json()) as {
      rules: { id: string; priority: number }[];
    };
    expect(rules.map((r) => [r.id, r.priority])).toEqual([
      [rule.id, 1],
      [DEMO_SETTINGS.enrichment.staffRule, 2],
      [DEMO_SETTINGS.enrichment.defaultRule, 3],
    ]);
    const hash = storeHash(repo.svc.db);
    const inUse = await manager(`${E}/profiles/${profile.id}`, { method: "DELETE" });
    expect(inUse.status).toBe(403);
    expect(((await inUse.json()) as { message: string }).message).toMatch(/used by rule/);
    expect(storeHash(repo.svc.db)).toBe(hash);
    expect((await curator(`${E}/rules/${rule.id}`, { method: "DELETE" })).status).toBe(403);
    expect((await manager(`${E}/rules/${rule.id}`, { method: "DELETE" })).status).toBe(204);
    const after = (await (await reader(`${E}/rules`)).json()) as {
      rules: { id: string; priority: number }[];
    };
    expect(after.rules.map((r) => r.priority)).toEqual([1, 2]);
    expect((await manager(`${E}/profiles/${profile.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await manager(`${E}/profiles/${profile.id}`)).status).toBe(404);
    expect(configEvents(since).map((e) => e.command_type)).toEqual(["CREATE", "CREATE", "DELETE", "DELETE"]);
  });
});

interface Impact {
  policy: { source: string; draftId: string | null };
  summary: { assetsConsidered: number; assetsAffected: number; filesAffected: number };
  assets: { ref: string; ruleId: string; files: { puid: string | null; action: string }[] }[];
}

/** Runs a policy.impact generation and returns the data set. */
async function generate(body: unknown): Promise<Impact> {
  const res = await manager("/api/analytics/policy.impact/generation", { method: "POST", ...json(body) });
  expect(res.status).toBe(202);
  const token = (await res.text()).trim();
  await repo.svc.actions.idle();
  const progress = await manager(`/api/entity/progress/${token}`);
  expect(await progress.text()).toMatch(/COMPLETED/);
  const got = (await (await manager("/api/analytics/datasets/policy.impact")).json()) as {
    success: boolean;
    value: { progressToken: string; data: Impact };
  };
  expect(got.success).toBe(true);
  expect(got.value.progressToken).toBe(token);
  return got.value.data;
}

/** Live assets whose preservation files (active generation) have this PUID, read straight from the store. */
function assetsStoredAs(puid: string, under?: string): string[] {
  const scope = under
    ? `AND e.ref IN (WITH RECURSIVE s(ref) AS (SELECT ? UNION SELECT c.ref FROM entities c JOIN s ON c.parent_ref = s.ref WHERE c.deleted = 0) SELECT ref FROM s)`
    : "";
  return (
    repo.svc.db
      .prepare(
        `SELECT DISTINCT e.ref FROM entities e JOIN representations r ON r.io_ref = e.ref AND r.type = 'Preservation'
         JOIN representation_objects ro ON ro.representation_id = r.id JOIN generations g ON g.co_ref = ro.co_ref AND g.active = 1
         WHERE e.type = 'IO' AND e.deleted = 0 AND g.format_puid = ? ${scope} ORDER BY e.ref`,
      )
      .all(...(under ? [puid, under] : [puid])) as { ref: string }[]
  ).map((r) => r.ref);
}

describe("analytics: policy.impact", () => {
  it("generation and the data set are for managers and administrators (403 otherwise, 401 without a token)", async () => {
    expect((await fetch(`${repo.url}/api/analytics/datasets/policy.impact`)).status).toBe(401);
    expect(
      (await curator("/api/analytics/policy.impact/generation", { method: "POST", ...json({}) })).status,
    ).toBe(403);
    expect((await reader("/api/analytics/datasets/policy.impact")).status).toBe(403);
    expect((await manager("/api/analytics/no.such/generation", { method: "POST" })).status).toBe(404);
  });

  it("the demo draft's impact agrees with the formats really stored", async () => {
    const impact = await generate({ draftId: DEMO_SETTINGS.draftId });
    expect(impact.policy).toMatchObject({ source: "draft", draftId: DEMO_SETTINGS.draftId });
    // Draft: closed correspondence retained (priority 1), oral history to BWF (2), PDF and PNG migrated elsewhere (3).
    const closedAll = new Set([
      ...assetsStoredAs("fmt/18", DEMO.refs.closedCorrespondence),
      ...assetsStoredAs("fmt/11", DEMO.refs.closedCorrespondence),
      ...assetsStoredAs("x-fmt/111", DEMO.refs.closedCorrespondence),
      ...assetsStoredAs("fmt/141", DEMO.refs.closedCorrespondence),
    ]);
    const expected = new Set(
      [...assetsStoredAs("fmt/18"), ...assetsStoredAs("fmt/11")].filter(
        (ref) => !closedAll.has(ref) && ref !== DEMO.refs.interviewDoyle,
      ),
    );
    if (assetsStoredAs("fmt/141").includes(DEMO.refs.interviewDoyle)) expected.add(DEMO.refs.interviewDoyle);
    expect(expected.size).toBeGreaterThan(3);
    expect(new Set(impact.assets.map((a) => a.ref))).toEqual(expected);
    expect(impact.summary.assetsAffected).toBe(expected.size);
    expect(impact.summary.assetsConsidered).toBe(DEMO.entities.filter((e) => e.type === "IO").length);
    for (const a of impact.assets) {
      expect(a.files.some((f) => f.action === "MIGRATE")).toBe(true);
      if (a.ref === DEMO.refs.interviewDoyle) expect(a.ruleId).toBe("oral-history");
      else expect(a.ruleId).toBe("everything-else");
    }
  });

  it("the live configuration's impact: each rule's scope, as stored", async () => {
    const impact = await generate({});
    expect(impact.policy.source).toBe("live");
    const photos = impact.assets
      .filter((a) => a.ruleId === "photographs")
      .map((a) => a.ref)
      .sort();
    expect(photos).toEqual(assetsStoredAs("fmt/11", DEMO.refs.photographs));
    expect(photos.length).toBeGreaterThan(0);
    const minutes = impact.assets
      .filter((a) => a.ruleId === "council-minutes")
      .map((a) => a.ref)
      .sort();
    expect(minutes).toEqual(assetsStoredAs("fmt/18", DEMO.refs.councilMinutesSeries));
    expect(impact.assets.some((a) => a.ruleId === "closed-correspondence")).toBe(false);
    // A draft that does not exist is refused before anything starts.
    expect(
      (
        await manager("/api/analytics/policy.impact/generation", {
          method: "POST",
          ...json({ draftId: "00000000-0000-4000-8000-000000000000" }),
        })
      ).status,
    ).toBe(404);
  });
});

const PYP = "/tmp/pyp";
describe.skipIf(!existsSync(`${PYP}/pyPreservica`) || !existsSync("/usr/bin/python3"))(
  "pyPreservica SettingsAPI",
  () => {
    it("adds a profile and a rule, refuses deleting the profile in use, then deletes both", async () => {
      const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(PYP)})
from pyPreservica import SettingsAPI
client = SettingsAPI(username=sys.argv[1], password=sys.argv[2], server=sys.argv[3], protocol="http")
out = {}
profile = client.metadata_enrichment_add_profile("pyPreservica profile", True)
out["profile"] = client.metadata_enrichment_profile(profile["id"])["name"]
rule = client.metadata_enrichment_add_rule(profile["id"], 1)
out["rules"] = len(client.metadata_enrichment_rules(profile["id"])["rules"])
try:
    client.metadata_enrichment_delete_profile(profile["id"])
    out["inUse"] = "deleted"
except RuntimeError as e:
    out["inUse"] = e.args[0]
client.metadata_enrichment_delete_rule(rule["id"])
client.metadata_enrichment_delete_profile(profile["id"])
out["profiles"] = [p["name"] for p in client.metadata_enrichment_profiles()["profiles"]]
print(json.dumps(out))
`;
      // Asynchronously: the service answers from this same process.
      const { stdout: out } = await promisify(execFile)(
        "/usr/bin/python3",
        ["-c", script, "manager", DEMO_USERS.manager.password, repo.url.replace(/^http:\/\//, "")],
        { encoding: "utf8", timeout: 60_000 },
      );
      const got = JSON.parse(out.trim().split("\n").pop() as string);
      expect(got).toEqual({
        profile: "pyPreservica profile",
        rules: 1,
        inUse: 403,
        profiles: ["PII screening", "No enrichment"],
      });
    }, 90_000);
  },
);
