import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { isUuid, jsonObjectOf, MAX_JSON_DEPTH } from "../http/params.js";
import { checkRole, MANAGERS, requireRole } from "../http/roles.js";
import {
  CONFIG_EXAMPLE,
  InvalidSettings,
  LIMITS,
  type MigrationConfig,
  type MigrationRule,
  parseMigrationConfig,
} from "../store/settings/migration-config.js";
import {
  type DraftRow,
  draftConfig,
  drafts,
  type EnrichmentProfileRow,
  type EnrichmentRuleRow,
  enrichmentProfile,
  enrichmentProfiles,
  enrichmentRule,
  enrichmentRules,
  entitiesByRef,
  getDraft,
  liveConfig,
  liveProfile,
  liveProfiles,
  liveRule,
  liveRules,
  rulesUsingEnrichmentProfile,
} from "../store/settings/read.js";
import {
  applyDraft,
  type Change,
  createDraft,
  createEnrichmentProfile,
  createEnrichmentRule,
  deleteDraft,
  deleteEnrichmentProfile,
  deleteEnrichmentRule,
  setLiveConfig,
  updateDraft,
  updateEnrichmentProfile,
} from "../store/settings/write.js";
import { mayReadTag, queryOnce } from "./operations-common.js";

/**
 * The Settings API (`/api/settings`, JSON). Replies are the bare JSON objects the real service gives
 * (pyPreservica reads `{"rules":[…]}` and a profile object directly), not the `{success, version, value}`
 * envelope of the Content and Report APIs; errors are the service's usual `{success:false, message}`.
 *
 * - Migration configuration: the live policy (profiles and rules), read by anyone signed in; rules with
 *   `expand=entityMap` carry the titles of the entities they name. Replaced whole (PUT) by administrators.
 * - Drafts: complete configurations kept aside; no effect on anything until applied (administrators).
 * - Metadata enrichment: profiles (PII detection) and rules (priority, selectors); a profile a rule uses
 *   cannot be deleted (403, as the real service answers).
 *
 * Every change records a config event (category SETTINGS) in its own transaction.
 */

type Ctx = Context<AppEnv>;

const MIGRATION = "/migration/config";
const ENRICHMENT = "/metadata-enrichment/config";
const SELECTORS = ["securityDescriptorSelector", "representationSelector", "hierarchySelector"] as const;
const MAX_SELECTOR_CHARS = 16_384;

