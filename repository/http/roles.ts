import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { Role } from "../store/auth.js";

/**
 * Role checks of the repository's routes, written once. A check names who may act (`MANAGERS`,
 * `ADMINISTRATORS`) and what the caller tried, so the 403 says both. Always 403, never 401: clients
 * answer 401 by logging in again, forever.
 */

/** A set of roles any one of which allows an action, and how a message names the people who hold them. */
export interface RoleRule {
  readonly roles: readonly string[];
  readonly who: string;
}

/** Manager or administrator: they manage processes, settings, configurations, metadata groups. */
export const MANAGERS: RoleRule = { roles: [Role.MANAGER, Role.ADMIN], who: "managers and administrators" };

/** Administrator alone: system properties, authentication configuration, storage adapters. */
export const ADMINISTRATORS: RoleRule = { roles: [Role.ADMIN], who: "administrators" };

/** Whether the caller holds one of the rule's roles. */
export function hasRole<E extends AppEnv>(c: Context<E>, rule: RoleRule): boolean {
  const { roles } = c.get("caller").user;
  return rule.roles.some((r) => roles.includes(r));
}

/** 403 unless the caller holds one of the rule's roles; `what` completes "Only … may". */
export function checkRole<E extends AppEnv>(c: Context<E>, rule: RoleRule, what: string): void {
  if (hasRole(c, rule)) return;
  const { username } = c.get("caller").user;
  const [first, second] = rule.roles;
  const lacking =
    second === undefined
      ? `does not have the ${first} role`
      : `has neither the ${rule.roles.slice(0, -1).join(", the ")} nor the ${rule.roles.at(-1)} role`;
  throw new HTTPException(403, { message: `Only ${rule.who} may ${what}; user ${username} ${lacking}` });
}

/** The same check as a route middleware, for routes where it comes before anything else. */
export function requireRole(rule: RoleRule, what: string): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    checkRole(c, rule, what);
    await next();
  });
}
