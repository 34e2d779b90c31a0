import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { isUuid } from "../http/params.js";
import { ADMINISTRATORS, requireRole } from "../http/roles.js";
import { findBitstream, findGeneration } from "../store/entities/read.js";
import { setStorageQuota } from "../store/storage/quota.js";
import {
  type AdapterRow,
  adapterNamed,
  edition,
  findAdapter,
  limitOf,
  policyUsesAdapter,
  type StoragePolicy,
  storageAdapters,
  storagePolicy,
  storedBytes,
  usageOf,
} from "../store/storage/read.js";
import {
  type AdapterChanges,
  type AdapterInput,
  applyStoragePolicy,
  createAdapter,
  deleteAdapter,
  updateAdapter,
} from "../store/storage/write.js";
import { openDocument } from "../xml/common.js";
import { type EntityEnv, readableEntity, requireIndex, xml } from "./entity-common.js";

/**
 * The Storage API (`/api/storage`, JSON in the envelope `{success, version, value}`): the storage quota,
 * measured from the bytes the content store really holds and enforced by every write that stores bytes
 * (store/storage/quota.ts; administrators change it with PUT /quota), and the storage adapters (view, add, update,
 * remove: administrators only, as the spec says). Also here, because they are the same records seen from
 * elsewhere: the Settings API's storage policy (`/api/settings/storage/config/policy`, mounted on its own
 * so it does not depend on the rest of the Settings API) and the Entity API's storage locations of a
 * bitstream (XML, the shape pyPreservica reads).
 *
 * Only the built-in adapter (the local content store) holds bytes: the others are configuration records
 * of a service that makes no outbound connection. So adapters take no credentials, and a bitstream's
 * storage locations name the built-in adapter only where its bytes really are.
 */

type Ctx = Context<AppEnv>;

/** The kinds of adapter that can be configured; FILE_SYSTEM is also the built-in one's. */
export const ADAPTER_TYPES = ["FILE_SYSTEM", "S3", "AZURE", "GLACIER"] as const;
const MAX_NAME = 100;
const MAX_DESCRIPTION = 1000;
const MAX_SETTINGS = 20;
const MAX_SETTING_VALUE = 500;
const MAX_POLICY_ADAPTERS = 10;
/** Setting names that would carry a credential: refused, since nothing here could use one. */
const SECRET_NAME = /secret|password|passwd|token|credential|private|(access|account|api|sas)[_.-]?key/i;

