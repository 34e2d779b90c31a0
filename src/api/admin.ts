import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";
import { all, attr, childText, descendants, escapeXml, one, rootOf, text, type XmlElement } from "./xml.js";

/**
 * Admin, Security, Storage, Entitlement, Settings (migration), Analytics, Authentication Management and PAR
 * registry APIs. Thin typed methods; nothing MCP-specific. Wire shapes: docs/repository-api/{admin,storage,
 * settings,system,registry}.md. The Admin API's users, tags and roles are XML (AdminAPI namespace, read by
 * local name); temporary users, config events, feature usage, storage and analytics are JSON in the
 * `{success, version, value}` envelope; the Settings API and the PAR registry answer bare JSON.
 */

export const ADMIN_NS = "http://preservica.com/AdminAPI/v7.7";

export interface AdminUser {
  userName: string;
  fullName: string;
  email: string;
  tenant?: string;
  enabled: boolean;
  /** As the Admin API names them: without the ROLE_ prefix (SDB_MANAGER_USER). */
  roles: string[];
}

export interface TemporaryUser {
  username: string;
  fullName: string;
  email: string;
  roles: string[];
  enabled: boolean;
  expires: string | null;
  expired: boolean;
  needsChallenge: boolean;
  lastLogin: string | null;
}

export interface TagPermissions {
  tag: string;
  /** What the caller's roles may do on it (Read Metadata, Update Metadata, Download, Ingest, Move, …). */
  permissions: string[];
}

export interface ConfigEvent {
  ref: string;
  at: string;
  username: string;
  category: string;
  commandType: string;
  subject: string;
  summary: string;
  details: unknown;
}

export interface ConfigEventFilter {
  category?: string;
  commandType?: string;
  username?: string;
  from?: string;
  to?: string;
  start?: number;
  max?: number;
}

export interface FeatureUsage {
  feature: string;
  used: number;
  unit: string;
  description?: string;
}

export interface Quota {
  edition: string;
  quotaBytes: number | null;
  usedBytes: number;
  remainingBytes: number | null;
  percentUsed: number | null;
  exceeded: boolean;
  storedBlobs?: number;
  bitstreams?: { count: number; bytes: number };
  measured?: string;
}

export interface StorageAdapter {
  id: string;
  name: string;
  type: string;
  description?: string | null;
  enabled: boolean;
  builtIn: boolean;
  holdsBytes: boolean;
  inPolicy: boolean;
  settings: Record<string, unknown>;
  modified?: string;
  modifiedBy?: string;
}

export interface StoragePolicy {
  name: string;
  description: string | null;
  minimumCopies: number;
  adapters: { id: string; name: string; type: string; primary: boolean }[];
  applied?: string | null;
  appliedBy?: string | null;
}

export interface Limit {
  feature: string;
  name: string;
  unit: string;
  limit: number | null;
  used: number;
  remaining: number | null;
  percentUsed: number | null;
  reached: boolean;
}

export interface StorageLocation {
  name: string;
  id?: string;
  type?: string;
  primary: boolean;
  /** A configuration record only: this adapter does not really hold the bytes. */
  simulated: boolean;
}

export interface MigrationProfile {
  id: string;
  name: string;
  description?: string | null;
  ruleSetId?: string | null;
  formats: { puid: string; action: string; targetPuid?: string | null }[];
}

export interface MigrationRule {
  id: string;
  name: string | null;
  priority: number;
  profileId: string;
  entityRefs: string[];
  entityMap?: Record<string, { title: string | null; type: string | null }>;
}

export interface MigrationDraft {
  id: string;
  name: string;
  description: string | null;
  status: string;
  created: string;
  createdBy: string;
  modified?: string;
  applied: string | null;
  appliedBy: string | null;
  profiles: MigrationProfile[];
  rules: MigrationRule[];
}

