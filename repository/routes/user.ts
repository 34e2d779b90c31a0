import { Hono } from "hono";
import { requireToken } from "../auth-middleware.js";
import type { AppEnv } from "../context.js";

/** User API: who the caller is. Real clients read `roles` from here at start-up. */
export function userRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/details", (c) => {
    const { user } = c.get("caller");
    return c.json({
      userName: user.username,
      fullName: user.fullName,
      email: user.email,
      tenant: user.tenant,
      roles: user.roles,
      temporaryUser: user.temporary,
      ...(user.expires ? { expiry: user.expires } : {}),
    });
  });
  return app;
}
