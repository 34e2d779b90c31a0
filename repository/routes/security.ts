import { Hono } from "hono";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { permissionsByTag } from "../store/admin/read.js";
import { securityNamespace, tagPermissionsXml } from "../xml/admin-docs.js";

/**
 * Security API (`/api/security`): the security tags, each with the permissions the caller's roles give
 * on it: the very rows (tag_permissions) the service checks on every entity request, so what this says
 * is what is enforced. Every tag is listed; one the caller may do nothing with has no Permission.
 * pyPreservica's `security_tags_base(with_permissions=True)` reads `.//{SECURITY}Tag` by its `name`
 * attribute and `.//{SECURITY}Permission` texts below it.
 */
export function securityRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/tags", (c) => {
    const svc = c.get("svc");
    const tags = permissionsByTag(svc.db, c.get("caller").user.roles);
    return c.body(tagPermissionsXml(securityNamespace(svc.apiVersion), tags), 200, {
      "Content-Type": "application/xml;charset=UTF-8",
    });
  });
  return app;
}
