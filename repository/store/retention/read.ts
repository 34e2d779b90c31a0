import type { Db } from "../db.js";

/** Reads of retention policies and assignments (the writes are in write.ts). */

export interface RetentionPolicyRow {
  ref: string;
  name: string;
  description: string;
  security_tag: string;
  start_date_field: string | null;
  period: number | null;
  period_unit: string | null;
  expiry_action: string | null;
  expiry_action_parameters: string | null;
  restriction: string | null;
  assignable: number;
  created: string;
  modified: string;
}

export interface RetentionAssignmentRow {
  api_id: string;
  entity_ref: string;
  policy_ref: string;
  start_date: string | null;
  created: string;
}

/** A retention assignment that keeps an entity from being deleted, with what a person needs to know. */
export interface BlockingAssignment {
  entityRef: string;
  apiId: string;
  policyRef: string;
  policyName: string;
  /** ISO 8601 instant the retention ends; null = indefinite (no period). */
  expires: string | null;
}

const UNIT_MS: Record<string, number> = { DAYS: 86_400_000, WEEKS: 7 * 86_400_000 };

/** When an assignment expires: start (or its creation) plus the policy's period; null = never. */
export function assignmentExpiry(
  a: Pick<RetentionAssignmentRow, "start_date" | "created">,
  p: Pick<RetentionPolicyRow, "period" | "period_unit">,
): string | null {
  if (p.period === null || p.period === undefined) return null;
  const start = new Date(a.start_date ?? a.created);
  if (Number.isNaN(start.getTime())) return null;
  const unit = (p.period_unit ?? "YEARS").toUpperCase().replace(/S?$/, "S");
  if (unit in UNIT_MS) return new Date(start.getTime() + p.period * (UNIT_MS[unit] as number)).toISOString();
  const end = new Date(start);
  if (unit === "MONTHS") end.setUTCMonth(end.getUTCMonth() + p.period);
  else end.setUTCFullYear(end.getUTCFullYear() + p.period); // YEARS, and anything unrecognised
  return end.toISOString();
}

/**
 * Unexpired retention assignments on any of `entityRefs` at `now`: each one forbids deleting its
 * entity (and so any folder above it). Deletion refuses while this is non-empty.
 */
export function blockingRetention(db: Db, entityRefs: readonly string[], now: string): BlockingAssignment[] {
  if (entityRefs.length === 0) return [];
  const rows = db
    .prepare(
      `SELECT a.api_id, a.entity_ref, a.policy_ref, a.start_date, a.created, p.name, p.period, p.period_unit
         FROM retention_assignments a JOIN retention_policies p ON p.ref = a.policy_ref
        WHERE a.entity_ref IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(entityRefs)) as (RetentionAssignmentRow & {
    name: string;
    period: number | null;
    period_unit: string | null;
  })[];
  const out: BlockingAssignment[] = [];
  for (const r of rows) {
    const expires = assignmentExpiry(r, r);
    if (expires === null || expires > now) {
      out.push({
        entityRef: r.entity_ref,
        apiId: r.api_id,
        policyRef: r.policy_ref,
        policyName: r.name,
        expires,
      });
    }
  }
  return out;
}
