import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { parsePaging } from "../http/paging.js";
import { hasRole, MANAGERS } from "../http/roles.js";
import { Permission } from "../store/auth.js";

/**
 * Shared plumbing of the operations APIs (Workflow API, ingest configurations, Process Monitor):
 * who sees what, and query parameters as these clients send them.
 *
 * Visibility follows the Entity API's action listings: managers and administrators see every
 * process; other users see the ones they started. Changing anything (start, terminate, stop, resume,
 * uploads, human task results, configurations) needs the manager or administrator role: 403 otherwise,
 * never 401 (clients log in again forever on 401).
 */

export type OpsContext = Context<AppEnv>;

/** null for managers and administrators (everyone's processes), else the caller's user name. */
export function ownerFilter(c: OpsContext): string | null {
  return hasRole(c, MANAGERS) ? null : c.get("caller").user.username;
}

/** 403 unless the caller may see a process started by `owner`. */
export function requireVisible(c: OpsContext, owner: string, what: string): void {
  const only = ownerFilter(c);
  if (only !== null && only !== owner) {
    throw new HTTPException(403, {
      message: `${what} was started by ${owner}; only its starter, managers and administrators may see it`,
    });
  }
}

/** Whether the caller may read entities carrying `tag` (titles are shown only then). */
export function mayReadTag(c: OpsContext, tag: string | null): boolean {
  return tag !== null && c.get("caller").permissions.permits(tag, Permission.READ_METADATA);
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/**
 * A query parameter given at most once in meaning: clients that follow a `next` link and add their own
 * parameters again send the same key twice (`monitor=X&…&monitor=X`), which is accepted; two different
 * values are refused.
 */
export function queryOnce(c: OpsContext, name: string): string | undefined {
  const values = [...new Set((c.req.queries(name) ?? []).map((v) => v.trim()))].filter((v) => v !== "");
  if (values.length > 1) {
    throw badRequest(`Parameter ${name} was given different values (${values.join(", ")}); give it once`);
  }
  return values[0];
}

/** start and max (max at least 1: a page of 0 would make clients that advance by the count loop forever). */
export function pagingOf(c: OpsContext, defaultMax: number): { start: number; max: number } {
  const p = parsePaging((name) => queryOnce(c, name), defaultMax);
  if (p.max === 0) throw badRequest("Parameter max must be at least 1");
  return p;
}

/** A positive whole number from a path segment or parameter (instance, context and definition ids). */
export function positiveId(raw: string | undefined, what: string): number {
  if (!raw || !/^[1-9]\d{0,11}$/.test(raw.trim())) {
    throw badRequest(`${what} must be a positive whole number, got "${(raw ?? "").slice(0, 40)}"`);
  }
  return Number(raw.trim());
}

/** One value from a fixed list (case-insensitive), or a 400 that lists them. */
export function oneOf<T extends string>(values: readonly T[], raw: string, name: string): T {
  const lower = raw.trim().toLowerCase();
  const found = values.find((v) => v.toLowerCase() === lower);
  if (!found)
    throw badRequest(`Parameter ${name} must be one of ${values.join(", ")}, got "${raw.slice(0, 40)}"`);
  return found;
}
