import { randomUUID } from "node:crypto";
import type { Db } from "../db.js";
import { EventType, recordChange } from "../events/write.js";
import type { RetentionAssignmentRow, RetentionPolicyRow } from "./read.js";

/**
 * Writes of retention policies and assignments. Each write is one transaction that also leaves its
 * trace: a `retention_events` row for every change, and for assignment changes also an entity event
 * (so the change shows in the asset's history and in updated-since). Callers validate first.
 */

/** What a policy says, as the routes have validated it. */
export interface PolicyFields {
  name: string;
  description: string;
  securityTag: string;
  startDateField: string | null;
  period: number | null;
  periodUnit: string | null;
  expiryAction: string | null;
  expiryActionParameters: string | null;
  restriction: string | null;
  assignable: boolean;
}

/** Who made a change, and when (ISO 8601 UTC). */
export interface Actor {
  username: string;
  date: string;
}

/** The `type` of a retention event (shown by GET /api/entity/retention-events). */
export const RetentionEventType = {
  CREATED: "Created",
  UPDATED: "Updated",
  DELETED: "Deleted",
  ASSIGNED: "Assigned",
  UNASSIGNED: "Unassigned",
} as const;

/** Command types of the entity events that assignment changes record. */
export const RetentionCommand = {
  ADD: "AddRetentionAssignment",
  REMOVE: "RemoveRetentionAssignment",
} as const;

interface NewRetentionEvent {
  type: string;
  policyRef: string;
  entityRef?: string | null;
  assignmentId?: string | null;
  detail?: string | null;
}