export function settingsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);

  app.get(MIGRATION, (c) => {
    const expand = expandOf(c);
    return c.json(configJson(c, liveConfig(c.get("svc").db), expand));
  });
  app.put(MIGRATION, requireRole(MANAGERS, "change the migration configuration"), async (c) => {
    const body = await jsonBody(c, CONFIG_EXAMPLE);
    const config = checked(() => parseMigrationConfig(c.get("svc").db, body));
    setLiveConfig(c.get("svc").db, config, change(c));
    return c.json(configJson(c, config));
  });
  app.get(`${MIGRATION}/profiles`, (c) => c.json({ profiles: liveProfiles(c.get("svc").db) }));
  app.get(`${MIGRATION}/profiles/:id`, (c) => {
    const id = settingId(c.req.param("id"), "Profile id");
    const p = liveProfile(c.get("svc").db, id);
    if (!p) throw notFound(`No migration profile "${id}"; GET /api/settings${MIGRATION}/profiles lists them`);
    return c.json(p);
  });
  app.get(`${MIGRATION}/rules`, (c) => {
    const expand = expandOf(c);
    return c.json({ rules: liveRules(c.get("svc").db).map((r) => ruleJson(c, r, expand)) });
  });
  app.get(`${MIGRATION}/rules/:id`, (c) => {
    const expand = expandOf(c);
    const id = settingId(c.req.param("id"), "Rule id");
    const r = liveRule(c.get("svc").db, id);
    if (!r) throw notFound(`No migration rule "${id}"; GET /api/settings${MIGRATION}/rules lists them`);
    return c.json(ruleJson(c, r, expand));
  });

  app.get(`${MIGRATION}/drafts`, (c) => {
    const expand = expandOf(c);
    return c.json({ drafts: drafts(c.get("svc").db).map((d) => draftJson(c, d, expand)) });
  });
  app.post(`${MIGRATION}/drafts`, requireRole(MANAGERS, "create migration drafts"), async (c) => {
    const { db } = c.get("svc");
    const d = await draftInput(c);
    const id = createDraft(db, d, change(c));
    return c.json(draftJson(c, knownDraft(c, id), false), 201);
  });
  app.get(`${MIGRATION}/drafts/:id`, (c) => {
    const expand = expandOf(c);
    return c.json(draftJson(c, knownDraft(c, c.req.param("id")), expand));
  });
  app.put(`${MIGRATION}/drafts/:id`, requireRole(MANAGERS, "change migration drafts"), async (c) => {
    const draft = openDraft(knownDraft(c, c.req.param("id")));
    const d = await draftInput(c);
    updateDraft(c.get("svc").db, draft.id, d, change(c));
    return c.json(draftJson(c, knownDraft(c, draft.id), false));
  });
  app.delete(`${MIGRATION}/drafts/:id`, requireRole(MANAGERS, "delete migration drafts"), (c) => {
    deleteDraft(c.get("svc").db, knownDraft(c, c.req.param("id")), change(c));
    return c.body(null, 204);
  });
  app.post(`${MIGRATION}/drafts/:id/apply`, requireRole(MANAGERS, "apply migration drafts"), (c) => {
    const { db } = c.get("svc");
    const draft = openDraft(knownDraft(c, c.req.param("id")));
    // Checked again against the store as it is now: an entity a rule names may have been deleted since.
    const config = checked(() =>
      parseMigrationConfig(db, draftConfig(draft) as unknown as Record<string, unknown>),
    );
    applyDraft(db, draft, config, change(c));
    return c.json({
      draft: draftJson(c, knownDraft(c, draft.id), false),
      live: configJson(c, liveConfig(db)),
    });
  });

  app.get(`${ENRICHMENT}/profiles`, (c) =>
    c.json({ profiles: enrichmentProfiles(c.get("svc").db).map(profileJson) }),
  );
  app.post(
    `${ENRICHMENT}/profiles`,
    requireRole(MANAGERS, "create metadata enrichment profiles"),
    async (c) => {
      const p = profileInput(await jsonBody(c, PROFILE_EXAMPLE));
      const id = createEnrichmentProfile(c.get("svc").db, p, change(c));
      return c.json(profileJson(knownProfile(c, id)), 201);
    },
  );
  app.get(`${ENRICHMENT}/profiles/:id`, (c) => c.json(profileJson(knownProfile(c, c.req.param("id")))));
  app.put(
    `${ENRICHMENT}/profiles/:id`,
    requireRole(MANAGERS, "change metadata enrichment profiles"),
    async (c) => {
      const profile = knownProfile(c, c.req.param("id"));
      const p = profileInput(await jsonBody(c, PROFILE_EXAMPLE));
      updateEnrichmentProfile(c.get("svc").db, profile.id, p, change(c));
      return c.json(profileJson(knownProfile(c, profile.id)));
    },
  );
  app.delete(
    `${ENRICHMENT}/profiles/:id`,
    requireRole(MANAGERS, "delete metadata enrichment profiles"),
    (c) => {
      const { db } = c.get("svc");
      const profile = knownProfile(c, c.req.param("id"));
      const users = rulesUsingEnrichmentProfile(db, profile.id);
      if (users.length > 0) {
        throw new HTTPException(403, {
          message: `Metadata enrichment profile "${profile.name}" is used by rule${users.length === 1 ? "" : "s"} ${users.join(", ")}; delete ${users.length === 1 ? "that rule" : "those rules"} first (DELETE /api/settings${ENRICHMENT}/rules/{id})`,
        });
      }
      deleteEnrichmentProfile(db, profile.id, profile.name, change(c));
      return c.body(null, 204);
    },
  );
  app.get(`${ENRICHMENT}/rules`, (c) =>
    c.json({ rules: enrichmentRules(c.get("svc").db).map(enrichmentRuleJson) }),
  );
  // pyPreservica posts rules to /api/settings//metadata-enrichment/… (a double slash): served the same.
  for (const path of [`${ENRICHMENT}/rules`, `/${ENRICHMENT}/rules`]) app.post(path, addEnrichmentRule);
  app.get(`${ENRICHMENT}/rules/:id`, (c) =>
    c.json(enrichmentRuleJson(knownEnrichmentRule(c, c.req.param("id")))),
  );
  app.delete(`${ENRICHMENT}/rules/:id`, requireRole(MANAGERS, "delete metadata enrichment rules"), (c) => {
    const rule = knownEnrichmentRule(c, c.req.param("id"));
    deleteEnrichmentRule(c.get("svc").db, rule.id, change(c));
    return c.body(null, 204);
  });
  return app;
}