export interface PolicyImpact {
  generated: string;
  generatedBy: string;
  progressToken?: string;
  parameters: Record<string, unknown>;
  data: {
    policy: { source: string; draftId?: string; draftName?: string };
    summary: {
      assetsConsidered: number;
      assetsInScope: number;
      assetsAffected: number;
      filesAffected: number;
      bytesAffected: number;
    };
    rules: {
      ruleId: string;
      priority: number;
      profileId: string;
      profileName?: string;
      assetsInScope: number;
      assetsAffected: number;
    }[];
    formats: {
      puid: string;
      formatName?: string;
      action: string;
      targetPuid?: string | null;
      assets: number;
      files: number;
      bytes: number;
    }[];
    assets: {
      ref: string;
      title: string;
      securityTag?: string;
      ruleId: string;
      profileId: string;
      files: { coRef: string; filename: string; puid: string; size: number; action: string }[];
    }[];
  };
}

/** Fields of a storage adapter a client sets (POST all that matter, PUT any). */
export interface AdapterChanges {
  name?: string;
  type?: string;
  description?: string | null;
  settings?: Record<string, string | number | boolean>;
  enabled?: boolean;
}

export interface StoragePolicyInput {
  name: string;
  description?: string | null;
  /** Adapter ids, the primary copy's first. */
  adapters: string[];
  minimumCopies?: number;
}

/** What a SAML metadata document says of an identity provider (the service saves none of it). */
export interface IdentityProvider {
  entityId: string;
  validUntil: string | null;
  singleSignOnServices: { binding: string; location: string }[];
  singleLogoutServices: { binding: string; location: string }[];
  nameIdFormats: string[];
  wantAuthnRequestsSigned: boolean;
  certificates: {
    use: string;
    subject: string;
    issuer: string;
    validFrom: string;
    validTo: string;
    sha256Fingerprint: string;
  }[];
}

export interface MigrationConfig {
  profiles: MigrationProfile[];
  rules: MigrationRule[];
}

/** A PAR document: `id` plus whatever fields the kind has. */
export interface ParDocument {
  id: { guid: string; name: string; namespace?: string };
  [field: string]: unknown;
}

const JSON_ACCEPT = "application/json";

function bool(v: string | undefined): boolean {
  return v?.trim().toLowerCase() === "true";
}

/** `<User>` (AdminAPI) → AdminUser. */
export function readAdminUser(el: XmlElement): AdminUser {
  return {
    userName: childText(el, "UserName") ?? "",
    fullName: childText(el, "FullName") ?? "",
    email: childText(el, "Email") ?? "",
    ...(childText(el, "Tenant") ? { tenant: childText(el, "Tenant") } : {}),
    enabled: bool(childText(el, "Enabled")),
    roles: all(one(el, "Roles"), "Role").map((r) => text(r) ?? ""),
  };
}

/** A list of one element's texts: `<Users><User>a</User>…` → ["a", …]. */
function texts(doc: XmlElement, item: string): string[] {
  return descendants(rootOf(doc).el, item)
    .map((e) => text(e) ?? "")
    .filter(Boolean);
}

export class AdminApi {
  constructor(private readonly http: HttpClient) {}

  private unexpected(operation: string, path: string, detail: string): UnexpectedResponseError {
    return new UnexpectedResponseError({ status: 200, operation, method: "GET", path, detail });
  }

  private async xml(operation: string, path: string, signal?: AbortSignal): Promise<XmlElement> {
    const res = await this.http.request<XmlElement>({ path, accept: "application/xml", operation, signal });
    if (!res.data || typeof res.data !== "object" || Buffer.isBuffer(res.data))
      throw this.unexpected(operation, path, "the reply is not an XML document");
    return res.data;
  }

  /** A JSON reply; `envelope` unwraps `{success, version, value}`. */
  private async json<T>(
    operation: string,
    path: string,
    opts: {
      envelope: boolean;
      query?: Record<string, string | number | undefined>;
      signal?: AbortSignal;
      auth?: boolean;
    },
  ): Promise<T> {
    const res = await this.http.request<unknown>({
      path,
      query: opts.query,
      accept: JSON_ACCEPT,
      operation,
      signal: opts.signal,
      ...(opts.auth === false ? { auth: false } : {}),
    });
    const data = res.data as Record<string, unknown> | undefined;
    if (!data || typeof data !== "object") throw this.unexpected(operation, path, "the reply is not JSON");
    if (!opts.envelope) return data as T;
    if (!("value" in data)) throw this.unexpected(operation, path, "the reply has no `value`");
    return data.value as T;
  }

