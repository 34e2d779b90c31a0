import { computeImpact } from "../store/analytics/impact.js";
import { saveDataset } from "../store/analytics/write.js";
import type { MigrationConfig } from "../store/settings/migration-config.js";
import { draftConfig, getDraft, liveConfig } from "../store/settings/read.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";

/**
 * Generation of an Analytics API data set (POST /api/analytics/{apiId}/generation). The one data set so
 * far is policy.impact: the assets a migration configuration (a draft, or the live one) would act on,
 * from the formats stored now. It reads the store rule by rule, reporting progress through the action
 * (so /api/entity/progress/{id} shows it) and pausing between rules; the result is stored in one
 * transaction at the end. It changes nothing else, so an interrupted generation simply runs again.
 */

export const ANALYTICS_KIND = "analytics-generation";
export const ANALYTICS_PATH = "analytics";
export const POLICY_IMPACT = "policy.impact";

export interface GenerationParams {
  apiId: string;
  parameters: { draftId?: string };
}

/** The configuration a policy.impact generation is asked about: a draft's, or the live one. */
export function policyOf(
  svc: ActionRun["svc"],
  draftId: string | undefined,
):
  | {
      config: MigrationConfig;
      policy: { source: "draft" | "live"; draftId: string | null; draftName: string | null };
    }
  | string {
  if (!draftId)
    return { config: liveConfig(svc.db), policy: { source: "live", draftId: null, draftName: null } };
  const draft = getDraft(svc.db, draftId);
  if (!draft) return `Migration draft ${draftId} no longer exists (deleted since generation was asked for)`;
  return {
    config: draftConfig(draft),
    policy: { source: "draft", draftId: draft.id, draftName: draft.name },
  };
}

async function run(r: ActionRun): Promise<ActionOutcome> {
  const { svc, action } = r;
  const { db } = svc;
  const params = r.params as GenerationParams;
  if (params.apiId !== POLICY_IMPACT) {
    return {
      status: "FAILED",
      message: `This version of the service cannot generate data set "${params.apiId}"`,
    };
  }
  const resolved = policyOf(svc, params.parameters?.draftId);
  if (typeof resolved === "string")
    return { status: "FAILED", message: `${resolved}; nothing was generated` };
  const { config, policy } = resolved;
  const setProgress = db.prepare("UPDATE actions SET total = ?, done = ?, updated = ? WHERE id = ?");
  const total = config.rules.length;
  setProgress.run(total, 0, r.now(), action.id);
  const steps = computeImpact(db, config);
  let next = steps.next();
  while (!next.done) {
    setProgress.run(total, next.value, r.now(), action.id);
    await r.pause();
    next = steps.next();
  }
  const impact = next.value;
  const generated = r.now();
  db.transaction(() => {
    saveDataset(db, {
      actionId: action.id,
      apiId: POLICY_IMPACT,
      username: action.username,
      parameters: params.parameters ?? {},
      generated,
      result: { policy, ...impact },
    });
    setProgress.run(total, total, generated, action.id);
  })();
  const s = impact.summary;
  return {
    status: "COMPLETED",
    message: `${s.assetsAffected} of ${s.assetsConsidered} assets would be acted on (${s.filesAffected} files); GET /api/analytics/datasets/${POLICY_IMPACT} returns the data set`,
  };
}

export const analyticsAction: ActionKind = {
  kind: ANALYTICS_KIND,
  path: ANALYTICS_PATH,
  title: "Analytics data set generation (policy.impact: what a migration policy would act on)",
  run,
};