function change(c: Ctx): Change {
  return { username: c.get("caller").user.username, at: nowIso(c) };
}

function notFound(message: string): HTTPException {
  return new HTTPException(404, { message });
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/** Runs a parser of stored settings, turning what it refuses into a 400 with its message. */
function checked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof InvalidSettings) throw badRequest(err.message);
    throw err;
  }
}

/** The request body as a JSON object (any Content-Type: clients label JSON inconsistently). */
async function jsonBody(c: Ctx, example: string): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "")
    throw badRequest(`The request body is empty; send a JSON object such as ${example}`);
  return jsonObjectOf(text, {
    tooDeep: `The JSON request body nests deeper than ${MAX_JSON_DEPTH} levels; send an object such as ${example}`,
    notJson: `The request body is not valid JSON; send an object such as ${example}`,
    notObject: `The request body must be a JSON object, such as ${example}`,
  });
}

/** A migration profile or rule id from the path: the characters ids may hold, at most 100 of them. */
function settingId(raw: string | undefined, what: string): string {
  const id = (raw ?? "").trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/.test(id)) {
    throw badRequest(
      `${what} "${id.slice(0, 80)}" is malformed; ids are up to ${LIMITS.id} letters, digits, dots, dashes, colons or underscores`,
    );
  }
  return id;
}

function uuidParam(raw: string | undefined, what: string, list: string): string {
  const id = (raw ?? "").trim();
  if (!isUuid(id)) {
    throw badRequest(
      `${what} "${id.slice(0, 80)}" is not an id; ids look like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f (GET ${list} lists them)`,
    );
  }
  return id.toLowerCase();
}

/** `expand`: absent, or entityMap (the only value the service defines). */
function expandOf(c: Ctx): boolean {
  const raw = queryOnce(c, "expand");
  if (raw === undefined) return false;
  if (raw.toLowerCase() === "entitymap") return true;
  throw badRequest(
    `Parameter expand takes one value, entityMap (titles of the entities rules name), got "${raw.slice(0, 40)}"`,
  );
}

/** The titles of the entities rules name: a title only where the caller may read the entity. */
function entityMap(
  c: Ctx,
  rules: readonly MigrationRule[],
): Record<string, { title: string | null; type: string | null }> {
  const found = entitiesByRef(
    c.get("svc").db,
    rules.flatMap((r) => r.entityRefs),
  );
  const map: Record<string, { title: string | null; type: string | null }> = {};
  for (const ref of rules.flatMap((r) => r.entityRefs)) {
    const e = found.get(ref);
    map[ref] = {
      title: e && !e.deleted && mayReadTag(c, e.securityTag) ? e.title : null,
      type: e ? (e.type === "SO" ? "SO" : "IO") : null,
    };
  }
  return map;
}

