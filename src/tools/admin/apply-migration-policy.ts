import { z } from "zod";
import type { MigrationDraft, MigrationProfile, MigrationRule, PolicyImpact } from "../../api/admin.js";
import { isNotFound } from "../../api/errors.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { OVERWRITE } from "../support/hints.js";
import { clip, lines, plural } from "../support/text.js";
import { findDraft, listed, MAX_LINES, profileFormats } from "./params.js";

const input = z.object({
  draft: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe("The draft's id or exact name; `migration_policy` lists drafts"),
});

const output = z.object({
  draft: z.object({ id: z.string(), name: z.string(), status: z.string(), applied: z.string().nullable() }),
  /** What the draft changed against the live rules, one line each ("rule photographs removed", …). */
  changes: z.array(z.string()),
  rulesBefore: z.number(),
  rulesAfter: z.number(),
  profilesBefore: z.number(),
  profilesAfter: z.number(),
});

function formats(p: MigrationProfile | undefined): string {
  return profileFormats(p).join(", ") || "no formats";
}

function scope(r: MigrationRule): string {
  if (r.entityRefs.length === 0) return "all content";
  return listed(
    r.entityRefs.map((ref) => `“${clip(r.entityMap?.[ref]?.title ?? "(not readable or deleted)", 50)}”`),
    4,
  );
}

/**
 * The draft against the live configuration, one line per difference: rules added, removed or changed (by
 * id: priority, profile, scope), then profiles added, removed or with other formats.
 */
export function differences(
  live: { rules: MigrationRule[]; profiles: MigrationProfile[] },
  draft: { rules: MigrationRule[]; profiles: MigrationProfile[] },
): string[] {
  const out: string[] = [];
  const liveRule = new Map(live.rules.map((r) => [r.id, r]));
  const draftRule = new Map(draft.rules.map((r) => [r.id, r]));
  const profileName = (id: string, ps: MigrationProfile[]) => ps.find((p) => p.id === id)?.name ?? id;
  for (const r of [...draft.rules].sort((a, b) => a.priority - b.priority)) {
    const was = liveRule.get(r.id);
    const profile = `${profileName(r.profileId, draft.profiles)} (${formats(draft.profiles.find((p) => p.id === r.profileId))})`;
    if (!was) {
      out.push(`Rule ${r.id} added at priority ${r.priority}: ${profile} on ${scope(r)}`);
      continue;
    }
    const diff: string[] = [];
    if (was.priority !== r.priority) diff.push(`priority ${was.priority} → ${r.priority}`);
    if (was.profileId !== r.profileId)
      diff.push(`profile ${profileName(was.profileId, live.profiles)} → ${profile}`);
    if ([...was.entityRefs].sort().join() !== [...r.entityRefs].sort().join())
      diff.push(`scope ${scope(was)} → ${scope(r)}`);
    if (diff.length > 0) out.push(`Rule ${r.id} changed: ${diff.join("; ")}`);
  }
  for (const r of live.rules)
    if (!draftRule.has(r.id))
      out.push(
        `Rule ${r.id} removed (was priority ${r.priority}: ${profileName(r.profileId, live.profiles)} on ${scope(r)})`,
      );
  const liveProfile = new Map(live.profiles.map((p) => [p.id, p]));
  for (const p of draft.profiles) {
    const was = liveProfile.get(p.id);
    if (!was) out.push(`Profile ${p.name} added: ${formats(p)}`);
    else if (formats(was) !== formats(p))
      out.push(`Profile ${p.name} changed: ${formats(was)} → ${formats(p)}`);
  }
  for (const p of live.profiles)
    if (!draft.profiles.some((d) => d.id === p.id)) out.push(`Profile ${p.name} removed (${formats(p)})`);
  return out;
}

