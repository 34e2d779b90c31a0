import { z } from "zod";
import { FINAL_STATES } from "../../api/actions.js";
import type { MigrationProfile, MigrationRule, PolicyImpact } from "../../api/admin.js";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { mapLimit, nameRefs } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { clip, formatBytes, lines, plural } from "../support/text.js";
import { findDraft, listed, MAX_LINES, profileFormats } from "./params.js";

/** How long the tool waits for an impact job before handing back its handle. */
const WAIT_MS = 20_000;
/** Affected assets whose folder is looked up for "largest folders" (one request each). */
const MAX_PARENT_LOOKUPS = 200;
const TOP_FOLDERS = 5;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const input = z.object({
  draft: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("A draft's id or exact name: show it instead of only listing drafts"),
  impact: z
    .boolean()
    .default(false)
    .describe("Compute what the draft (or, without draft, the live rules) would migrate: runs as a job"),
  job: z
    .string()
    .trim()
    .regex(UUID, "a job handle (UUID) from an earlier impact answer")
    .optional()
    .describe("Job handle of an earlier impact run still going: wait for it and summarise"),
});

const ruleOut = z.object({
  id: z.string(),
  name: z.string().nullable(),
  priority: z.number(),
  profile: z.string(),
  /** What the profile does, e.g. "fmt/18 → fmt/354". */
  formats: z.array(z.string()),
  /** The folders and assets the rule covers, with titles; empty = all content. */
  scope: z.array(z.object({ ref: z.string(), title: z.string().nullable(), type: z.string().nullable() })),
});

const impactOut = z.object({
  job: z.string(),
  status: z.string(),
  source: z.string().optional(),
  draftName: z.string().optional(),
  assetsConsidered: z.number().optional(),
  assetsAffected: z.number().optional(),
  filesAffected: z.number().optional(),
  bytesAffected: z.number().optional(),
  formats: z
    .array(
      z.object({
        puid: z.string(),
        name: z.string().optional(),
        action: z.string(),
        target: z.string().nullable(),
        assets: z.number(),
        files: z.number(),
        bytes: z.number(),
      }),
    )
    .optional(),
  rules: z
    .array(z.object({ ruleId: z.string(), assetsInScope: z.number(), assetsAffected: z.number() }))
    .optional(),
  largestFolders: z
    .array(z.object({ ref: z.string(), title: z.string().nullable(), assets: z.number() }))
    .optional(),
  /** Affected assets whose folder was not looked up (over MAX_PARENT_LOOKUPS). */
  foldersUncounted: z.number().optional(),
});

const output = z.object({
  live: z.array(ruleOut),
  drafts: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.string(),
      created: z.string(),
      createdBy: z.string(),
      rules: z.number(),
    }),
  ),
  draft: z
    .object({ id: z.string(), name: z.string(), status: z.string(), rules: z.array(ruleOut) })
    .optional(),
  impact: impactOut.optional(),
});

function rulesOut(rules: MigrationRule[], profiles: MigrationProfile[]) {
  const byId = new Map(profiles.map((p) => [p.id, p]));
  return [...rules]
    .sort((a, b) => a.priority - b.priority)
    .map((r) => ({
      id: r.id,
      name: r.name,
      priority: r.priority,
      profile: byId.get(r.profileId)?.name ?? r.profileId,
      formats: profileFormats(byId.get(r.profileId)),
      scope: r.entityRefs.map((ref) => ({
        ref,
        title: r.entityMap?.[ref]?.title ?? null,
        type: r.entityMap?.[ref]?.type ?? null,
      })),
    }));
}

function ruleLine(r: z.infer<typeof ruleOut>): string {
  const scope = r.scope.length
    ? listed(
        r.scope.map((s) => `“${clip(s.title ?? "(not readable or deleted)", 60)}” ${s.ref}`),
        5,
      )
    : "all content";
  return `${r.priority}. ${r.name ?? r.id} — ${r.profile} (${r.formats.join(", ") || "no formats"}) on ${scope}${r.name ? ` (rule id ${r.id})` : ""}`;
}

async function waitFor(ctx: ToolContext, job: string): Promise<string> {
  const until = Date.now() + WAIT_MS;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    const p = await ctx.api.actions.progress(job, ctx.signal);
    if (FINAL_STATES.has(p.status) || Date.now() + delay > until) return p.status;
    await new Promise((r) => setTimeout(r, delay));
    if (ctx.signal.aborted) return p.status;
  }
}

async function summarise(
  ctx: ToolContext,
  job: string,
  ds: PolicyImpact,
): Promise<z.infer<typeof impactOut>> {
  const d = ds.data;
  const assets = d.assets.slice(0, MAX_PARENT_LOOKUPS);
  const parents = await mapLimit(assets, 4, async (a) => {
    try {
      return (await ctx.entity.get(a.ref, "IO", ctx.signal)).parentRef;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      return undefined;
    }
  });
  const counts = new Map<string, number>();
  for (const p of parents) if (p) counts.set(p, (counts.get(p) ?? 0) + 1);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP_FOLDERS);
  const names = await nameRefs(
    ctx,
    top.map(([r]) => r),
    ["SO"],
    TOP_FOLDERS,
  );
  return {
    job,
    status: "COMPLETED",
    source: d.policy.source,
    ...(d.policy.draftName ? { draftName: d.policy.draftName } : {}),
    assetsConsidered: d.summary.assetsConsidered,
    assetsAffected: d.summary.assetsAffected,
    filesAffected: d.summary.filesAffected,
    bytesAffected: d.summary.bytesAffected,
    formats: d.formats.map((f) => ({
      puid: f.puid,
      ...(f.formatName ? { name: f.formatName } : {}),
      action: f.action,
      target: f.targetPuid ?? null,
      assets: f.assets,
      files: f.files,
      bytes: f.bytes,
    })),
    rules: d.rules.map((r) => ({
      ruleId: r.ruleId,
      assetsInScope: r.assetsInScope,
      assetsAffected: r.assetsAffected,
    })),
    largestFolders: top.map(([ref, n]) => ({ ref, title: names.get(ref)?.title ?? null, assets: n })),
    foldersUncounted: d.assets.length - assets.length,
  };
}

