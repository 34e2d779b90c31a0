import type { IncomingMessage } from "node:http";
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { nowIso } from "../context.js";
import { parsePaging } from "../http/paging.js";
import { checkRole, MANAGERS } from "../http/roles.js";
import { child, childText, type XmlNode } from "../http/xml-body.js";
import { Permission } from "../store/auth.js";
import { getEntity } from "../store/entities/read.js";
import type { EntityRow } from "../store/entities/types.js";
import {
  assignmentsPage,
  findAssignment,
  findAssignmentOf,
  findPolicy,
  findPolicyByName,
  isExpired,
  policiesPage,
  policyUsage,
  type RetentionPolicyRow,
  retentionEventsPage,
  securityTagExists,
  securityTagNames,
} from "../store/retention/read.js";
import {
  type Actor,
  assignPolicy,
  createPolicy,
  deletePolicy,
  type PolicyFields,
  removeAssignment,
  setAssignable,
  updatePolicy,
} from "../store/retention/write.js";
import {
  assignmentDocument,
  assignmentsDocument,
  policiesDocument,
  policyDocument,
  RM_NS,
  retentionEventsDocument,
} from "../xml/retention-docs.js";
import {
  DEFAULT_PAGE_SIZE,
  ENTITY_API_PATH,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  isoParam,
  listMeta,
  noContent,
  paging,
  readableEntity,
  readableTags,
  refInPath,
  requireUuid,
  writableEntity,
  xml,
  xmlRequest,
} from "./entity-common.js";

/**
 * Retention: policies (read with any token, managed by managers and administrators), their
 * assignments to assets (Update Metadata on the asset, and only while the policy is assignable), and
 * the retention events those changes leave. Unexpired assignments stop deletion (see
 * `blockingRetention`). Wire shapes: docs/repository-api/retention.md.
 */
export function registerRetentionRoutes(api: Hono<EntityEnv>): void {
  registerPolicyRoutes(api);
  registerAssignmentRoutes(api);

  api.get("/retention-events", (c) => {
    const { start, max } = paging(c);
    const filter = { from: isoParam(c, "from", false), to: isoParam(c, "to", false), tags: readableTags(c) };
    const page = retentionEventsPage(c.get("svc").db, filter, start, max);
    return xml(c, retentionEventsDocument(c.get("render"), page.items, listMeta(c, start, max, page.total)));
  });
}

// ---------------------------------------------------------------------------------------------------
// Policies

const POLICIES_PATH = `${ENTITY_API_PATH}/retention-policies`;
const POLICY_EXAMPLE = `<RetentionPolicy xmlns="${RM_NS}"><Name>Seven years</Name><Description>Financial records</Description><SecurityTag>open</SecurityTag><Period>7</Period><PeriodUnit>YEAR</PeriodUnit><Assignable>True</Assignable></RetentionPolicy>`;