export function storageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);

  app.get("/quota", (c) => ok(c, quotaJson(c)));
  app.put("/quota", requireRole(ADMINISTRATORS, "change the storage quota"), async (c) => {
    const quotaBytes = quotaInput(await jsonObject(c));
    setStorageQuota(c.get("svc").db, quotaBytes, username(c), nowIso(c));
    return ok(c, quotaJson(c));
  });

  app.get("/adapters", requireRole(ADMINISTRATORS, "view storage adapters"), (c) => {
    const db = c.get("svc").db;
    return ok(c, { adapters: storageAdapters(db).map((a) => adapterJson(c, a)) });
  });
  app.get("/adapters/:id", requireRole(ADMINISTRATORS, "view storage adapters"), (c) => {
    return ok(c, adapterJson(c, knownAdapter(c)));
  });
  app.post("/adapters", requireRole(ADMINISTRATORS, "add storage adapters"), async (c) => {
    const input = adapterInput(await jsonObject(c), "create") as AdapterInput;
    const db = c.get("svc").db;
    if (adapterNamed(db, input.name)) throw nameTaken(input.name);
    const limit = limitOf(db, "STORAGE_ADAPTERS");
    const count = usageOf(db, "STORAGE_ADAPTERS");
    if (limit !== null && count >= limit) {
      throw new HTTPException(409, {
        message: `The ${edition(db)} edition allows ${limit} storage adapters and ${count} exist; remove one (DELETE /api/storage/adapters/{id}) before adding another (GET /api/entitlement/limits shows the limits)`,
      });
    }
    const created = createAdapter(db, input, username(c), nowIso(c));
    return ok(c, adapterJson(c, created), 201, {
      Location: `${origin(c)}/api/storage/adapters/${created.id}`,
    });
  });
  app.put("/adapters/:id", requireRole(ADMINISTRATORS, "update storage adapters"), async (c) => {
    const before = knownAdapter(c);
    const changes = adapterInput(await jsonObject(c), "update", before.id);
    const db = c.get("svc").db;
    if (changes.name !== undefined) {
      const other = adapterNamed(db, changes.name);
      if (other && other.id !== before.id) throw nameTaken(changes.name);
    }
    if (before.built_in === 1) {
      const fixed = (["type", "settings", "enabled"] as const).filter(
        (k) =>
          changes[k] !== undefined && JSON.stringify(changes[k]) !== JSON.stringify(currentValue(before, k)),
      );
      if (fixed.length > 0) {
        throw new HTTPException(409, {
          message: `"${before.name}" is the built-in content store that holds every bitstream's bytes: its ${fixed.join(", ")} cannot change; only its name and description can`,
        });
      }
    }
    if (changes.enabled === false && before.enabled === 1 && policyUsesAdapter(db, before.id)) {
      throw new HTTPException(409, {
        message: `Storage adapter "${before.name}" is in the storage policy; apply a policy without it (PUT /api/settings/storage/config/policy) before disabling it`,
      });
    }
    return ok(c, adapterJson(c, updateAdapter(db, before, changes, username(c), nowIso(c))));
  });
  app.delete("/adapters/:id", requireRole(ADMINISTRATORS, "remove storage adapters"), (c) => {
    const adapter = knownAdapter(c);
    const db = c.get("svc").db;
    if (adapter.built_in === 1) {
      throw new HTTPException(409, {
        message: `"${adapter.name}" is the built-in content store that holds every bitstream's bytes; it cannot be removed`,
      });
    }
    if (policyUsesAdapter(db, adapter.id)) {
      throw new HTTPException(409, {
        message: `Storage adapter "${adapter.name}" is in the storage policy; apply a policy without it (PUT /api/settings/storage/config/policy) before removing it`,
      });
    }
    deleteAdapter(db, adapter, username(c), nowIso(c));
    return c.body(null, 204);
  });
  return app;
}

/**
 * The storage policy, part of the Settings API: mounted at `/api/settings/storage`. Reading needs a token;
 * applying a policy needs the administrator role.
 */
export function storageSettingsRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/config/policy", (c) => ok(c, policyJson(c, storagePolicy(c.get("svc").db))));
  app.put("/config/policy", requireRole(ADMINISTRATORS, "apply a storage policy"), async (c) => {
    const body = await jsonObject(c);
    const db = c.get("svc").db;
    const input = policyInput(c, body);
    applyStoragePolicy(db, input, username(c), nowIso(c));
    return ok(c, policyJson(c, storagePolicy(db)));
  });
  return app;
}

/**
 * `GET …/content-objects/{ref}/generations/{n}/bitstreams/{m}/storage-locations` (Entity API, XML):
 * `StorageLocationsResponse/StorageLocation` with one `Adapter name=…` per place the bitstream is kept
 * (pyPreservica reads the `name` of each child of the first `StorageLocation`). Needs Read Metadata on the
 * content object.
 */
export function registerBitstreamStorageRoutes(api: Hono<EntityEnv>): void {
  api.get("/content-objects/:ref/generations/:n/bitstreams/:m/storage-locations", (c) => {
    const co = readableEntity(c, c.req.param("ref"), "CO");
    const { db, content } = c.get("svc");
    const n = requireIndex(c.req.param("n"), "Generation number");
    const generation = findGeneration(db, co.ref, n);
    if (!generation) {
      throw new HTTPException(404, {
        message: `Content object ${co.ref} has no generation ${n}; list them at …/content-objects/${co.ref}/generations`,
      });
    }
    const m = requireIndex(c.req.param("m"), "Bitstream number");
    const bitstream = findBitstream(db, generation.id, m);
    if (!bitstream) {
      throw new HTTPException(404, {
        message: `Generation ${n} of content object ${co.ref} has no bitstream ${m}`,
      });
    }
    const ctx = c.get("render");
    const w = openDocument(ctx, "StorageLocationsResponse").open("StorageLocation");
    storagePolicy(db).targets.forEach((a, i) => {
      // The built-in store is named only where the bytes really are.
      if (a.built_in === 1 && !content.has(bitstream.content_sha256)) return;
      w.leaf("Adapter", "", {
        name: a.name,
        id: a.id,
        type: a.type,
        primary: i === 0 ? "true" : "false",
        simulated: a.built_in === 1 ? "false" : "true",
      });
    });
    w.close("StorageLocation");
    const self = `${ctx.base}/content-objects/${co.ref}/generations/${n}/bitstreams/${m}/storage-locations`;
    w.open("AdditionalInformation").leaf("Self", self).close("AdditionalInformation");
    return xml(c, w.close("StorageLocationsResponse").toString());
  });
}