  /** A JSON write (POST/PUT with a JSON body, or a DELETE); `envelope` unwraps `{success, version, value}`. */
  private async send<T>(
    method: "POST" | "PUT" | "DELETE",
    operation: string,
    path: string,
    opts: { body?: unknown; envelope: boolean; idempotent?: boolean; signal?: AbortSignal },
  ): Promise<T> {
    const res = await this.http.request<unknown>({
      method,
      path,
      ...(opts.body === undefined
        ? {}
        : { body: JSON.stringify(opts.body), headers: { "content-type": "application/json" } }),
      accept: JSON_ACCEPT,
      operation,
      ...(opts.idempotent === false ? { idempotent: false } : {}),
      signal: opts.signal,
    });
    if (method === "DELETE") return undefined as T;
    const data = res.data as Record<string, unknown> | undefined;
    if (!data || typeof data !== "object") throw this.unexpected(operation, path, "the reply is not JSON");
    if (!opts.envelope) return data as T;
    if (!("value" in data)) throw this.unexpected(operation, path, "the reply has no `value`");
    return data.value as T;
  }

  // ---- users, roles, tags --------------------------------------------------------------------------------

  async listUsers(signal?: AbortSignal): Promise<string[]> {
    return texts(await this.xml("admin.users", "/api/admin/users", signal), "User");
  }

  async getUser(user: string, signal?: AbortSignal): Promise<AdminUser> {
    const p = `/api/admin/users/${encodeURIComponent(user)}`;
    return readAdminUser(rootOf(await this.xml("admin.user", p, signal)).el);
  }

  /** Enables or disables an account; disabling ends its sessions. Answers the user as it now is. */
  async setUserEnabled(user: string, enabled: boolean, signal?: AbortSignal): Promise<AdminUser> {
    const p = `/api/admin/users/${encodeURIComponent(user)}/enabled`;
    const res = await this.http.request<XmlElement>({
      method: "PUT",
      path: p,
      form: { userEnabledStatus: enabled ? "true" : "false" },
      accept: "application/xml",
      operation: enabled ? "admin.user.enable" : "admin.user.disable",
      signal,
    });
    return readAdminUser(rootOf(res.data).el);
  }

  /** Adds a permanent user (no password: a set-password code is mailed to them). */
  async addUser(
    u: { userName?: string; fullName: string; email: string; roles: string[] },
    signal?: AbortSignal,
  ): Promise<AdminUser> {
    const roles = u.roles.map((r) => `<Role>${escapeXml(r)}</Role>`).join("");
    const name = u.userName ? `<UserName>${escapeXml(u.userName)}</UserName>` : "";
    const body = `<User xmlns="${ADMIN_NS}">${name}<FullName>${escapeXml(u.fullName)}</FullName><Email>${escapeXml(u.email)}</Email><Roles>${roles}</Roles></User>`;
    const res = await this.http.request<XmlElement>({
      method: "POST",
      path: "/api/admin/users",
      query: { source: "UX2" },
      body,
      headers: { "content-type": "application/xml" },
      accept: "application/xml",
      operation: "admin.user.add",
      idempotent: false,
      signal,
    });
    return readAdminUser(rootOf(res.data).el);
  }

