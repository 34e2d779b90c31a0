import type {
  PolicySummary,
  RetentionAssignmentRow,
  RetentionEventRow,
  RetentionPolicyRow,
} from "../store/retention/read.js";
import { type ListMeta, type RenderContext, writeListTail } from "./common.js";
import { XmlWriter } from "./writer.js";

/**
 * Retention documents. Lists are EntityAPI documents (default namespace `…/EntityAPI/vX.Y`, as clients
 * read the version from it); policies and assignments themselves are in the RetentionManagement
 * namespace, which stays `…/v6.2` whatever the API version (pyPreservica looks them up in it), bound
 * to the `retention` prefix as the real service does.
 */
export const RM_NS = "http://preservica.com/RetentionManagement/v6.2";

function open(ctx: RenderContext, root: string): XmlWriter {
  return new XmlWriter().open(root, {
    xmlns: ctx.version.entityNs,
    "xmlns:xip": ctx.version.xipNs,
    "xmlns:retention": RM_NS,
  });
}

export function policyUrl(ctx: RenderContext, ref: string): string {
  return `${ctx.base}/retention-policies/${ref}`;
}

/** RetentionPoliciesResponse: RetentionPolicies/RetentionPolicy ref name (text = the policy's URL), Paging. */
export function policiesDocument(ctx: RenderContext, policies: PolicySummary[], meta: ListMeta): string {
  const w = open(ctx, "RetentionPoliciesResponse").open("RetentionPolicies");
  for (const p of policies) w.leaf("RetentionPolicy", policyUrl(ctx, p.ref), { ref: p.ref, name: p.name });
  w.close("RetentionPolicies");
  return writeListTail(w, meta).close("RetentionPoliciesResponse").toString();
}

/** The nested retention:RetentionPolicy; optional fields only when set, Assignable always. */
function writePolicy(w: XmlWriter, p: RetentionPolicyRow): void {
  w.open("retention:RetentionPolicy")
    .leaf("retention:Ref", p.ref)
    .leaf("retention:Name", p.name)
    .leaf("retention:Description", p.description)
    .leaf("retention:SecurityTag", p.security_tag)
    .opt("retention:StartDateField", p.start_date_field)
    .opt("retention:Period", p.period)
    .opt("retention:PeriodUnit", p.period_unit)
    .opt("retention:ExpiryAction", p.expiry_action)
    .opt("retention:ExpiryActionParameters", p.expiry_action_parameters)
    .opt("retention:Restriction", p.restriction)
    .leaf("retention:Assignable", p.assignable === 1 ? "true" : "false")
    .close("retention:RetentionPolicy");
}

/** RetentionPolicyResponse: one nested retention:RetentionPolicy, then AdditionalInformation/Self. */
export function policyDocument(ctx: RenderContext, p: RetentionPolicyRow): string {
  const w = open(ctx, "RetentionPolicyResponse");
  writePolicy(w, p);
  return w
    .open("AdditionalInformation")
    .leaf("Self", policyUrl(ctx, p.ref))
    .close("AdditionalInformation")
    .close("RetentionPolicyResponse")
    .toString();
}

/** An assignment as shown: its row and whether it has expired at the time of the request. */
export interface AssignmentView {
  row: RetentionAssignmentRow;
  expired: boolean;
}

function writeAssignment(w: XmlWriter, a: AssignmentView): void {
  w.open("retention:RetentionAssignment")
    .leaf("retention:Entity", a.row.entity_ref)
    .leaf("retention:RetentionPolicy", a.row.policy_ref)
    .opt("retention:StartDate", a.row.start_date)
    .leaf("retention:Expired", a.expired ? "true" : "false")
    .leaf("retention:ApiId", a.row.api_id)
    .close("retention:RetentionAssignment");
}

/** RetentionAssignmentsResponse: RetentionAssignments/retention:RetentionAssignment…, Paging. */
export function assignmentsDocument(ctx: RenderContext, items: AssignmentView[], meta: ListMeta): string {
  const w = open(ctx, "RetentionAssignmentsResponse").open("RetentionAssignments");
  for (const a of items) writeAssignment(w, a);
  w.close("RetentionAssignments");
  return writeListTail(w, meta).close("RetentionAssignmentsResponse").toString();
}

/** RetentionAssignmentResponse: the one nested retention:RetentionAssignment just made. */
export function assignmentDocument(ctx: RenderContext, a: AssignmentView): string {
  const w = open(ctx, "RetentionAssignmentResponse");
  writeAssignment(w, a);
  return w.close("RetentionAssignmentResponse").toString();
}

/**
 * RetentionEventsResponse: RetentionEvents/RetentionEvent type=Created|Updated|Deleted|Assigned|Unassigned
 * with Ref, Date, User, RetentionPolicy (ref), Entity? and ApiId? (assignment events), Detail?; Paging.
 */
export function retentionEventsDocument(
  ctx: RenderContext,
  events: RetentionEventRow[],
  meta: ListMeta,
): string {
  const w = open(ctx, "RetentionEventsResponse").open("RetentionEvents");
  for (const e of events) {
    w.open("RetentionEvent", { type: e.type })
      .leaf("Ref", e.ref)
      .leaf("Date", e.date)
      .leaf("User", e.username)
      .opt("RetentionPolicy", e.policy_ref)
      .opt("Entity", e.entity_ref)
      .opt("ApiId", e.assignment_id)
      .opt("Detail", e.detail)
      .close("RetentionEvent");
  }
  w.close("RetentionEvents");
  return writeListTail(w, meta).close("RetentionEventsResponse").toString();
}