function ok(c: Ctx, value: unknown, status: ContentfulStatusCode = 200, headers?: Record<string, string>) {
  return c.json({ success: true, version: 1, value }, status, headers);
}

function origin(c: Ctx): string {
  return new URL(c.req.url).origin;
}

function username(c: Ctx): string {
  return c.get("caller").user.username;
}

function knownAdapter(c: Ctx): AdapterRow {
  const id = c.req.param("id") ?? "";
  if (!isUuid(id)) {
    throw new HTTPException(400, {
      message: `"${id.slice(0, 80)}" is not a storage adapter id; ids are UUIDs, listed by GET /api/storage/adapters`,
    });
  }
  const adapter = findAdapter(c.get("svc").db, id.toLowerCase());
  if (!adapter) {
    throw new HTTPException(404, {
      message: `No storage adapter ${id}; GET /api/storage/adapters lists them with their ids`,
    });
  }
  return adapter;
}

function nameTaken(name: string): HTTPException {
  return new HTTPException(409, {
    message: `A storage adapter named "${name}" exists already; choose another name or update that adapter`,
  });
}

function currentValue(a: AdapterRow, k: "type" | "settings" | "enabled"): unknown {
  if (k === "settings") return JSON.parse(a.settings);
  if (k === "enabled") return a.enabled === 1;
  return a.type;
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/** The body as a JSON object, or a 400 that says what to send. */
async function jsonObject(c: Ctx): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(
      `The body must be a JSON object, got "${text.slice(0, 40)}"; see docs/repository-api/storage.md`,
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw badRequest(
      "The body must be a JSON object (not an array or a single value); see docs/repository-api/storage.md",
    );
  }
  return value as Record<string, unknown>;
}

const ADAPTER_FIELDS = ["name", "type", "description", "settings", "enabled"];
/** Fields of an adapter's JSON that a client may send back in a PUT unchanged: ignored. */
const READ_ONLY_FIELDS = [
  "id",
  "builtIn",
  "holdsBytes",
  "inPolicy",
  "created",
  "createdBy",
  "modified",
  "modifiedBy",
];

/** Field names for a message: the first few, shortened, so junk is never echoed at length. */
function fieldList(names: string[]): string {
  const shown = names.slice(0, 3).map((k) => `"${k.slice(0, 40)}"`);
  return names.length > 3 ? `${shown.join(", ")} and ${names.length - 3} more` : shown.join(", ");
}

function adapterInput(body: Record<string, unknown>, mode: "create" | "update", id?: string): AdapterChanges {
  const unknown = Object.keys(body).filter(
    (k) => !ADAPTER_FIELDS.includes(k) && !(mode === "update" && READ_ONLY_FIELDS.includes(k)),
  );
  if (unknown.length > 0) {
    throw badRequest(
      `Unknown field${unknown.length > 1 ? "s" : ""} ${fieldList(unknown)}; an adapter has ${ADAPTER_FIELDS.join(", ")}`,
    );
  }
  if (mode === "update" && body.id !== undefined && String(body.id).toLowerCase() !== id) {
    throw badRequest(
      `The body's id (${String(body.id).slice(0, 40)}) is not the adapter's (${id}); an id cannot change`,
    );
  }
  const out: AdapterChanges = {};
  if (body.name !== undefined || mode === "create")
    out.name = text(body.name, "name", MAX_NAME, true) as string;
  if (body.type !== undefined || mode === "create") out.type = adapterType(body.type);
  if (body.description !== undefined)
    out.description = text(body.description, "description", MAX_DESCRIPTION, false);
  else if (mode === "create") out.description = null;
  if (body.settings !== undefined) out.settings = settings(body.settings);
  else if (mode === "create") out.settings = {};
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== "boolean") throw badRequest("enabled must be true or false (a JSON boolean)");
    out.enabled = body.enabled;
  } else if (mode === "create") out.enabled = true;
  if (mode === "update" && Object.keys(body).every((k) => READ_ONLY_FIELDS.includes(k))) {
    throw badRequest(`Nothing to change; send one or more of ${ADAPTER_FIELDS.join(", ")}`);
  }
  return out;
}

