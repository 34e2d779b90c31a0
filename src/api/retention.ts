import { type Page, type PageRequest, pageTarget } from "./entity.js";
import { isNotFound, UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";
import { checkRef, looksLikeRef } from "./refs.js";
import {
  all,
  attr,
  childText,
  descendants,
  escapeXml,
  find,
  intText,
  one,
  rootOf,
  text,
  type XmlElement,
} from "./xml.js";

/**
 * Entity API retention: policies and their assignments to assets. Thin typed methods; nothing MCP-specific.
 * Policies and assignments are in the RetentionManagement namespace (v6.2 whatever the API version); they
 * are read by local name, so any version parses. Wire shapes: docs/repository-api/retention.md.
 */

export const RM_NS = "http://preservica.com/RetentionManagement/v6.2";

/** A policy as a list names it. */
export interface RetentionPolicySummary {
  ref: string;
  name: string;
}

export type PeriodUnit = "DAYS" | "WEEKS" | "MONTHS" | "YEARS";

export interface RetentionPolicy {
  ref: string;
  name: string;
  description: string;
  securityTag: string;
  /** Where the period counts from (`xip.created`); absent = from the assignment. */
  startDateField?: string;
  /** Absent = kept indefinitely (the assignment never expires). */
  period?: number;
  periodUnit?: PeriodUnit;
  /** What happens at expiry (e.g. REVIEW, DELETE), as the service names it. */
  expiryAction?: string;
  expiryActionParameters?: string;
  /** What the policy forbids while in force (e.g. DELETE). */
  restriction?: string;
  assignable: boolean;
}

export interface RetentionAssignment {
  /** The assignment's own id: what removing it takes. */
  apiId: string;
  entityRef: string;
  policyRef: string;
  /** Where the period counts from; the service may leave it out. */
  startDate?: string;
  expired: boolean;
}

// ---- pure readers ------------------------------------------------------------------------------------------

function pagingOf(root: XmlElement): Pick<Page<unknown>, "total" | "next" | "nextStart"> {
  const paging = find(root, "Paging");
  const next = text(one(paging, "Next"));
  const total = intText(one(paging, "TotalResults")) ?? 0;
  const nextStart = next?.match(/[?&]start=(\d+)/)?.[1];
  return { total, ...(next ? { next } : {}), ...(nextStart ? { nextStart: Number(nextStart) } : {}) };
}

function bool(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

function unit(value: string | undefined): PeriodUnit | undefined {
  const u = value?.trim().toUpperCase().replace(/S?$/, "S");
  return u === "DAYS" || u === "WEEKS" || u === "MONTHS" || u === "YEARS" ? u : undefined;
}

/** RetentionPoliciesResponse → policy refs and names. */
export function readPolicies(doc: XmlElement): Page<RetentionPolicySummary> {
  const root = rootOf(doc).el;
  const items = all(find(root, "RetentionPolicies"), "RetentionPolicy")
    .map((p) => ({ ref: attr(p, "ref") ?? "", name: attr(p, "name") ?? "" }))
    .filter((p) => p.ref !== "");
  return { items, ...pagingOf(root) };
}

/** RetentionPolicyResponse (the policy nested) → policy. */
export function readPolicy(doc: XmlElement): RetentionPolicy {
  const root = rootOf(doc);
  const p = root.name === "RetentionPolicy" ? root.el : find(root.el, "RetentionPolicy");
  const ref = childText(p, "Ref");
  if (!p || !ref) throw new TypeError("the reply holds no RetentionPolicy with a Ref");
  const period = intText(one(p, "Period"));
  const periodUnit = unit(childText(p, "PeriodUnit"));
  const opt = (key: keyof RetentionPolicy, el: string) => {
    const v = childText(p, el);
    return v ? { [key]: v } : {};
  };
  return {
    ref,
    name: childText(p, "Name") ?? "",
    description: childText(p, "Description") ?? "",
    securityTag: childText(p, "SecurityTag") ?? "",
    ...opt("startDateField", "StartDateField"),
    ...(period !== undefined ? { period } : {}),
    ...(periodUnit ? { periodUnit } : {}),
    ...opt("expiryAction", "ExpiryAction"),
    ...opt("expiryActionParameters", "ExpiryActionParameters"),
    ...opt("restriction", "Restriction"),
    assignable: bool(childText(p, "Assignable")),
  };
}

function readAssignmentElement(a: XmlElement): RetentionAssignment {
  const startDate = childText(a, "StartDate");
  return {
    apiId: childText(a, "ApiId") ?? "",
    entityRef: childText(a, "Entity") ?? "",
    policyRef: childText(a, "RetentionPolicy") ?? "",
    ...(startDate ? { startDate } : {}),
    expired: bool(childText(a, "Expired")),
  };
}

/** RetentionAssignmentsResponse → assignments. */
export function readAssignments(doc: XmlElement): Page<RetentionAssignment> {
  const root = rootOf(doc).el;
  const items = descendants(root, "RetentionAssignment").map(readAssignmentElement);
  return { items, ...pagingOf(root) };
}

/** RetentionAssignmentResponse → the one assignment made. */
export function readAssignment(doc: XmlElement): RetentionAssignment {
  const root = rootOf(doc);
  const a = root.name === "RetentionAssignment" ? root.el : find(root.el, "RetentionAssignment");
  if (!a) throw new TypeError("the reply holds no RetentionAssignment");
  return readAssignmentElement(a);
}

/**
 * When an assignment ends: its start plus the policy's period (calendar months and years, in UTC).
 * Undefined when the policy has no period (kept indefinitely) or the start is not known.
 */
export function retentionExpiry(
  startDate: string | undefined,
  policy: Pick<RetentionPolicy, "period" | "periodUnit">,
): string | undefined {
  if (policy.period === undefined || !startDate) return undefined;
  const start = new Date(startDate);
  if (Number.isNaN(start.getTime())) return undefined;
  const end = new Date(start);
  switch (policy.periodUnit ?? "YEARS") {
    case "DAYS":
      end.setTime(start.getTime() + policy.period * 86_400_000);
      break;
    case "WEEKS":
      end.setTime(start.getTime() + policy.period * 7 * 86_400_000);
      break;
    case "MONTHS":
      end.setUTCMonth(end.getUTCMonth() + policy.period);
      break;
    default:
      end.setUTCFullYear(end.getUTCFullYear() + policy.period);
  }
  if (Number.isNaN(end.getTime()) || end.getUTCFullYear() > 9999) return undefined;
  return end.toISOString();
}

/** What creating or changing a policy sends: everything the policy says (an update replaces it all). */
export type PolicyInput = Omit<RetentionPolicy, "ref">;

/** The `<RetentionPolicy>` body of a create or update, as pyPreservica sends it (Assignable as True/False). */
export function policyXml(p: PolicyInput, ref?: string): string {
  const el = (name: string, v: string | number | undefined) =>
    v === undefined || v === "" ? "" : `<${name}>${escapeXml(String(v))}</${name}>`;
  return [
    `<RetentionPolicy xmlns="${RM_NS}">`,
    el("Ref", ref),
    el("Name", p.name),
    `<Description>${escapeXml(p.description)}</Description>`,
    el("SecurityTag", p.securityTag),
    el("StartDateField", p.startDateField),
    el("Period", p.period),
    el("PeriodUnit", p.period === undefined ? undefined : p.periodUnit),
    el("ExpiryAction", p.expiryAction),
    el("ExpiryActionParameters", p.expiryActionParameters),
    el("Restriction", p.restriction),
    `<Assignable>${p.assignable ? "True" : "False"}</Assignable>`,
    "</RetentionPolicy>",
  ].join("");
}

// ---- the client --------------------------------------------------------------------------------------------

export class RetentionApi {
  private readonly base = "/api/entity";

  constructor(private readonly http: HttpClient) {}

  private async xml<T>(
    operation: string,
    opts: {
      method?: "GET" | "POST" | "PUT";
      path: string;
      query?: Record<string, string | number | undefined>;
      body?: string;
      signal?: AbortSignal;
      idempotent?: boolean;
    },
    reader: (doc: XmlElement) => T,
  ): Promise<T> {
    const method = opts.method ?? "GET";
    const res = await this.http.request<XmlElement>({
      method,
      path: opts.path,
      query: opts.query,
      accept: "application/xml",
      operation,
      signal: opts.signal,
      ...(opts.body !== undefined
        ? { body: opts.body, headers: { "content-type": "application/xml;charset=UTF-8" } }
        : {}),
      ...(opts.idempotent !== undefined ? { idempotent: opts.idempotent } : {}),
    });
    const fail = (detail: string, cause?: unknown) =>
      new UnexpectedResponseError({ status: res.status, operation, method, path: opts.path, detail, cause });
    if (!res.data || typeof res.data !== "object") throw fail("the reply is not XML");
    try {
      return reader(res.data);
    } catch (err) {
      throw fail(`unexpected reply: ${(err as Error).message}`, err);
    }
  }

  /** One page of policies, by name. */
  async policies(page: PageRequest = {}): Promise<Page<RetentionPolicySummary>> {
    return this.xml(
      "retention.policies",
      { ...pageTarget(page, `${this.base}/retention-policies`), signal: page.signal },
      readPolicies,
    );
  }

  /** Every policy (paged through; at most `limit`), with the total the service reports. */
  async allPolicies(
    limit = 1000,
    signal?: AbortSignal,
  ): Promise<{ items: RetentionPolicySummary[]; total: number }> {
    const items: RetentionPolicySummary[] = [];
    let start = 0;
    let total = 0;
    for (;;) {
      const page = await this.policies({ start, max: Math.min(100, limit - items.length), signal });
      total = page.total;
      items.push(...page.items);
      if (page.items.length === 0 || items.length >= Math.min(limit, total)) break;
      start += page.items.length;
    }
    return { items, total };
  }

  /** One policy with all it says. */
  async policy(ref: string, signal?: AbortSignal): Promise<RetentionPolicy> {
    const path = `${this.base}/retention-policies/${checkRef(ref, "retention policy reference")}`;
    return this.xml("retention.policy", { path, signal }, readPolicy);
  }

  /**
   * The policy a person names, by ref or by name (case-insensitive). `policy` is undefined when none
   * matches; `known` then lists the policies there are (at most 1000), so the caller can say which exist.
   */
  async findPolicy(
    nameOrRef: string,
    signal?: AbortSignal,
  ): Promise<{ policy?: RetentionPolicy; known: RetentionPolicySummary[] }> {
    const wanted = nameOrRef.trim();
    if (looksLikeRef(wanted) && wanted.includes("-")) {
      try {
        return { policy: await this.policy(wanted, signal), known: [] };
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const all = await this.allPolicies(1000, signal);
    const lower = wanted.toLowerCase();
    const match = all.items.find((p) => p.name.toLowerCase() === lower || p.ref === wanted);
    return match ? { policy: await this.policy(match.ref, signal), known: all.items } : { known: all.items };
  }

  /** Creates a policy (managers and administrators); the service answers it with its new ref. */
  async createPolicy(p: PolicyInput, signal?: AbortSignal): Promise<RetentionPolicy> {
    const path = `${this.base}/retention-policies`;
    const body = policyXml(p);
    return this.xml(
      "retention.createPolicy",
      { method: "POST", path, body, signal, idempotent: false },
      readPolicy,
    );
  }

  /** Replaces what a policy says (every field: one left out is cleared). */
  async updatePolicy(ref: string, p: PolicyInput, signal?: AbortSignal): Promise<RetentionPolicy> {
    const path = `${this.base}/retention-policies/${checkRef(ref, "retention policy reference")}`;
    return this.xml(
      "retention.updatePolicy",
      { method: "PUT", path, body: policyXml(p, ref), signal },
      readPolicy,
    );
  }

  /** Deletes a policy; the service refuses (409) while any assignment uses it. */
  async deletePolicy(ref: string, signal?: AbortSignal): Promise<void> {
    const path = `${this.base}/retention-policies/${checkRef(ref, "retention policy reference")}`;
    await this.http.request({ method: "DELETE", path, operation: "retention.deletePolicy", signal });
  }

  /** An asset's retention assignments (oldest first). */
  async assignments(assetRef: string, page: PageRequest = {}): Promise<Page<RetentionAssignment>> {
    const path = `${this.base}/information-objects/${checkRef(assetRef, "asset reference")}/retention-assignments`;
    return this.xml(
      "retention.assignments",
      { ...pageTarget(page, path), signal: page.signal },
      readAssignments,
    );
  }

  /** Assigns a policy to an asset; the service answers the assignment made (with its ApiId). */
  async assign(assetRef: string, policyRef: string, signal?: AbortSignal): Promise<RetentionAssignment> {
    const path = `${this.base}/information-objects/${checkRef(assetRef, "asset reference")}/retention-assignments`;
    checkRef(policyRef, "retention policy reference");
    const body = `<RetentionAssignment xmlns="${RM_NS}"><RetentionPolicy>${escapeXml(policyRef)}</RetentionPolicy></RetentionAssignment>`;
    return this.xml(
      "retention.assign",
      { method: "POST", path, body, signal, idempotent: false },
      readAssignment,
    );
  }

  /** Removes one assignment (by its ApiId) from an asset. */
  async removeAssignment(assetRef: string, apiId: string, signal?: AbortSignal): Promise<void> {
    const path = `${this.base}/information-objects/${checkRef(assetRef, "asset reference")}/retention-assignments/${checkRef(apiId, "assignment id")}`;
    await this.http.request({ method: "DELETE", path, operation: "retention.removeAssignment", signal });
  }
}