  /**
   * Changes a user's full name, e-mail or roles (absent ones stay), as pyPreservica does: PUT the user
   * document back. Roles are sent without the ROLE_ prefix, the Admin API's form. Answers the user as it now is.
   */
  async updateUser(
    user: string,
    changes: { fullName?: string; email?: string; roles?: string[] },
    signal?: AbortSignal,
  ): Promise<AdminUser> {
    const parts = [
      `<UserName>${escapeXml(user)}</UserName>`,
      changes.fullName === undefined ? "" : `<FullName>${escapeXml(changes.fullName)}</FullName>`,
      changes.email === undefined ? "" : `<Email>${escapeXml(changes.email)}</Email>`,
      changes.roles === undefined
        ? ""
        : `<Roles>${changes.roles.map((r) => `<Role>${escapeXml(r.replace(/^ROLE_/, ""))}</Role>`).join("")}</Roles>`,
    ];
    const res = await this.http.request<XmlElement>({
      method: "PUT",
      path: `/api/admin/users/${encodeURIComponent(user)}`,
      body: `<User xmlns="${ADMIN_NS}">${parts.join("")}</User>`,
      headers: { "content-type": "application/xml" },
      accept: "application/xml",
      operation: "admin.user.update",
      signal,
    });
    return readAdminUser(rootOf(res.data).el);
  }

  async temporaryUsers(signal?: AbortSignal): Promise<{ temporaryUsers: TemporaryUser[]; total: number }> {
    return this.json("admin.temporaryUsers", "/api/admin/temporary-users", { envelope: true, signal });
  }

  /**
   * System roles without the ROLE_ prefix (the form user documents take), built-in first. The service lists
   * them with the prefix; older releases and proxies may not, so both forms are read.
   */
  async roles(signal?: AbortSignal): Promise<string[]> {
    const listed = texts(await this.xml("admin.roles", "/api/admin/security/roles", signal), "Role");
    return listed.map((r) => r.replace(/^ROLE_/, ""));
  }

  /** Every security tag with what the caller's roles may do on it (Security API). */
  async tagPermissions(signal?: AbortSignal): Promise<TagPermissions[]> {
    const doc = await this.xml("security.tags", "/api/security/tags", signal);
    return all(rootOf(doc).el, "Tag").map((t) => ({
      tag: attr(t, "name") ?? text(t) ?? "",
      permissions: all(one(t, "Permissions"), "Permission").map((p) => text(p) ?? ""),
    }));
  }

  // ---- config events, feature usage, authentication -------------------------------------------------------

  async configEvents(
    filter: ConfigEventFilter,
    signal?: AbortSignal,
  ): Promise<{ events: ConfigEvent[]; total: number; start: number; max: number }> {
    return this.json("admin.configEvents", "/api/admin/config-events", {
      envelope: true,
      query: { ...filter },
      signal,
    });
  }

  async configEventFilters(signal?: AbortSignal): Promise<{ categories: string[]; commandTypes: string[] }> {
    return this.json("admin.configEvents.filterInfo", "/api/admin/config-events/filter-info", {
      envelope: true,
      signal,
    });
  }

  async featureUsage(signal?: AbortSignal): Promise<{ at: string; features: FeatureUsage[] }> {
    return this.json("admin.featureUsage", "/api/admin/features/usage", { envelope: true, signal });
  }

  async authConfiguration(signal?: AbortSignal): Promise<{ maxSessionLifetimeMins: number }> {
    return this.json("auth.configuration", "/api/auth-management/auth/configuration", {
      envelope: true,
      signal,
    });
  }

  /** Sets the maximum session lifetime (administrators); lowering it ends older sessions at once. */
  async setAuthConfiguration(
    config: { maxSessionLifetimeMins: number },
    signal?: AbortSignal,
  ): Promise<{ maxSessionLifetimeMins: number }> {
    return this.send("PUT", "auth.configuration.update", "/api/auth-management/auth/configuration", {
      body: { maxSessionLifetimeMins: config.maxSessionLifetimeMins },
      envelope: true,
      signal,
    });
  }

  /** What a SAML 2.0 IdP metadata document describes (administrators). The service saves nothing. */
  async describeIdpMetadata(xml: string, signal?: AbortSignal): Promise<IdentityProvider[]> {
    const res = await this.http.request<unknown>({
      method: "POST",
      path: "/api/auth-management/idp-metadata",
      body: xml,
      headers: { "content-type": "application/xml" },
      accept: JSON_ACCEPT,
      operation: "auth.idpMetadata",
      // Saves nothing, so sending it again is harmless.
      idempotent: true,
      signal,
    });
    const data = res.data as { value?: { entities?: IdentityProvider[] } } | undefined;
    if (!data || typeof data !== "object" || !Array.isArray(data.value?.entities))
      throw this.unexpected("auth.idpMetadata", "/api/auth-management/idp-metadata", "no `entities`");
    return data.value.entities;
  }

