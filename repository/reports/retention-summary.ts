import { assignmentExpiry, type RetentionPolicyRow } from "../store/retention/read.js";
import type { Report, ReportInput, ReportRow, ReportStep } from "./definitions.js";
import { readable, tagsParam } from "./scope.js";

/**
 * Retention summary: for each retention policy, the live assets you may read that are assigned to it,
 * how many of those assignments have expired (start, or creation, plus the policy's period is past) and
 * how many still run (including those of policies without a period, which never expire), and the next
 * expiry to come. Expiry is computed exactly as deletion checks it (store/retention/read.ts). A last
 * row counts the readable live assets that no policy holds. One policy per step; a policy's
 * assignments are read a page at a time in asset order, so assets are counted once each.
 */

const ASSIGNMENTS_PER_PAGE = 1000;

/** Marks the row of assets without any policy. */
export const NO_POLICY_TITLE = "(no retention policy)";

interface AssignmentRow {
  api_id: string;
  entity_ref: string;
  start_date: string | null;
  created: string;
}

export const retentionSummary: Report = {
  definition: {
    id: "retention-summary",
    name: "Retention summary",
    description:
      "For each retention policy, the live assets you may read that it holds, its assignments expired and still running (no period: never expire), and the next expiry; then the assets no policy holds.",
    parameters: [],
    columns: [
      { name: "policyRef", title: "Policy reference", type: "ref" },
      { name: "policyName", title: "Policy name", type: "string" },
      { name: "period", title: "Period", type: "string" },
      { name: "assets", title: "Assets", type: "integer" },
      { name: "assignments", title: "Assignments", type: "integer" },
      { name: "expired", title: "Expired", type: "integer" },
      { name: "running", title: "Still running", type: "integer" },
      { name: "nextExpiry", title: "Next expiry", type: "date" },
    ],
  },
  *run(input: ReportInput): Generator<ReportStep> {
    const { db, now } = input;
    const tags = tagsParam(input.readableTags);
    const policies = db
      .prepare("SELECT * FROM retention_policies ORDER BY name COLLATE NOCASE, ref")
      .all() as RetentionPolicyRow[];
    const page = db.prepare(
      `SELECT a.api_id, a.entity_ref, a.start_date, a.created FROM retention_assignments a
         CROSS JOIN entities e ON e.ref = a.entity_ref AND e.type = 'IO' AND e.deleted = 0 AND ${readable("e")}
        WHERE a.policy_ref = @policy AND (a.entity_ref > @afterRef OR (a.entity_ref = @afterRef AND a.api_id > @afterId))
        ORDER BY a.entity_ref, a.api_id LIMIT @limit`,
    );
    const total = policies.length + 1;
    let done = 0;
    for (const p of policies) {
      const figures = {
        assets: 0,
        assignments: 0,
        expired: 0,
        running: 0,
        nextExpiry: null as string | null,
      };
      let afterRef = "";
      let afterId = "";
      for (;;) {
        const rows = page.all({
          policy: p.ref,
          afterRef,
          afterId,
          limit: ASSIGNMENTS_PER_PAGE,
          tags,
        }) as AssignmentRow[];
        for (const a of rows) {
          if (a.entity_ref !== afterRef) figures.assets++;
          figures.assignments++;
          const expires = assignmentExpiry(a, p);
          if (expires !== null && expires <= now) figures.expired++;
          else {
            figures.running++;
            if (expires !== null && (figures.nextExpiry === null || expires < figures.nextExpiry)) {
              figures.nextExpiry = expires;
            }
          }
          afterRef = a.entity_ref;
          afterId = a.api_id;
        }
        if (rows.length < ASSIGNMENTS_PER_PAGE) break;
      }
      done++;
      yield {
        rows: [{ policyRef: p.ref, policyName: p.name, period: periodOf(p), ...figures }],
        done,
        total,
      };
    }
    const { n } = db
      .prepare(
        `SELECT count(*) AS n FROM entities e WHERE e.type = 'IO' AND e.deleted = 0 AND ${readable("e")}
           AND NOT EXISTS (SELECT 1 FROM retention_assignments a WHERE a.entity_ref = e.ref)`,
      )
      .get({ tags }) as { n: number };
    const unheld: ReportRow = {
      policyRef: "",
      policyName: NO_POLICY_TITLE,
      period: "",
      assets: n,
      assignments: 0,
      expired: 0,
      running: 0,
      nextExpiry: null,
    };
    yield { rows: [unheld], done: total, total };
  },
};

/** "7 YEARS", or "indefinite" for a policy without a period. */
function periodOf(p: RetentionPolicyRow): string {
  if (p.period === null || p.period === undefined) return "indefinite";
  return `${p.period} ${(p.period_unit ?? "YEARS").toUpperCase()}`;
}
