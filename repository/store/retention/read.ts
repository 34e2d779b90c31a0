import type { Db } from "../db.js";
import { pageOf } from "../statements.js";

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
  let end: Date;
  if (unit in UNIT_MS) end = new Date(start.getTime() + p.period * (UNIT_MS[unit] as number));
  else {
    end = new Date(start);
    if (unit === "MONTHS") end.setUTCMonth(end.getUTCMonth() + p.period);
    else end.setUTCFullYear(end.getUTCFullYear() + p.period); // YEARS, and anything unrecognised
  }
  // Past year 9999 the ISO form gains a sign ("+010000-…") and no longer compares as text with other
  // dates; an end that far away means "never" for every purpose here.
  if (Number.isNaN(end.getTime()) || end.getUTCFullYear() > 9999) return null;
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

// ---------------------------------------------------------------------------------------------------
// Reads behind the retention routes

/** Whether an assignment has run its course at `now`: it has an end, and the end is not in the future. */
export function isExpired(
  a: Pick<RetentionAssignmentRow, "start_date" | "created">,
  p: Pick<RetentionPolicyRow, "period" | "period_unit">,
  now: string,
): boolean {
  const expires = assignmentExpiry(a, p);
  return expires !== null && expires <= now;
}

export function findPolicy(db: Db, ref: string): RetentionPolicyRow | undefined {
  return db.prepare("SELECT * FROM retention_policies WHERE ref = ?").get(ref) as
    | RetentionPolicyRow
    | undefined;
}

/** The policy with this name, compared without regard to case (names identify policies to people). */
export function findPolicyByName(db: Db, name: string): RetentionPolicyRow | undefined {
  return db.prepare("SELECT * FROM retention_policies WHERE name = ? COLLATE NOCASE").get(name) as
    | RetentionPolicyRow
    | undefined;
}

export interface PolicySummary {
  ref: string;
  name: string;
}

/** One page of policies, by name (then ref, so pages never overlap), with the total. */
export function policiesPage(db: Db, start: number, max: number): { items: PolicySummary[]; total: number } {
  const items = db
    .prepare("SELECT ref, name FROM retention_policies ORDER BY name COLLATE NOCASE, ref LIMIT ? OFFSET ?")
    .all(max, start) as PolicySummary[];
  const { n } = db.prepare("SELECT count(*) AS n FROM retention_policies").get() as { n: number };
  return { items, total: n };
}

/** An assignment with the policy facts its expiry depends on. */
export interface AssignmentWithPolicy extends RetentionAssignmentRow {
  period: number | null;
  period_unit: string | null;
}

const ASSIGNMENT_WITH_POLICY = `SELECT a.api_id, a.entity_ref, a.policy_ref, a.start_date, a.created, p.period, p.period_unit
  FROM retention_assignments a JOIN retention_policies p ON p.ref = a.policy_ref`;

/** One page of an entity's assignments, oldest first, with the total. */
export function assignmentsPage(
  db: Db,
  entityRef: string,
  start: number,
  max: number,
): { items: AssignmentWithPolicy[]; total: number } {
  const items = db
    .prepare(`${ASSIGNMENT_WITH_POLICY} WHERE a.entity_ref = ? ORDER BY a.created, a.api_id LIMIT ? OFFSET ?`)
    .all(entityRef, max, start) as AssignmentWithPolicy[];
  const { n } = db
    .prepare("SELECT count(*) AS n FROM retention_assignments WHERE entity_ref = ?")
    .get(entityRef) as { n: number };
  return { items, total: n };
}

export function findAssignment(db: Db, apiId: string): AssignmentWithPolicy | undefined {
  return db.prepare(`${ASSIGNMENT_WITH_POLICY} WHERE a.api_id = ?`).get(apiId) as
    | AssignmentWithPolicy
    | undefined;
}

/** The assignment of `policyRef` to `entityRef`, if the policy is already on the entity. */
export function findAssignmentOf(
  db: Db,
  entityRef: string,
  policyRef: string,
): RetentionAssignmentRow | undefined {
  return db
    .prepare("SELECT * FROM retention_assignments WHERE entity_ref = ? AND policy_ref = ?")
    .get(entityRef, policyRef) as RetentionAssignmentRow | undefined;
}

/** How many assignments use a policy, and (a few of) the entities they are on, for refusal messages. */
export function policyUsage(db: Db, policyRef: string, sample = 5): { count: number; entityRefs: string[] } {
  const { n } = db
    .prepare("SELECT count(*) AS n FROM retention_assignments WHERE policy_ref = ?")
    .get(policyRef) as { n: number };
  const rows = db
    .prepare(
      "SELECT DISTINCT entity_ref FROM retention_assignments WHERE policy_ref = ? ORDER BY entity_ref LIMIT ?",
    )
    .all(policyRef, sample) as { entity_ref: string }[];
  return { count: n, entityRefs: rows.map((r) => r.entity_ref) };
}

export function securityTagExists(db: Db, tag: string): boolean {
  return db.prepare("SELECT 1 FROM security_tags WHERE name = ?").get(tag) !== undefined;
}

export function securityTagNames(db: Db): string[] {
  return (db.prepare("SELECT name FROM security_tags ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );
}

export interface RetentionEventRow {
  id: number;
  ref: string;
  type: string;
  date: string;
  username: string;
  entity_ref: string | null;
  policy_ref: string | null;
  assignment_id: string | null;
  detail: string | null;
}

export interface RetentionEventFilter {
  /** ISO 8601 UTC bounds, inclusive; null = open. */
  from: string | null;
  to: string | null;
  /** JSON array of the caller's readable security tags. */
  tags: string;
}

/**
 * Policy events are shown to everyone (policies are readable with any token); an assignment event only
 * when the caller may read the asset's security tag, so the list never reveals hidden assets.
 */
const EVENT_FILTER = `(@from IS NULL OR r.date >= @from) AND (@to IS NULL OR r.date <= @to)
  AND (r.entity_ref IS NULL OR EXISTS (SELECT 1 FROM entities e WHERE e.ref = r.entity_ref
        AND e.security_tag IN (SELECT value FROM json_each(@tags))))`;

/** One page of retention events, oldest first (the order they happened in), with the total. */
export function retentionEventsPage(
  db: Db,
  filter: RetentionEventFilter,
  start: number,
  max: number,
): { items: RetentionEventRow[]; total: number } {
  return pageOf(
    db,
    `SELECT r.* FROM retention_events r WHERE ${EVENT_FILTER} ORDER BY r.date, r.id LIMIT @max OFFSET @start`,
    `SELECT count(*) AS n FROM retention_events r WHERE ${EVENT_FILTER}`,
    { ...filter },
    start,
    max,
  );
}