  // ---- storage and entitlements --------------------------------------------------------------------------

  async quota(signal?: AbortSignal): Promise<Quota> {
    return this.json("storage.quota", "/api/storage/quota", { envelope: true, signal });
  }

  /** Administrators only. */
  async adapters(signal?: AbortSignal): Promise<StorageAdapter[]> {
    const v = await this.json<{ adapters: StorageAdapter[] }>("storage.adapters", "/api/storage/adapters", {
      envelope: true,
      signal,
    });
    return v.adapters ?? [];
  }

  /** Administrators only. Adds an adapter (a configuration record; it holds no bytes here). */
  async addAdapter(adapter: AdapterChanges & { name: string; type: string }, signal?: AbortSignal) {
    return this.send<StorageAdapter>("POST", "storage.adapter.add", "/api/storage/adapters", {
      body: adapter,
      envelope: true,
      idempotent: false,
      signal,
    });
  }

  /** Administrators only. Only the fields given change. */
  async updateAdapter(id: string, changes: AdapterChanges, signal?: AbortSignal) {
    return this.send<StorageAdapter>(
      "PUT",
      "storage.adapter.update",
      `/api/storage/adapters/${encodeURIComponent(id)}`,
      { body: changes, envelope: true, signal },
    );
  }

  /** Administrators only; refused (409) for the built-in adapter and one the storage policy uses. */
  async removeAdapter(id: string, signal?: AbortSignal): Promise<void> {
    await this.send("DELETE", "storage.adapter.remove", `/api/storage/adapters/${encodeURIComponent(id)}`, {
      envelope: false,
      signal,
    });
  }

  /** Administrators only. Applies a new storage policy at once; every bitstream's locations follow it. */
  async setStoragePolicy(policy: StoragePolicyInput, signal?: AbortSignal): Promise<StoragePolicy> {
    return this.send("PUT", "storage.policy.apply", "/api/settings/storage/config/policy", {
      body: {
        name: policy.name,
        ...(policy.description === undefined ? {} : { description: policy.description }),
        adapters: policy.adapters,
        ...(policy.minimumCopies === undefined ? {} : { minimumCopies: policy.minimumCopies }),
      },
      envelope: true,
      signal,
    });
  }

  async storagePolicy(signal?: AbortSignal): Promise<StoragePolicy> {
    return this.json("storage.policy", "/api/settings/storage/config/policy", { envelope: true, signal });
  }

  async edition(signal?: AbortSignal): Promise<string> {
    const v = await this.json<{ edition: string }>("entitlement.edition", "/api/entitlement/edition", {
      envelope: false,
      signal,
    });
    return v.edition;
  }

  async limits(signal?: AbortSignal): Promise<{ edition: string; limits: Limit[] }> {
    return this.json("entitlement.limits", "/api/entitlement/limits", { envelope: true, signal });
  }

  /** The adapters a bitstream is kept on, in the storage policy's order. */
  async storageLocations(
    coRef: string,
    generation: number,
    bitstream: number,
    signal?: AbortSignal,
  ): Promise<StorageLocation[]> {
    const p = `/api/entity/content-objects/${encodeURIComponent(coRef)}/generations/${generation}/bitstreams/${bitstream}/storage-locations`;
    const doc = await this.xml("entity.storageLocations", p, signal);
    const first = descendants(rootOf(doc).el, "StorageLocation")[0];
    return all(first, "Adapter").map((a) => ({
      name: attr(a, "name") ?? "",
      ...(attr(a, "id") ? { id: attr(a, "id") } : {}),
      ...(attr(a, "type") ? { type: attr(a, "type") } : {}),
      primary: bool(attr(a, "primary")),
      simulated: bool(attr(a, "simulated")),
    }));
  }

