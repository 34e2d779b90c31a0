import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { isUuid, jsonObjectOf } from "../http/params.js";
import { MANAGERS, requireRole } from "../http/roles.js";
import { ANALYTICS_KIND, type GenerationParams, POLICY_IMPACT } from "../jobs/analytics.js";
import { startAction } from "../jobs/start.js";
import { latestDataset } from "../store/analytics/read.js";
import { getDraft } from "../store/settings/read.js";

/**
 * The Analytics API (`/api/analytics`): data sets generated asynchronously. `POST /{apiId}/generation`
 * starts a generation (an action: 202 whose text/plain body is the progress token, polled at
 * /api/entity/progress/{token}); `GET /datasets/{apiId}` returns the newest generated data set in the
 * service's JSON envelope `{success, version, value}`. One data set so far: policy.impact, the assets a
 * migration configuration (a draft, or the live one) would act on. Both need the manager or administrator
 * role: the data set names assets of every security tag.
 */

type Ctx = Context<AppEnv>;

const DATASETS = {
  [POLICY_IMPACT]: {
    name: "Migration policy impact",
    description:
      "The effect of a migration configuration if automatic preservation were enabled: which assets its rules would act on, by format, from the formats stored now",
    parameters: [
      {
        name: "draftId",
        required: false,
        description:
          "A migration draft (GET /api/settings/migration/config/drafts); without it, the live configuration",
      },
    ],
  },
} as const;

const EXAMPLE = '{"draftId":"<draft id>"} (or {} for the live configuration)';

export function analyticsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/datasets", requireRole(MANAGERS, "read analytics data sets"), (c) => {
    const { db } = c.get("svc");
    return ok(c, {
      datasets: Object.entries(DATASETS).map(([apiId, d]) => {
        const latest = latestDataset(db, apiId);
        return {
          apiId,
          ...d,
          generation: `/api/analytics/${apiId}/generation`,
          dataset: `/api/analytics/datasets/${apiId}`,
          lastGenerated: latest?.generated ?? null,
        };
      }),
    });
  });
  app.get("/datasets/:apiId", requireRole(MANAGERS, "read analytics data sets"), (c) => {
    const apiId = knownDataset(c.req.param("apiId"));
    const row = latestDataset(c.get("svc").db, apiId);
    if (!row) {
      throw new HTTPException(404, {
        message: `Data set ${apiId} has not been generated yet; POST /api/analytics/${apiId}/generation, then poll /api/entity/progress/{token} until it is COMPLETED`,
      });
    }
    return ok(c, {
      apiId,
      generated: row.generated,
      generatedBy: row.username,
      progressToken: row.action_id,
      parameters: JSON.parse(row.parameters) as unknown,
      data: JSON.parse(row.result) as unknown,
    });
  });
  app.post("/:apiId/generation", requireRole(MANAGERS, "generate analytics data sets"), async (c) => {
    const apiId = knownDataset(c.req.param("apiId"));
    const parameters = await generationParameters(c);
    const params: GenerationParams = { apiId, parameters };
    const action = startAction(c, { kind: ANALYTICS_KIND, params });
    return c.body(action.id, 202, {
      "Content-Type": "text/plain;charset=UTF-8",
      Location: `/api/entity/progress/${action.id}`,
    });
  });
  return app;
}

function ok(c: Ctx, value: unknown) {
  return c.json({ success: true, version: 1, value });
}

function knownDataset(raw: string | undefined): typeof POLICY_IMPACT {
  const id = (raw ?? "").trim();
  if (id !== POLICY_IMPACT) {
    throw new HTTPException(404, {
      message: `No data set "${id.slice(0, 80)}"; the data sets are ${Object.keys(DATASETS).join(", ")} (GET /api/analytics/datasets describes them)`,
    });
  }
  return id;
}

/** The body: the data set's parameters as a JSON object; empty means none. A draft given must exist now. */
async function generationParameters(c: Ctx): Promise<{ draftId?: string }> {
  const text = (await c.req.text()).trim();
  if (text === "") return {};
  const { draftId, ...rest } = jsonObjectOf(text, {
    tooDeep: `The JSON request body nests too deeply; send ${EXAMPLE}`,
    notJson: `The request body is not valid JSON; send ${EXAMPLE}`,
    notObject: `The request body must be a JSON object: ${EXAMPLE}`,
  });
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw new HTTPException(400, {
      message: `policy.impact takes one parameter, draftId; "${unknown[0]?.slice(0, 40)}" is not one`,
    });
  }
  if (draftId === undefined || draftId === null || draftId === "") return {};
  if (typeof draftId !== "string" || !isUuid(draftId.trim())) {
    throw new HTTPException(400, {
      message: `draftId must be a draft's id (GET /api/settings/migration/config/drafts lists them), got ${JSON.stringify(draftId).slice(0, 60)}`,
    });
  }
  const id = draftId.trim().toLowerCase();
  if (!getDraft(c.get("svc").db, id)) {
    throw new HTTPException(404, {
      message: `No migration draft ${id}; GET /api/settings/migration/config/drafts lists them`,
    });
  }
  return { draftId: id };
}