function addRetentionEvent(db: Db, actor: Actor, e: NewRetentionEvent): string {
  const ref = randomUUID();
  db.prepare(
    `INSERT INTO retention_events (ref, type, date, username, entity_ref, policy_ref, assignment_id, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    ref,
    e.type,
    actor.date,
    actor.username,
    e.entityRef ?? null,
    e.policyRef,
    e.assignmentId ?? null,
    e.detail ?? null,
  );
  return ref;
}

/** Column values of a policy, in the order of POLICY_COLUMNS. */
function policyValues(f: PolicyFields): (string | number | null)[] {
  return [
    f.name,
    f.description,
    f.securityTag,
    f.startDateField,
    f.period,
    f.periodUnit,
    f.expiryAction,
    f.expiryActionParameters,
    f.restriction,
    f.assignable ? 1 : 0,
  ];
}
const POLICY_COLUMNS = [
  "name",
  "description",
  "security_tag",
  "start_date_field",
  "period",
  "period_unit",
  "expiry_action",
  "expiry_action_parameters",
  "restriction",
  "assignable",
] as const;
/** Wire names of the columns, for saying what an update changed. */
const WIRE_NAMES: Record<(typeof POLICY_COLUMNS)[number], string> = {
  name: "Name",
  description: "Description",
  security_tag: "SecurityTag",
  start_date_field: "StartDateField",
  period: "Period",
  period_unit: "PeriodUnit",
  expiry_action: "ExpiryAction",
  expiry_action_parameters: "ExpiryActionParameters",
  restriction: "Restriction",
  assignable: "Assignable",
};

/** Creates a policy; returns its new ref (a fresh one unless the demo seed gives its fixed ref). */
export function createPolicy(db: Db, fields: PolicyFields, actor: Actor, ref: string = randomUUID()): string {
  db.transaction(() => {
    db.prepare(
      `INSERT INTO retention_policies (ref, ${POLICY_COLUMNS.join(", ")}, created, modified)
       VALUES (?, ${POLICY_COLUMNS.map(() => "?").join(", ")}, ?, ?)`,
    ).run(ref, ...policyValues(fields), actor.date, actor.date);
    addRetentionEvent(db, actor, {
      type: RetentionEventType.CREATED,
      policyRef: ref,
      detail: `Created policy "${fields.name}"`,
    });
  })();
  return ref;
}

/** Replaces what a policy says; the event names the fields that changed. */
export function updatePolicy(db: Db, before: RetentionPolicyRow, fields: PolicyFields, actor: Actor): void {
  const values = policyValues(fields);
  const changed = POLICY_COLUMNS.filter((col, i) => before[col] !== values[i]).map((col) => WIRE_NAMES[col]);
  db.transaction(() => {
    db.prepare(
      `UPDATE retention_policies SET ${POLICY_COLUMNS.map((c) => `${c} = ?`).join(", ")}, modified = ? WHERE ref = ?`,
    ).run(...values, actor.date, before.ref);
    addRetentionEvent(db, actor, {
      type: RetentionEventType.UPDATED,
      policyRef: before.ref,
      detail:
        changed.length > 0
          ? `Updated policy "${fields.name}": ${changed.join(", ")} changed`
          : `Updated policy "${fields.name}": nothing changed`,
    });
  })();
}

/** Allows or forbids assigning (and unassigning) a policy. */
export function setAssignable(db: Db, policy: RetentionPolicyRow, assignable: boolean, actor: Actor): void {
  db.transaction(() => {
    db.prepare("UPDATE retention_policies SET assignable = ?, modified = ? WHERE ref = ?").run(
      assignable ? 1 : 0,
      actor.date,
      policy.ref,
    );
    addRetentionEvent(db, actor, {
      type: RetentionEventType.UPDATED,
      policyRef: policy.ref,
      detail: `Policy "${policy.name}" made ${assignable ? "assignable" : "not assignable"}`,
    });
  })();
}

/** Deletes a policy that no assignment uses (the caller checks). */
export function deletePolicy(db: Db, policy: RetentionPolicyRow, actor: Actor): void {
  db.transaction(() => {
    db.prepare("DELETE FROM retention_policies WHERE ref = ?").run(policy.ref);
    addRetentionEvent(db, actor, {
      type: RetentionEventType.DELETED,
      policyRef: policy.ref,
      detail: `Deleted policy "${policy.name}"`,
    });
  })();
}

/** Assigns a policy to an asset, from `startDate` (null: from the assignment itself). */
export function assignPolicy(
  db: Db,
  entityRef: string,
  policy: RetentionPolicyRow,
  startDate: string | null,
  actor: Actor,
): RetentionAssignmentRow {
  const row: RetentionAssignmentRow = {
    api_id: randomUUID(),
    entity_ref: entityRef,
    policy_ref: policy.ref,
    start_date: startDate,
    created: actor.date,
  };
  const detail = `Assigned retention policy "${policy.name}" (${policy.ref}), assignment ${row.api_id}`;
  db.transaction(() => {
    db.prepare(
      "INSERT INTO retention_assignments (api_id, entity_ref, policy_ref, start_date, created) VALUES (?, ?, ?, ?, ?)",
    ).run(row.api_id, row.entity_ref, row.policy_ref, row.start_date, row.created);
    recordChange(db, {
      username: actor.username,
      date: actor.date,
      type: EventType.RETENTION,
      commandType: RetentionCommand.ADD,
      entityRefs: [entityRef],
      detail,
    });
    addRetentionEvent(db, actor, {
      type: RetentionEventType.ASSIGNED,
      policyRef: policy.ref,
      entityRef,
      assignmentId: row.api_id,
      detail,
    });
  })();
  return row;
}

/** Removes an assignment from its asset. */
export function removeAssignment(
  db: Db,
  assignment: RetentionAssignmentRow,
  policy: RetentionPolicyRow,
  actor: Actor,
): void {
  const detail = `Removed retention policy "${policy.name}" (${policy.ref}), assignment ${assignment.api_id}`;
  db.transaction(() => {
    db.prepare("DELETE FROM retention_assignments WHERE api_id = ?").run(assignment.api_id);
    recordChange(db, {
      username: actor.username,
      date: actor.date,
      type: EventType.RETENTION,
      commandType: RetentionCommand.REMOVE,
      entityRefs: [assignment.entity_ref],
      detail,
    });
    addRetentionEvent(db, actor, {
      type: RetentionEventType.UNASSIGNED,
      policyRef: policy.ref,
      entityRef: assignment.entity_ref,
      assignmentId: assignment.api_id,
      detail,
    });
  })();
}
