import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv, ServiceContext } from "./context.js";
import type { Faults } from "./faults.js";
import { accessTokenRoutes } from "./routes/accesstoken.js";
import { contentRoutes } from "./routes/content.js";
import { entityRoutes } from "./routes/entity.js";
import { userRoutes } from "./routes/user.js";

/**
 * The repository service's HTTP app. Sub-apps per API are mounted here; this file owns the one error
 * shape (JSON `{success:false, message}`, which real clients parse even on 401) and the 404.
 */
export function createApp(svc: ServiceContext, opts: { faults?: Faults } = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("svc", svc);
    await next();
  });
  // Test-only fault injection (faults.ts); absent unless the service was started with `faults`.
  if (opts.faults) app.use(opts.faults.middleware());

  app.route("/api/accesstoken", accessTokenRoutes());
  app.route("/api/user", userRoutes());
  app.route("/api/entity", entityRoutes(svc.apiVersion));
  app.route("/api/content", contentRoutes());

  app.notFound((c) =>
    c.json({ success: false, message: `No such endpoint: ${c.req.method} ${c.req.path}` }, 404),
  );
  app.onError((err, c) => {
    if (err instanceof HTTPException) {
      if (err.res) return err.res;
      return c.json({ success: false, message: err.message }, err.status as ContentfulStatusCode);
    }
    // Never a stack trace on the wire; the operator sees it on stderr.
    console.error(`repository: ${c.req.method} ${c.req.path} failed:`, err);
    return c.json({ success: false, message: "Internal error; see the repository service's log" }, 500);
  });
  return app;
}