function registerPolicyRoutes(api: Hono<EntityEnv>): void {
  api.get("/retention-policies", async (c) => {
    // pyPreservica's policy_by_name sends start/max as a form body on this GET; the body wins, as
    // it does for every parameter sent both ways.
    const body = await getRequestForm(c);
    const { start, max } = parsePaging((name) => body.get(name) ?? c.req.query(name), DEFAULT_PAGE_SIZE);
    const page = policiesPage(c.get("svc").db, start, max);
    return xml(c, policiesDocument(c.get("render"), page.items, listMeta(c, start, max, page.total)));
  });

  api.get("/retention-policies/:ref", (c) => {
    const policy = existingPolicy(c, c.req.param("ref"));
    return xml(c, policyDocument(c.get("render"), policy));
  });

  api.post("/retention-policies", async (c) => {
    checkRole(c, MANAGERS, "create retention policies");
    const db = c.get("svc").db;
    const fields = policyFields(c, await xmlRequest(c, POLICY_EXAMPLE), undefined);
    const ref = createPolicy(db, fields, actor(c));
    return xml(c, policyDocument(c.get("render"), findPolicy(db, ref) as RetentionPolicyRow));
  });

  api.put("/retention-policies/:ref", async (c) => {
    checkRole(c, MANAGERS, "update retention policies");
    const before = existingPolicy(c, c.req.param("ref"));
    const db = c.get("svc").db;
    const fields = policyFields(c, await xmlRequest(c, POLICY_EXAMPLE), before);
    updatePolicy(db, before, fields, actor(c));
    return xml(c, policyDocument(c.get("render"), findPolicy(db, before.ref) as RetentionPolicyRow));
  });

  api.put("/retention-policies/:ref/assignable", async (c) => {
    checkRole(c, MANAGERS, "change whether retention policies are assignable");
    const policy = existingPolicy(c, c.req.param("ref"));
    const raw = (await c.req.text()).trim();
    const assignable = parseBoolean(raw);
    if (assignable === undefined) {
      throw new HTTPException(400, {
        message: `The body must be True or False (text/plain) to allow or forbid assigning the policy, got "${raw.slice(0, 40)}"`,
      });
    }
    const db = c.get("svc").db;
    setAssignable(db, policy, assignable, actor(c));
    return xml(c, policyDocument(c.get("render"), findPolicy(db, policy.ref) as RetentionPolicyRow));
  });

  api.delete("/retention-policies/:ref", (c) => {
    checkRole(c, MANAGERS, "delete retention policies");
    const policy = existingPolicy(c, c.req.param("ref"));
    const db = c.get("svc").db;
    const usage = policyUsage(db, policy.ref);
    if (usage.count > 0) {
      const more = usage.count > usage.entityRefs.length ? ", …" : "";
      throw new HTTPException(409, {
        message: `Retention policy ${policy.ref} ("${policy.name}") is still used by ${usage.count} assignment${usage.count === 1 ? "" : "s"}, on ${usage.entityRefs.join(", ")}${more}; remove them first (DELETE ${ENTITY_API_PATH}/information-objects/{asset}/retention-assignments/{ApiId})`,
      });
    }
    deletePolicy(db, policy, actor(c));
    return noContent(c);
  });
}

/**
 * The policy `rawRef` names: 404 when there is none, and when a ref in the path is not a UUID; a ref in a
 * body that is not a UUID is bad input (400).
 */
function existingPolicy(
  c: EntityContext,
  rawRef: string | undefined,
  from: "path" | "body" = "path",
): RetentionPolicyRow {
  const what = "Retention policy reference";
  const ref = from === "path" ? refInPath(rawRef, what) : requireUuid(rawRef, what);
  const policy = findPolicy(c.get("svc").db, ref);
  if (!policy) {
    throw new HTTPException(404, {
      message: `Retention policy ${ref} not found; list the policies at ${POLICIES_PATH}`,
    });
  }
  return policy;
}

function actor(c: EntityContext): Actor {
  return { username: c.get("caller").user.username, date: nowIso(c) };
}

/** "true"/"false" in any case (pyPreservica sends Python's True/False); undefined otherwise. */
function parseBoolean(raw: string): boolean | undefined {
  if (/^true$/i.test(raw)) return true;
  if (/^false$/i.test(raw)) return false;
  return undefined;
}

const NAME_MAX = 255;
const TEXT_MAX = 10_000;
const PERIOD_MAX = 100_000;
/**
 * Period units, singular as pyPreservica's docs and tests send them (`YEAR`); the plural forms are
 * accepted too. A unit is stored and read back as it was sent (upper-cased), so a client comparing what it
 * wrote with what it reads finds the same value.
 */
const PERIOD_UNITS = ["DAY", "WEEK", "MONTH", "YEAR"] as const;

function bad(message: string): HTTPException {
  return new HTTPException(400, { message: `${message}; send XML such as ${POLICY_EXAMPLE}` });
}

/** Trimmed text of an optional child; an absent or empty element (Python's None) is null. */
function optional(body: XmlNode, name: string, max: number): string | null {
  const value = childText(body, name);
  if (value === undefined || value === "") return null;
  if (value.length > max) throw bad(`${name} is longer than ${max} characters`);
  return value;
}

/**
 * The fields of a policy from a `<RetentionPolicy>` body, validated. On update (`before` given), a
 * `Ref` in the body must be the policy's own, and an absent `Assignable` keeps the current value.
 */