  // ---- migration policy and its impact -------------------------------------------------------------------

  async migrationProfiles(signal?: AbortSignal): Promise<MigrationProfile[]> {
    const v = await this.json<{ profiles: MigrationProfile[] }>(
      "settings.migration.profiles",
      "/api/settings/migration/config/profiles",
      { envelope: false, signal },
    );
    return v.profiles ?? [];
  }

  /** The live rules by priority, each with the titles of the entities it names. */
  async migrationRules(signal?: AbortSignal): Promise<MigrationRule[]> {
    const v = await this.json<{ rules: MigrationRule[] }>(
      "settings.migration.rules",
      "/api/settings/migration/config/rules",
      { envelope: false, query: { expand: "entityMap" }, signal },
    );
    return v.rules ?? [];
  }

  async migrationDrafts(signal?: AbortSignal): Promise<MigrationDraft[]> {
    const v = await this.json<{ drafts: MigrationDraft[] }>(
      "settings.migration.drafts",
      "/api/settings/migration/config/drafts",
      { envelope: false, query: { expand: "entityMap" }, signal },
    );
    return v.drafts ?? [];
  }

  async migrationDraft(id: string, signal?: AbortSignal): Promise<MigrationDraft> {
    return this.json(
      "settings.migration.draft",
      `/api/settings/migration/config/drafts/${encodeURIComponent(id)}`,
      {
        envelope: false,
        query: { expand: "entityMap" },
        signal,
      },
    );
  }

  /**
   * Makes a draft the live migration configuration (managers and administrators); 409 when it was applied
   * already. Answers the draft (now APPLIED) and the live configuration.
   */
  async applyMigrationDraft(
    id: string,
    signal?: AbortSignal,
  ): Promise<{ draft: MigrationDraft; live: MigrationConfig }> {
    return this.send(
      "POST",
      "settings.migration.draft.apply",
      `/api/settings/migration/config/drafts/${encodeURIComponent(id)}/apply`,
      { envelope: false, idempotent: false, signal },
    );
  }

  /** Starts the `policy.impact` data set for a draft (or the live configuration): the progress token. */
  async startPolicyImpact(draftId: string | undefined, signal?: AbortSignal): Promise<string> {
    const res = await this.http.request<string>({
      method: "POST",
      path: "/api/analytics/policy.impact/generation",
      body: JSON.stringify(draftId ? { draftId } : {}),
      headers: { "content-type": "application/json" },
      accept: "text/plain",
      responseType: "text",
      operation: "analytics.policyImpact.generate",
      idempotent: false,
      signal,
    });
    const token = (res.data ?? "").trim();
    if (!token)
      throw this.unexpected("analytics.policyImpact.generate", "/api/analytics", "no progress token");
    return token;
  }

  /** The newest generated `policy.impact` data set. */
  async policyImpact(signal?: AbortSignal): Promise<PolicyImpact> {
    return this.json("analytics.policyImpact", "/api/analytics/datasets/policy.impact", {
      envelope: true,
      signal,
    });
  }

  // ---- PAR registry (reads need no token; the service's own token is sent anyway) --------------------------

  async fileFormat(puid: string, signal?: AbortSignal): Promise<ParDocument> {
    // The PUID's slash is a path separator on this API (file-formats/fmt/18), so each part is encoded alone.
    const p = `/api/Registry/par/file-formats/${puid.split("/").map(encodeURIComponent).join("/")}`;
    return this.json("registry.fileFormat", p, { envelope: false, signal });
  }

  async registryList(
    kind: "file-formats" | "format-families" | "rulesets" | "business-rules",
    signal?: AbortSignal,
  ): Promise<ParDocument[]> {
    const key = {
      "file-formats": "fileFormats",
      "format-families": "formatFamilies",
      rulesets: "ruleSets",
      "business-rules": "businessRules",
    }[kind];
    const v = await this.json<Record<string, ParDocument[]>>(
      `registry.${kind}`,
      `/api/Registry/par/${kind}`,
      {
        envelope: false,
        signal,
      },
    );
    return v[key] ?? [];
  }
}