function ruleJson(c: Ctx, r: MigrationRule, expand: boolean) {
  return expand ? { ...r, entityMap: entityMap(c, [r]) } : r;
}

function configJson(c: Ctx, config: MigrationConfig, expand = false) {
  return { profiles: config.profiles, rules: config.rules.map((r) => ruleJson(c, r, expand)) };
}

function knownDraft(c: Ctx, raw: string | undefined): DraftRow {
  const id = uuidParam(raw, "Draft id", `/api/settings${MIGRATION}/drafts`);
  const d = getDraft(c.get("svc").db, id);
  if (!d) throw notFound(`No migration draft ${id}; GET /api/settings${MIGRATION}/drafts lists them`);
  return d;
}

/** 409 for a draft already applied: it is the record of what was applied, and stays as it was. */
function openDraft(d: DraftRow): DraftRow {
  if (d.status === "APPLIED") {
    throw new HTTPException(409, {
      message: `Migration draft ${d.id} was applied on ${d.applied} by ${d.applied_by} and is kept as the record of it; create a new draft (POST /api/settings${MIGRATION}/drafts)`,
    });
  }
  return d;
}

function draftJson(c: Ctx, d: DraftRow, expand: boolean) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    status: d.status,
    created: d.created,
    createdBy: d.created_by,
    modified: d.modified,
    applied: d.applied,
    appliedBy: d.applied_by,
    ...configJson(c, draftConfig(d), expand),
  };
}

async function draftInput(
  c: Ctx,
): Promise<{ name: string; description: string | null; config: MigrationConfig }> {
  const example = `{"name":"2026 review",${CONFIG_EXAMPLE.slice(1)}`;
  const body = await jsonBody(c, example);
  const { db } = c.get("svc");
  return checked(() => {
    const config = parseMigrationConfig(db, body);
    const name = typeof body.name === "string" ? body.name.trim() : "";
    if (!name) throw new InvalidSettings(`A draft needs a name; send an object such as ${example}`);
    if (name.length > LIMITS.name)
      throw new InvalidSettings(`name is longer than ${LIMITS.name} characters; shorten it`);
    const description = body.description;
    if (description !== undefined && description !== null && typeof description !== "string") {
      throw new InvalidSettings("description must be a string");
    }
    if (typeof description === "string" && description.length > LIMITS.description) {
      throw new InvalidSettings(`description is longer than ${LIMITS.description} characters; shorten it`);
    }
    return { name, description: description?.trim() || null, config };
  });
}

const PROFILE_EXAMPLE = '{"name":"PII screening","piiSettings":{"active":"true"}}';
const RULE_EXAMPLE = '{"profileId":"<profile id>","priority":"1","selectorSettings":{}}';

function flagOf(v: unknown, what: string): boolean {
  if (v === true || v === "true") return true;
  if (v === false || v === "false") return false;
  throw badRequest(`${what} must be true or false, got ${JSON.stringify(v).slice(0, 40)}`);
}

function profileInput(body: Record<string, unknown>): { name: string; piiActive: boolean } {
  const name = typeof body.name === "string" ? body.name.trim() : "";
  if (!name)
    throw badRequest(`A metadata enrichment profile needs a name; send an object such as ${PROFILE_EXAMPLE}`);
  if (name.length > LIMITS.name)
    throw badRequest(`name is longer than ${LIMITS.name} characters; shorten it`);
  const pii = body.piiSettings;
  if (pii !== undefined && (typeof pii !== "object" || pii === null || Array.isArray(pii))) {
    throw badRequest(`piiSettings must be an object such as {"active":"true"}`);
  }
  const active = (pii as Record<string, unknown> | undefined)?.active;
  return { name, piiActive: active === undefined ? false : flagOf(active, "piiSettings.active") };
}

function profileJson(p: EnrichmentProfileRow) {
  return {
    id: p.id,
    name: p.name,
    piiSettings: { active: p.pii_active === 1 },
    created: p.created,
    modified: p.modified,
  };
}