/** The newest policy.impact data set when it was computed for this draft since its last change. */
async function knownImpact(ctx: ToolContext, d: MigrationDraft): Promise<PolicyImpact | undefined> {
  try {
    const ds = await ctx.api.admin.policyImpact(ctx.signal);
    const forDraft = ds.data.policy.draftId === d.id || ds.parameters.draftId === d.id;
    return forDraft && ds.generated >= (d.modified ?? d.created) ? ds : undefined;
  } catch (err) {
    // Never generated: the service answers 404 until the first generation.
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function examine(args: z.infer<typeof input>, ctx: ToolContext) {
  const api = ctx.api.admin;
  const s = ctx.signal;
  const [rules, profiles, drafts] = await Promise.all([
    api.migrationRules(s),
    api.migrationProfiles(s),
    api.migrationDrafts(s),
  ]);
  const d = findDraft(drafts, args.draft);
  if (d.status !== "DRAFT")
    throw new UserInputError(
      `Draft “${d.name}” was applied already (${d.applied ?? "date unknown"} by ${d.appliedBy ?? "someone"}); it is the record of that. Create a new draft to change the rules again.`,
    );
  const live = { rules, profiles };
  return { d, live, changes: differences(live, d) };
}

export default defineTool({
  name: "apply_migration_policy",
  title: "Apply a migration policy draft",
  description:
    "Make a migration policy draft the live rules. Asks for confirmation first, showing what the draft changes against the live rules and, if computed (`migration_policy` with impact), how many assets, files and bytes it would migrate.",
  toolset: "admin",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  // Replaces the live configuration whole; a second apply of the same draft is refused (it is applied).
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const { d, live, changes } = await examine(args, ctx);
    const impact = await knownImpact(ctx, d);
    const sum = impact?.data.summary;
    return {
      summary: `Apply migration draft “${d.name}”: live rules ${live.rules.length} → ${d.rules.length}, ${plural(changes.length, "change")}`,
      details: [
        ...changes.slice(0, MAX_LINES),
        changes.length > MAX_LINES && `… and ${changes.length - MAX_LINES} more changes.`,
        changes.length === 0 && "The draft's rules and profiles are the same as the live ones.",
        sum
          ? `Impact (computed ${impact?.generated}): would migrate ${plural(sum.assetsAffected, "asset")} of ${sum.assetsConsidered} (${plural(sum.filesAffected, "file")}, ${sum.bytesAffected.toLocaleString("en")} bytes).`
          : `Impact not computed for this draft since its last change; \`migration_policy\` with draft "${d.name}" and impact true computes it.`,
      ].filter((l): l is string => typeof l === "string"),
      targets: [
        {
          ref: `migration-draft:${d.id}`,
          title: d.name,
          fingerprint: fingerprint(d.modified ?? d.created, d.rules, d.profiles, live.rules, live.profiles),
        },
      ],
      preview: {
        draft: d.id,
        changes: changes.length,
        rulesBefore: live.rules.length,
        rulesAfter: d.rules.length,
      },
    };
  },
  async handler(args, ctx: ToolContext) {
    const { d, live, changes } = await examine(args, ctx);
    const res = await ctx.api.admin.applyMigrationDraft(d.id, ctx.signal);
    const structured = {
      draft: { id: res.draft.id, name: res.draft.name, status: res.draft.status, applied: res.draft.applied },
      changes,
      rulesBefore: live.rules.length,
      rulesAfter: res.live.rules.length,
      profilesBefore: live.profiles.length,
      profilesAfter: res.live.profiles.length,
    };
    return {
      structured,
      text: lines(
        `Applied migration draft “${d.name}” ${d.id}: the live rules are now its ${plural(res.live.rules.length, "rule")} (were ${live.rules.length}), ${plural(res.live.profiles.length, "profile")} (were ${live.profiles.length}).`,
        ...changes.slice(0, MAX_LINES).map((c) => `- ${c}`),
        changes.length > MAX_LINES &&
          `… and ${changes.length - MAX_LINES} more changes in the structured answer.`,
        "The draft is now marked APPLIED; the service recorded a SETTINGS APPLY config event.",
      ),
      audit: { targets: [{ ref: `migration-draft:${d.id}`, title: d.name }] },
    };
  },
});
