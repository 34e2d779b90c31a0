import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { MANAGERS, requireRole } from "../http/roles.js";
import { findIngestConfig, type IngestConfigRow, ingestConfigs } from "../store/ingest-configs/read.js";
import { setIngestConfigActive } from "../store/ingest-configs/write.js";

/**
 * The Process API (`/api/process`, JSON without an envelope, as clients read it): ingest configurations.
 * Reading needs a token; activating or deactivating one needs the manager or administrator role.
 */
export function processRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/ingest/configs", (c) => {
    const types = typesParam(c);
    return c.json({ configs: ingestConfigs(c.get("svc").db, types).map(configJson) });
  });
  app.get("/ingest/configs/:id", (c) => c.json(configJson(knownConfig(c))));
  app.put(
    "/ingest/configs/:id/active",
    requireRole(MANAGERS, "activate or deactivate ingest configurations"),
    async (c) => {
      const cfg = knownConfig(c);
      const active = activeBody(await c.req.text());
      const { db } = c.get("svc");
      setIngestConfigActive(db, cfg.api_id, active, c.get("caller").user.username, nowIso(c));
      return c.json(configJson(findIngestConfig(db, cfg.api_id) as IngestConfigRow));
    },
  );
  return app;
}

type Ctx = Context<AppEnv>;

export function configJson(r: IngestConfigRow) {
  return {
    apiId: r.api_id,
    name: r.name,
    description: r.description,
    type: r.type,
    active: r.active === 1,
    trigger: { type: r.trigger_type },
    modified: r.modified,
    modifiedBy: r.modified_by,
  };
}

/** `types` as one comma-separated value or repeated; matched case-insensitively. */
function typesParam(c: Ctx): string[] | null {
  const values = (c.req.queries("types") ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim().toUpperCase())
    .filter((v) => v !== "");
  return values.length > 0 ? values : null;
}

function knownConfig(c: Ctx): IngestConfigRow {
  const id = c.req.param("id") ?? "";
  const cfg = findIngestConfig(c.get("svc").db, id);
  if (!cfg) {
    throw new HTTPException(404, {
      message: `No ingest configuration "${id.slice(0, 80)}"; GET /api/process/ingest/configs lists them with their apiId`,
    });
  }
  return cfg;
}

/** The body of PUT …/active: JSON `true` or `false` (clients send the bare word), or `{"active": …}`. */
function activeBody(text: string): boolean {
  const t = text.trim();
  const word = t.replace(/^"(.*)"$/, "$1").toLowerCase();
  if (word === "true" || word === "false") return word === "true";
  try {
    const v = JSON.parse(t) as unknown;
    if (v && typeof v === "object" && typeof (v as { active?: unknown }).active === "boolean") {
      return (v as { active: boolean }).active;
    }
  } catch {
    // Not JSON: refused below.
  }
  throw new HTTPException(400, {
    message: `The body must be true or false (JSON), got "${t.slice(0, 40)}"; send true to activate the configuration, false to deactivate it`,
  });
}