/** A trimmed single-line text of at most `max` characters; null for an empty optional one. */
function text(v: unknown, field: string, max: number, required: boolean): string | null {
  if (v === null && !required) return null;
  if (typeof v !== "string") {
    throw badRequest(`${field} must be a string${required ? " (it is required)" : " or null"}`);
  }
  const t = v.trim();
  if (t === "") {
    if (required) throw badRequest(`${field} must not be empty`);
    return null;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(t))
    throw badRequest(`${field} must be one line without control characters`);
  if (t.length > max) throw badRequest(`${field} is ${t.length} characters long; at most ${max} are allowed`);
  return t;
}

function adapterType(v: unknown): string {
  const t = typeof v === "string" ? v.trim().toUpperCase() : "";
  const found = ADAPTER_TYPES.find((x) => x === t);
  if (!found) {
    throw badRequest(
      `type must be one of ${ADAPTER_TYPES.join(", ")}, got ${JSON.stringify(v)?.slice(0, 40) ?? "nothing"}`,
    );
  }
  return found;
}

function settings(v: unknown): Record<string, string> {
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    throw badRequest(
      'settings must be a JSON object of names to text values, e.g. {"bucket": "archive-copy"}',
    );
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_SETTINGS)
    throw badRequest(`settings has ${entries.length} entries; at most ${MAX_SETTINGS}`);
  const out: Record<string, string> = {};
  for (const [k, value] of entries) {
    if (!/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(k)) {
      throw badRequest(
        `Setting name "${k.slice(0, 40)}" is not allowed; names start with a letter and use letters, digits, _ . - (64 at most)`,
      );
    }
    if (SECRET_NAME.test(k)) {
      throw badRequest(
        `Setting "${k}" looks like a credential; this service makes no outbound connection to storage, so it takes no credentials: leave them out`,
      );
    }
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw badRequest(`Setting "${k}" must be text, a number or a boolean`);
    }
    const s = String(value);
    if (s.length > MAX_SETTING_VALUE)
      throw badRequest(`Setting "${k}" is longer than ${MAX_SETTING_VALUE} characters`);
    out[k] = s;
  }
  return out;
}

function policyInput(c: Ctx, body: Record<string, unknown>) {
  const allowed = ["name", "description", "adapters", "minimumCopies"];
  const unknown = Object.keys(body).filter(
    (k) => !allowed.includes(k) && !["applied", "appliedBy"].includes(k),
  );
  if (unknown.length > 0) {
    throw badRequest(
      `Unknown field${unknown.length > 1 ? "s" : ""} ${fieldList(unknown)}; a policy has ${allowed.join(", ")}`,
    );
  }
  const name = text(body.name, "name", MAX_NAME, true) as string;
  const description =
    body.description === undefined ? null : text(body.description, "description", MAX_DESCRIPTION, false);
  const raw = body.adapters;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_POLICY_ADAPTERS) {
    throw badRequest(
      `adapters must be a list of 1 to ${MAX_POLICY_ADAPTERS} adapter ids (the first holds the primary copy); GET /api/storage/adapters lists them`,
    );
  }
  const db = c.get("svc").db;
  const ids: string[] = [];
  for (const item of raw as unknown[]) {
    // An id, or an adapter object as GET /config/policy shows them.
    const id = typeof item === "string" ? item : (item as { id?: unknown } | null)?.id;
    if (typeof id !== "string" || !isUuid(id.trim())) {
      throw badRequest(
        `adapters holds ${JSON.stringify(item)?.slice(0, 60)}, not an adapter id; ids are UUIDs`,
      );
    }
    const key = id.trim().toLowerCase();
    const adapter = findAdapter(db, key);
    if (!adapter) throw badRequest(`No storage adapter ${key}; GET /api/storage/adapters lists them`);
    if (adapter.enabled !== 1) {
      throw badRequest(
        `Storage adapter "${adapter.name}" is disabled; enable it (PUT /api/storage/adapters/${key}) first`,
      );
    }
    if (ids.includes(key)) throw badRequest(`Storage adapter "${adapter.name}" is named twice in adapters`);
    ids.push(key);
  }
  if (!ids.some((id) => findAdapter(db, id)?.built_in === 1)) {
    const builtIn = storageAdapters(db).find((a) => a.built_in === 1);
    throw badRequest(
      `The policy must keep a copy on the built-in "${builtIn?.name}" (${builtIn?.id}): it is the only adapter that holds bytes here`,
    );
  }
  let minimumCopies = ids.length;
  if (body.minimumCopies !== undefined) {
    const m = body.minimumCopies;
    if (typeof m !== "number" || !Number.isInteger(m) || m < 1 || m > ids.length) {
      throw badRequest(
        `minimumCopies must be a whole number from 1 to ${ids.length} (the number of adapters named)`,
      );
    }
    minimumCopies = m;
  }
  return { name, description, adapterIds: ids, minimumCopies };
}

