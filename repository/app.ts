import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { TrieRouter } from "hono/router/trie-router";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv, ServiceContext } from "./context.js";
import { allowedMethodsOf, appRoutes } from "./http/allowed-methods.js";
import type { Faults } from "./http/faults.js";
import { accessTokenRoutes } from "./routes/accesstoken.js";
import { adminRoutes } from "./routes/admin.js";
import { adminMetadataRoutes } from "./routes/admin-metadata.js";
import { administrationRoutes } from "./routes/administration.js";
import { analyticsRoutes } from "./routes/analytics.js";
import { authManagementRoutes } from "./routes/auth-management.js";
import { cmisRoutes } from "./routes/cmis.js";
import { contentRoutes } from "./routes/content.js";
import { entitlementRoutes } from "./routes/entitlement.js";
import { entityRoutes } from "./routes/entity.js";
import { metadataRoutes } from "./routes/metadata.js";
import { oaiPmhRoutes } from "./routes/oai-pmh.js";
import { processRoutes } from "./routes/process.js";
import { processMonitorRoutes } from "./routes/processmonitor.js";
import { referenceMetadataRoutes } from "./routes/reference-metadata.js";
import { registryRoutes } from "./routes/registry.js";
import { reportRoutes } from "./routes/reports.js";
import { s3Routes } from "./routes/s3.js";
import { securityRoutes } from "./routes/security.js";
import { settingsRoutes } from "./routes/settings.js";
import { storageRoutes, storageSettingsRoutes } from "./routes/storage.js";
import { userRoutes } from "./routes/user.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { workflowRoutes } from "./routes/workflow.js";

/** A sub-app and where it answers. */
interface Mount {
  path: string;
  app: (svc: ServiceContext) => Hono<AppEnv>;
  /**
   * Also mounted on `{path}/vX.Y`, answering in that version's namespaces (the same sub-app, so the two
   * can never drift apart); `example` is a path below the version for the 404's hint.
   */
  versioned?: { api: string; example: string };
  /** How the 404's list of APIs names it; omitted = its path; null = not named (a row above names the path). */
  hint?: string | null;
}

/**
 * Every API the service serves, in one table: mounted in this order (routes of the same path answer in
 * it too) and named in this order in the 404 for an unknown path.
 */
const MOUNTS: readonly Mount[] = [
  { path: "/api/accesstoken", app: accessTokenRoutes, hint: "/api/accesstoken (POST)" },
  { path: "/api/user", app: userRoutes, hint: "/api/user/details" },
  { path: "/api/admin", app: adminRoutes },
  { path: "/api/admin", app: adminMetadataRoutes, hint: null },
  { path: "/api/admin", app: administrationRoutes, hint: null },
  { path: "/api/security", app: securityRoutes, hint: "/api/security/tags" },
  {
    path: "/api/entity",
    app: (svc) => entityRoutes(svc.apiVersion),
    versioned: { api: "Entity API", example: "information-objects/{ref}" },
  },
  { path: "/api/content", app: contentRoutes },
  { path: "/api/metadata", app: metadataRoutes },
  { path: "/api/s3", app: s3Routes, hint: "/api/s3/buckets" },
  { path: "/api/reports", app: reportRoutes },
  { path: "/api/settings", app: settingsRoutes },
  { path: "/api/analytics", app: analyticsRoutes },
  { path: "/api/storage", app: storageRoutes },
  { path: "/api/settings/storage", app: storageSettingsRoutes },
  { path: "/api/entitlement", app: entitlementRoutes },
  { path: "/api/processmonitor", app: processMonitorRoutes },
  { path: "/api/process", app: processRoutes },
  { path: "/api/reference-metadata", app: referenceMetadataRoutes },
  { path: "/api/Registry/par", app: registryRoutes, hint: "/api/Registry/par (also /Registry/par)" },
  { path: "/Registry/par", app: registryRoutes, hint: null },
  { path: "/api/auth-management", app: authManagementRoutes },
  { path: "/api/webhook", app: webhookRoutes, hint: "/api/webhook/subscriptions" },
  { path: "/api/cmis/atom", app: cmisRoutes },
  { path: "/OAI-PMH", app: oaiPmhRoutes },
  { path: "/sdb/rest/workflow", app: workflowRoutes },
];

/** "a, b, ... and z": the APIs as the 404 names them. */
const API_HINT = (() => {
  const names = MOUNTS.flatMap((m) => (m.hint === null ? [] : [m.hint ?? m.path]));
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
})();

/** Largest request body accepted (413 above it); documented in the README. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The repository service's HTTP app. Sub-apps per API are mounted here; this file owns the one error
 * shape (JSON `{success:false, message}`, which real clients parse even on 401) and the 404.
 */