function policyFields(c: EntityContext, body: XmlNode, before: RetentionPolicyRow | undefined): PolicyFields {
  const db = c.get("svc").db;
  if (body.name !== "RetentionPolicy")
    throw bad(`The body's root element is <${body.qname}>, not <RetentionPolicy>`);

  const ref = optional(body, "Ref", NAME_MAX);
  if (before && ref !== null && ref.toLowerCase() !== before.ref) {
    throw bad(
      `The body's Ref ${ref} differs from the policy ${before.ref} in the path; send the same ref or none`,
    );
  }

  const name = optional(body, "Name", NAME_MAX);
  if (name === null) throw bad("Name is required (a non-empty policy name)");
  const namesake = findPolicyByName(db, name);
  if (namesake && namesake.ref !== before?.ref) {
    throw new HTTPException(409, {
      message: `A retention policy named "${namesake.name}" already exists (${namesake.ref}); choose another name, or update that policy with PUT ${POLICIES_PATH}/${namesake.ref}`,
    });
  }

  const securityTag = optional(body, "SecurityTag", NAME_MAX);
  if (securityTag === null) throw bad("SecurityTag is required (the name of an existing security tag)");
  if (!securityTagExists(db, securityTag)) {
    throw bad(`Security tag "${securityTag}" does not exist; use one of ${securityTagNames(db).join(", ")}`);
  }

  const period = periodOf(optional(body, "Period", NAME_MAX));
  const periodUnit = periodUnitOf(optional(body, "PeriodUnit", NAME_MAX));
  if (period !== null && periodUnit === null) {
    throw bad(`PeriodUnit is required with a Period: one of ${PERIOD_UNITS.join(", ")}`);
  }

  const rawAssignable = optional(body, "Assignable", NAME_MAX);
  let assignable = before ? before.assignable === 1 : true;
  if (rawAssignable !== null) {
    const parsed = parseBoolean(rawAssignable);
    if (parsed === undefined) throw bad(`Assignable must be True or False, got "${rawAssignable}"`);
    assignable = parsed;
  }

  return {
    name,
    description: optional(body, "Description", TEXT_MAX) ?? "",
    securityTag,
    startDateField: optional(body, "StartDateField", NAME_MAX),
    period,
    periodUnit,
    expiryAction: optional(body, "ExpiryAction", NAME_MAX),
    expiryActionParameters: optional(body, "ExpiryActionParameters", TEXT_MAX),
    restriction: optional(body, "Restriction", NAME_MAX),
    assignable,
  };
}

function periodOf(raw: string | null): number | null {
  if (raw === null) return null;
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= PERIOD_MAX)) {
    throw bad(`Period must be a positive whole number (1 to ${PERIOD_MAX}), got "${raw}"`);
  }
  return n;
}

function periodUnitOf(raw: string | null): string | null {
  if (raw === null) return null;
  const upper = raw.toUpperCase();
  if (!PERIOD_UNITS.some((u) => u === upper || `${u}S` === upper)) {
    throw bad(`PeriodUnit must be one of ${PERIOD_UNITS.join(", ")} (or the plural), got "${raw}"`);
  }
  return upper;
}

/** Largest GET body read for parameters; anything bigger is not a form of start/max. */
const GET_BODY_MAX = 16 * 1024;

/**
 * Form parameters sent in the body of a GET. The HTTP layer drops GET bodies from the request object,
 * so this reads the raw Node request (when the service runs on Node and the body is small and declared).
 * Bodies that are not form-encoded (XML, JSON) give no parameters.
 */
async function getRequestForm(c: EntityContext): Promise<URLSearchParams> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const length = Number(incoming?.headers["content-length"] ?? 0);
  if (!incoming || incoming.readableEnded || !(length > 0 && length <= GET_BODY_MAX))
    return new URLSearchParams();
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  return /^[^<{\s]*$/.test(text) ? new URLSearchParams(text) : new URLSearchParams();
}

// ---------------------------------------------------------------------------------------------------
// Assignments

const ASSIGNMENT_EXAMPLE = `<RetentionAssignment xmlns="${RM_NS}"><RetentionPolicy>{policy ref}</RetentionPolicy></RetentionAssignment>`;

function registerAssignmentRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    if (type === "IO") continue;
    // Folders and content objects cannot carry assignments: say so instead of a bare 404.
    const refuse = (c: EntityContext) => {
      const e = readableEntity(c, c.req.param("ref"), type);
      throw new HTTPException(400, {
        message: `Retention policies are assigned to assets only; ${e.ref} is ${type === "SO" ? "a folder" : "a content object"}: use ${ENTITY_API_PATH}/information-objects/{asset}/retention-assignments for the assets ${type === "SO" ? "inside it" : "it belongs to"}`,
      });
    };
    api.get(`/${path}/:ref/retention-assignments`, refuse);
    api.post(`/${path}/:ref/retention-assignments`, refuse);
    api.delete(`/${path}/:ref/retention-assignments/:apiId`, refuse);
  }

  api.get("/information-objects/:ref/retention-assignments", (c) => {
    const asset = readableEntity(c, c.req.param("ref"), "IO");
    const { start, max } = paging(c);
    const page = assignmentsPage(c.get("svc").db, asset.ref, start, max);
    const now = nowIso(c);
    const items = page.items.map((row) => ({ row, expired: isExpired(row, row, now) }));
    return xml(c, assignmentsDocument(c.get("render"), items, listMeta(c, start, max, page.total)));
  });

  api.post("/information-objects/:ref/retention-assignments", async (c) => {
    const asset = writableEntity(c, c.req.param("ref"), "IO", Permission.UPDATE_METADATA);
    const body = await xmlRequest(c, ASSIGNMENT_EXAMPLE);
    const db = c.get("svc").db;
    if (body.name !== "RetentionAssignment") {
      throw new HTTPException(400, {
        message: `The body's root element is <${body.qname}>, not <RetentionAssignment>; send XML such as ${ASSIGNMENT_EXAMPLE}`,
      });
    }
    const policyRef = child(body, "RetentionPolicy")?.text.trim();
    if (!policyRef) {
      throw new HTTPException(400, {
        message: `RetentionPolicy (the ref of the policy to assign) is required; send XML such as ${ASSIGNMENT_EXAMPLE}`,
      });
    }
    const policy = existingPolicy(c, policyRef, "body");
    requireAssignable(policy, "assigned");
    const already = findAssignmentOf(db, asset.ref, policy.ref);
    if (already) {
      throw new HTTPException(409, {
        message: `Retention policy ${policy.ref} ("${policy.name}") is already assigned to asset ${asset.ref} (ApiId ${already.api_id}); list its assignments with GET ${ENTITY_API_PATH}/information-objects/${asset.ref}/retention-assignments`,
      });
    }
    const now = nowIso(c);
    const row = assignPolicy(
      db,
      asset.ref,
      policy,
      startDateFor(policy, getEntity(db, asset.ref), now),
      actor(c),
    );
    return xml(c, assignmentDocument(c.get("render"), { row, expired: isExpired(row, policy, now) }));
  });

  api.delete("/information-objects/:ref/retention-assignments/:apiId", (c) => {
    const asset = writableEntity(c, c.req.param("ref"), "IO", Permission.UPDATE_METADATA);
    const db = c.get("svc").db;
    const apiId = c.req.param("apiId");
    const assignment = findAssignment(db, apiId);
    if (!assignment || assignment.entity_ref !== asset.ref) {
      throw new HTTPException(404, {
        message: `Retention assignment ${apiId.slice(0, 100)} not found on asset ${asset.ref}; its assignments (with their ApiId) are at ${ENTITY_API_PATH}/information-objects/${asset.ref}/retention-assignments`,
      });
    }
    const policy = findPolicy(db, assignment.policy_ref) as RetentionPolicyRow;
    requireAssignable(policy, "removed");
    removeAssignment(db, assignment, policy, actor(c));
    return noContent(c);
  });
}

/** 409 while a policy is not assignable: its assignments can then be neither added nor removed. */
function requireAssignable(policy: RetentionPolicyRow, doing: "assigned" | "removed"): void {
  if (policy.assignable === 1) return;
  throw new HTTPException(409, {
    message: `Retention policy ${policy.ref} ("${policy.name}") is not assignable, so it cannot be ${doing}; a manager can allow it with PUT ${POLICIES_PATH}/${policy.ref}/assignable (body True)`,
  });
}

/**
 * When an assignment's retention starts: the asset's creation when the policy counts from
 * `xip.created`, the assignment itself when the policy names no field, and unknown (null: counted
 * from the assignment, StartDate not shown) for a field this service does not keep dates for.
 */
function startDateFor(policy: RetentionPolicyRow, asset: EntityRow | undefined, now: string): string | null {
  const field = policy.start_date_field?.trim().toLowerCase();
  if (!field) return now;
  if (field === "xip.created" && asset) return asset.created;
  return null;
}