function adapterJson(c: Ctx, a: AdapterRow) {
  return {
    id: a.id,
    name: a.name,
    type: a.type,
    description: a.description,
    enabled: a.enabled === 1,
    builtIn: a.built_in === 1,
    holdsBytes: a.built_in === 1,
    inPolicy: policyUsesAdapter(c.get("svc").db, a.id),
    settings: JSON.parse(a.settings) as Record<string, string>,
    created: a.created,
    createdBy: a.created_by,
    modified: a.modified,
    modifiedBy: a.modified_by,
  };
}

function policyJson(_c: Ctx, p: StoragePolicy) {
  return {
    name: p.name,
    description: p.description,
    minimumCopies: p.minimum_copies,
    adapters: p.targets.map((a, i) => ({ id: a.id, name: a.name, type: a.type, primary: i === 0 })),
    applied: p.applied,
    appliedBy: p.applied_by,
  };
}

/** Fields of the quota's JSON a client may send back with a new quotaBytes: ignored. */
const QUOTA_READ_ONLY = [
  "edition",
  "usedBytes",
  "remainingBytes",
  "percentUsed",
  "exceeded",
  "storedBlobs",
  "bitstreams",
  "previews",
  "measured",
];

/** `{"quotaBytes": n}` (a whole number of bytes, 0 or more) or `{"quotaBytes": null}` (no limit). */
function quotaInput(body: Record<string, unknown>): number | null {
  const unknown = Object.keys(body).filter((k) => k !== "quotaBytes" && !QUOTA_READ_ONLY.includes(k));
  if (unknown.length > 0) {
    throw badRequest(
      `Unknown field${unknown.length > 1 ? "s" : ""} ${fieldList(unknown)}; send {"quotaBytes": <bytes>} or {"quotaBytes": null} for no limit`,
    );
  }
  if (!("quotaBytes" in body)) {
    throw badRequest(
      'quotaBytes is required: send {"quotaBytes": <bytes>} or {"quotaBytes": null} for no limit',
    );
  }
  const q = body.quotaBytes;
  if (q === null) return null;
  if (typeof q !== "number" || !Number.isSafeInteger(q) || q < 0) {
    throw badRequest(
      `quotaBytes must be a whole number of bytes, 0 or more (e.g. 5000000000 for 5 GB), or null for no limit; got ${JSON.stringify(q)?.slice(0, 40) ?? "nothing"}`,
    );
  }
  return q;
}

function quotaJson(c: Ctx) {
  const db = c.get("svc").db;
  const stored = storedBytes(db);
  const quota = limitOf(db, "STORAGE");
  const editionName = edition(db);
  return {
    edition: editionName,
    quotaBytes: quota,
    usedBytes: stored.usedBytes,
    remainingBytes: quota === null ? null : Math.max(0, quota - stored.usedBytes),
    percentUsed: quota === null || quota === 0 ? null : Math.round((stored.usedBytes / quota) * 1000) / 10,
    exceeded: quota !== null && stored.usedBytes > quota,
    storedBlobs: stored.blobs,
    bitstreams: stored.bitstreams,
    previews: stored.previews,
    measured: nowIso(c),
  };
}