function knownProfile(c: Ctx, raw: string | undefined): EnrichmentProfileRow {
  const id = uuidParam(raw, "Profile id", `/api/settings${ENRICHMENT}/profiles`);
  const p = enrichmentProfile(c.get("svc").db, id);
  if (!p)
    throw notFound(
      `No metadata enrichment profile ${id}; GET /api/settings${ENRICHMENT}/profiles lists them`,
    );
  return p;
}

function knownEnrichmentRule(c: Ctx, raw: string | undefined): EnrichmentRuleRow {
  const id = uuidParam(raw, "Rule id", `/api/settings${ENRICHMENT}/rules`);
  const r = enrichmentRule(c.get("svc").db, id);
  if (!r)
    throw notFound(`No metadata enrichment rule ${id}; GET /api/settings${ENRICHMENT}/rules lists them`);
  return r;
}

function enrichmentRuleJson(r: EnrichmentRuleRow) {
  return {
    id: r.id,
    profileId: r.profile_id,
    priority: r.priority,
    selectorSettings: JSON.parse(r.selector_settings) as Record<string, unknown>,
    created: r.created,
  };
}

/** POST rules: profile known, priority a whole number (text or number), selectors among the supported ones. */
async function addEnrichmentRule(c: Ctx): Promise<Response> {
  checkRole(c, MANAGERS, "add metadata enrichment rules");
  const { db } = c.get("svc");
  const body = await jsonBody(c, RULE_EXAMPLE);
  if (typeof body.profileId !== "string" || body.profileId.trim() === "") {
    throw badRequest(
      `A rule needs the profileId of the profile it applies; send an object such as ${RULE_EXAMPLE}`,
    );
  }
  const profile = knownProfileForRule(c, body.profileId);
  let priority = enrichmentRules(db).length + 1;
  if (body.priority !== undefined && body.priority !== null) {
    const raw = String(body.priority).trim();
    if (
      !/^\d{1,6}$/.test(raw) ||
      Number(raw) < 1 ||
      (typeof body.priority !== "string" && typeof body.priority !== "number")
    ) {
      throw badRequest(
        `priority must be a whole number from 1 (evaluated first), got ${JSON.stringify(body.priority).slice(0, 40)}`,
      );
    }
    priority = Number(raw);
  }
  const sel = body.selectorSettings ?? {};
  if (typeof sel !== "object" || sel === null || Array.isArray(sel)) {
    throw badRequest(
      `selectorSettings must be an object ({} applies the rule to all content), such as ${RULE_EXAMPLE}`,
    );
  }
  for (const [key, value] of Object.entries(sel)) {
    if (!(SELECTORS as readonly string[]).includes(key)) {
      throw badRequest(
        `selectorSettings.${key.slice(0, 60)} is not a supported selector; the supported ones are ${SELECTORS.join(", ")}`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw badRequest(`selectorSettings.${key} must be an object`);
    }
  }
  if (JSON.stringify(sel).length > MAX_SELECTOR_CHARS) {
    throw badRequest(`selectorSettings is longer than ${MAX_SELECTOR_CHARS} characters as JSON; select less`);
  }
  const made = createEnrichmentRule(
    db,
    { profileId: profile.id, priority, selectorSettings: sel as Record<string, unknown> },
    change(c),
  );
  return c.json(enrichmentRuleJson(knownEnrichmentRule(c, made.id)), 201 as ContentfulStatusCode);
}

/** The profile a new rule names: a malformed or unknown id is the body's fault (400), not a missing page. */
function knownProfileForRule(c: Ctx, raw: string): EnrichmentProfileRow {
  const id = raw.trim();
  const p = isUuid(id) ? enrichmentProfile(c.get("svc").db, id.toLowerCase()) : undefined;
  if (!p) {
    throw badRequest(
      `profileId "${id.slice(0, 80)}" is not a metadata enrichment profile; GET /api/settings${ENRICHMENT}/profiles lists them`,
    );
  }
  return p;
}
