import { Hono } from "hono";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { edition, type LimitUsage, limitsWithUsage } from "../store/storage/read.js";

/**
 * The Entitlement API (`/api/entitlement`): the edition of this installation and its feature usage limits.
 * `GET /edition` answers `{"edition": …}` at the top level, as pyPreservica reads it (wire facts §6);
 * `GET /limits` answers in the service's envelope `{success, version, value}`, each limit with what is
 * used of it, counted from the store when asked (users, bytes stored, entities, storage adapters).
 * Any signed-in user may read both.
 */
export function entitlementRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/edition", (c) => c.json({ edition: edition(c.get("svc").db) }));
  app.get("/limits", (c) => {
    const db = c.get("svc").db;
    return c.json({
      success: true,
      version: 1,
      value: { edition: edition(db), limits: limitsWithUsage(db).map(limitJson) },
    });
  });
  return app;
}

function limitJson(l: LimitUsage) {
  return {
    feature: l.feature,
    name: l.name,
    unit: l.unit,
    limit: l.limit,
    used: l.used,
    remaining: l.limit === null ? null : Math.max(0, l.limit - l.used),
    percentUsed: l.limit === null || l.limit === 0 ? null : Math.round((l.used / l.limit) * 1000) / 10,
    reached: l.limit !== null && l.used >= l.limit,
  };
}