export function createApp(svc: ServiceContext, opts: { faults?: Faults } = {}): Hono<AppEnv> {
  // Hono's default router tries a RegExpRouter first and, when some route's pattern is beyond it (ours are),
  // builds a TrieRouter instead, at the first request: the trie it ends with, without the attempt before it
  // (~5 ms of every start of the embedded service).
  const app = new Hono<AppEnv>({ router: new TrieRouter() });
  app.use(async (c, next) => {
    c.set("svc", svc);
    await next();
  });
  // Test-only fault injection (faults.ts); absent unless the service was started with `faults`.
  if (opts.faults) app.use(opts.faults.middleware());
  // Every body is read whole (forms, JSON), so its size is capped before any route reads it. The
  // rest of a refused body is never read, so the connection closes: a client that sent its next
  // request on it would otherwise lose that request when the adapter gives up draining the body.
  // GET and HEAD skip the check: no route reads their bodies, and the check costs every request.
  const tooLarge = (c: Context<AppEnv>) =>
    c.json(
      {
        success: false,
        message: `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; send fewer or shorter parameters`,
      },
      413,
      { Connection: "close" },
    );
  const limitBody = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
  // Uploads of files (previews, new content, representations) stream to the content store with a cap
  // of their own instead.
  app.use(async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD" || isStreamedUpload(c.req.method, c.req.path))
      return next();
    // A body of declared length is judged by its Content-Length alone, as bodyLimit itself does, but
    // without its first step: asking for the body makes the Node adapter build a full web Request with a
    // body stream, which the routes' own reads (text, JSON) otherwise skip. That build cost every sign-in,
    // the first request of each MCP server start (start-up time).
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined)
      return Number.parseInt(length, 10) > MAX_BODY_BYTES ? tooLarge(c) : await next();
    return limitBody(c, next);
  });

  for (const m of MOUNTS) {
    const sub = m.app(svc);
    if (m.versioned) app.route(`${m.path}/:version{v[0-9]+\\.[0-9]+}`, sub);
    app.route(m.path, sub);
  }

  const allowedMethods = allowedMethodsOf(appRoutes(app));
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      const message = `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.filter((m) => m !== "HEAD").join(" or ")}`;
      return c.json({ success: false, message }, 405, { Allow: allowed.join(", ") });
    }
    return c.json({ success: false, message: noSuchEndpoint(c.req.method, c.req.path, svc.apiVersion) }, 404);
  });
  app.onError((err, c) => {
    if (err instanceof HTTPException) {
      if (err.res) return err.res;
      return c.json({ success: false, message: err.message }, err.status as ContentfulStatusCode);
    }
    // The connection broke while a route read the body (a malformed chunk, a client that gave up):
    // the client's doing, not a fault to log; the answer usually has no one left to read it.
    if ((err as NodeJS.ErrnoException).code === "ECONNRESET") {
      return c.json({ success: false, message: "The request body was cut off; send the request again" }, 400);
    }
    // Never a stack trace on the wire; the operator sees it on stderr.
    console.error(`repository: ${c.req.method} ${c.req.path} failed:`, err);
    return c.json({ success: false, message: "Internal error; see the repository service's log" }, 500);
  });
  return app;
}

/**
 * Requests whose body is a file the route streams to the content store (and caps itself): a custom
 * preview, a content object's new content, a new representation.
 */
const STREAMED_UPLOADS =
  /^\/api\/entity(?:\/v\d+\.\d+)?\/(?:(?:structural|information)-objects\/[^/]+\/preview|content-objects\/[^/]+\/generations|information-objects\/[^/]+\/representations)$/;
/** A package uploaded for ingest into a folder: `POST /api/entity/structural-objects/{ref}`. */
const PACKAGE_UPLOAD = /^\/api\/entity(?:\/v\d+\.\d+)?\/structural-objects\/[^/]+$/;
/** The S3-compatible package upload: PUT of an object or a part (multipart completion is small XML). */
const S3_UPLOAD = /^\/api\/s3\/buckets\/[^/]+\/.+$/;

export function isStreamedUpload(method: string, path: string): boolean {
  if (method === "POST" && PACKAGE_UPLOAD.test(path)) return true;
  if (method === "PUT" && S3_UPLOAD.test(path)) return true;
  return (method === "PUT" || method === "POST") && STREAMED_UPLOADS.test(path);
}

/** The 404 for a path no route takes, with the way to the right one. */
function noSuchEndpoint(method: string, path: string, apiVersion: string): string {
  const what = `No such endpoint: ${method} ${path}`;
  for (const m of MOUNTS) {
    if (m.versioned && path.startsWith(`${m.path}/v`) && !path.startsWith(`${m.path}/versiondetails/`)) {
      return `${what}; versioned ${m.versioned.api} paths look like ${m.path}/v${apiVersion}/${m.versioned.example}`;
    }
  }
  return `${what}; the APIs are under ${API_HINT} (docs/repository-api.md lists every route)`;
}