function impactText(i: z.infer<typeof impactOut>): string {
  if (i.status !== "COMPLETED")
    return `The impact computation is ${i.status === "ACTIVE" || i.status === "PENDING" ? "still running" : i.status} as job ${i.job}; follow it with \`job_status\`, or call migration_policy again with job "${i.job}".`;
  const migrated = (i.formats ?? []).filter((f) => f.action === "MIGRATE");
  return lines(
    `${i.draftName ? `Draft “${i.draftName}”` : "The live rules"} would migrate ${plural(i.assetsAffected ?? 0, "asset")} of ${(i.assetsConsidered ?? 0).toLocaleString("en")} (${plural(i.filesAffected ?? 0, "file")}, ${(i.bytesAffected ?? 0).toLocaleString("en")} bytes) in ${plural(migrated.length, "format")}. Job ${i.job}.`,
    ...migrated.map(
      (f) =>
        `- ${f.puid}${f.name ? ` (${f.name})` : ""} → ${f.target}: ${plural(f.assets, "asset")}, ${plural(f.files, "file")}, ${formatBytes(f.bytes)}`,
    ),
    (i.largestFolders ?? []).length > 0 &&
      `Largest folders: ${(i.largestFolders ?? []).map((f) => `“${f.title ?? f.ref}” ${f.ref} (${f.assets})`).join(", ")}${i.foldersUncounted ? ` (folders of ${i.foldersUncounted} assets not counted)` : ""}.`,
    `By rule: ${(i.rules ?? []).map((r) => `${r.ruleId} ${r.assetsAffected} of ${r.assetsInScope}`).join(", ")}.`,
  );
}

export default defineTool({
  name: "migration_policy",
  title: "Migration policy, drafts and their impact",
  description:
    "The live migration rules by priority with the titles of the folders they cover and what each profile does to which format (PUID), the drafts, and with impact: how many assets, files and bytes a draft would migrate, by format and largest folders (a job).",
  toolset: "admin",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  // impact computes a data set (a job) and changes nothing in the collection or configuration.
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const api = ctx.api.admin;
    const s = ctx.signal;
    const [liveRules, profiles, drafts] = await Promise.all([
      api.migrationRules(s),
      api.migrationProfiles(s),
      api.migrationDrafts(s),
    ]);
    const live = rulesOut(liveRules, profiles);
    const chosen = args.draft ? findDraft(drafts, args.draft) : undefined;
    const draft = chosen
      ? {
          id: chosen.id,
          name: chosen.name,
          status: chosen.status,
          rules: rulesOut(chosen.rules, chosen.profiles),
        }
      : undefined;
    let impact: z.infer<typeof impactOut> | undefined;
    if (args.job || args.impact) {
      const job = args.job ?? (await api.startPolicyImpact(chosen?.id, s));
      const status = await waitFor(ctx, job);
      if (status === "COMPLETED") {
        const ds = await api.policyImpact(s);
        if (ds.progressToken && ds.progressToken !== job)
          throw new UserInputError(
            `Job ${job} finished, but a newer impact computation (job ${ds.progressToken}) has replaced its result; call migration_policy with impact again.`,
          );
        impact = await summarise(ctx, job, ds);
      } else impact = { job, status };
    }
    const structured = {
      live,
      drafts: drafts.map((d) => ({
        id: d.id,
        name: d.name,
        status: d.status,
        created: d.created,
        createdBy: d.createdBy,
        rules: d.rules.length,
      })),
      ...(draft ? { draft } : {}),
      ...(impact ? { impact } : {}),
    };
    const text = lines(
      impact && impactText(impact),
      draft
        ? `Draft “${draft.name}” ${draft.id} (${draft.status}), ${plural(draft.rules.length, "rule")}:`
        : `Live migration rules (${live.length}), first match wins:`,
      ...(draft ? draft.rules : live).slice(0, MAX_LINES).map(ruleLine),
      (draft ? draft.rules : live).length > MAX_LINES &&
        `… ${(draft ? draft.rules : live).length - MAX_LINES} more rules in the structured answer.`,
      !draft &&
        drafts.length > 0 &&
        `Drafts: ${listed(
          drafts.map(
            (d) =>
              `“${d.name}” ${d.id} (${d.status}, ${d.created.slice(0, 16).replace("T", " ")} by ${d.createdBy})`,
          ),
          10,
        )}.`,
      !draft && drafts.length === 0 && "No drafts.",
    );
    return { structured, text };
  },
});
