import { UnexpectedResponseError } from "../errors.js";
import type { HttpClient } from "../http.js";
import {
  entityXml,
  type GroupDefinition,
  identifierXml,
  linkXml,
  metadataContainerXml,
  xipNamespace,
} from "../metadata-build.js";
import { looksLikeRef } from "../refs.js";
import { readReply } from "../reply.js";
import { childText, find, type XmlElement } from "../xml.js";
import { readEntity, readVersion } from "./read.js";
import { ENTITY_PATHS, type Entity, type EntityType, type ServiceVersion } from "./types.js";

/**
 * Entity API writes: save title/description, descriptive metadata fragments, identifiers, links. Thin typed
 * methods; nothing MCP-specific. Request documents come from metadata-build.ts (every value escaped) in the
 * XIP namespace of the service's own version, read once (as pyPreservica does), since a real service matches
 * elements by namespace.
 */

export interface MetadataGroupSummary {
  id: string;
  name: string;
  schemaUri: string;
}

export interface MetadataGroup extends MetadataGroupSummary, GroupDefinition {
  fields: { id: string; name?: string; maxOccurs?: number; values?: string[] }[];
}

const XML = "application/xml;charset=UTF-8";
const API_ID = /^[A-Za-z0-9._-]{1,128}$/;

function checked(value: string, what: string, shape: RegExp | ((s: string) => boolean)): string {
  const ok = typeof shape === "function" ? shape(value) : shape.test(value);
  if (!ok) throw new TypeError(`Not a valid ${what}: "${value}"`);
  return encodeURIComponent(value);
}

export class EntityWriteApi {
  private readonly base: string;
  private xip: Promise<string> | undefined;

  constructor(
    private readonly http: HttpClient,
    opts: { basePath?: string } = {},
  ) {
    this.base = (opts.basePath ?? "/api/entity").replace(/\/+$/, "");
  }

  private entityPath(type: EntityType, ref: string): string {
    return `${this.base}/${ENTITY_PATHS[type]}/${checked(ref, "reference", looksLikeRef)}`;
  }

  /** The XIP namespace for request bodies, from the service's version (asked once; retried after a failure). */
  private namespace(signal?: AbortSignal): Promise<string> {
    this.xip ??= this.http
      .request<XmlElement>({
        path: `${this.base}/versiondetails/version`,
        accept: "application/xml",
        operation: "entity.version",
        signal,
      })
      .then((res) => {
        const v: ServiceVersion = readVersion(res.data);
        return xipNamespace(v.major ? v : { major: 7, minor: 7 });
      });
    const p = this.xip;
    p.catch(() => {
      if (this.xip === p) this.xip = undefined;
    });
    return p;
  }

  private async send(
    operation: string,
    method: "POST" | "PUT" | "DELETE",
    path: string,
    body: ((xip: string) => string) | undefined,
    signal?: AbortSignal,
  ) {
    const xml = body ? body(await this.namespace(signal)) : undefined;
    return this.http.request<unknown>({
      method,
      path,
      ...(xml !== undefined ? { body: xml, headers: { "content-type": XML } } : {}),
      accept: "application/xml",
      operation,
      idempotent: method !== "POST",
      signal,
    });
  }

  /**
   * Saves title, description and custom type (`PUT /api/entity/{path}/{ref}`); the security tag and parent
   * are sent as they are and not changed this way. Returns the entity as the service now holds it.
   */
  async save(entity: Entity, signal?: AbortSignal): Promise<Entity> {
    const path = this.entityPath(entity.type, entity.ref);
    const res = await this.send(
      "entity.save",
      "PUT",
      path,
      (xip) =>
        entityXml(xip, {
          ref: entity.ref,
          type: entity.type,
          title: entity.title,
          ...(entity.description ? { description: entity.description } : {}),
          securityTag: entity.securityTag,
          ...(entity.customType ? { customType: entity.customType } : {}),
          ...(entity.parentRef ? { parentRef: entity.parentRef } : {}),
        }),
      signal,
    );
    const reply = replyXml(res);
    if (reply) {
      try {
        return readEntity(reply);
      } catch {
        // fall through: some services answer without the entity; it is read back below
      }
    }
    const again = await this.http.request<XmlElement>({
      path,
      accept: "application/xml",
      operation: "entity.get",
      signal,
    });
    return readReply({ status: again.status, operation: "entity.get", method: "GET", path }, () =>
      readEntity(again.data),
    );
  }

  /** Adds a descriptive metadata document; returns the new fragment's mref when the reply names it. */
  async addMetadata(
    ref: string,
    type: EntityType,
    schema: string,
    document: string,
    signal?: AbortSignal,
  ): Promise<{ mref?: string }> {
    const res = await this.send(
      "entity.metadata.add",
      "POST",
      `${this.entityPath(type, ref)}/metadata`,
      (xip) => metadataContainerXml(xip, { schema, entityRef: ref, document }),
      signal,
    );
    const mref = childText(find(replyXml(res), "MetadataContainer"), "Ref");
    return mref ? { mref } : {};
  }

  /** Replaces the document of fragment `mref` (and its schema). */
  async updateMetadata(
    ref: string,
    type: EntityType,
    mref: string,
    schema: string,
    document: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.send(
      "entity.metadata.update",
      "PUT",
      `${this.entityPath(type, ref)}/metadata/${checked(mref, "fragment reference", looksLikeRef)}`,
      (xip) => metadataContainerXml(xip, { schema, entityRef: ref, mref, document }),
      signal,
    );
  }

  async deleteMetadata(ref: string, type: EntityType, mref: string, signal?: AbortSignal): Promise<void> {
    await this.send(
      "entity.metadata.delete",
      "DELETE",
      `${this.entityPath(type, ref)}/metadata/${checked(mref, "fragment reference", looksLikeRef)}`,
      undefined,
      signal,
    );
  }

  /** Adds an identifier; returns its ApiId when the reply gives it. */
  async addIdentifier(
    ref: string,
    type: EntityType,
    idType: string,
    value: string,
    signal?: AbortSignal,
  ): Promise<{ apiId?: string }> {
    const res = await this.send(
      "entity.identifier.add",
      "POST",
      `${this.entityPath(type, ref)}/identifiers`,
      (xip) => identifierXml(xip, { type: idType, value, entityRef: ref }),
      signal,
    );
    const apiId = childText(find(replyXml(res), "Identifier"), "ApiId");
    return apiId ? { apiId } : {};
  }

  async updateIdentifier(
    ref: string,
    type: EntityType,
    apiId: string,
    idType: string,
    value: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.send(
      "entity.identifier.update",
      "PUT",
      `${this.entityPath(type, ref)}/identifiers/${checked(apiId, "identifier id", API_ID)}`,
      (xip) => identifierXml(xip, { type: idType, value, entityRef: ref }),
      signal,
    );
  }

  async deleteIdentifier(ref: string, type: EntityType, apiId: string, signal?: AbortSignal): Promise<void> {
    await this.send(
      "entity.identifier.delete",
      "DELETE",
      `${this.entityPath(type, ref)}/identifiers/${checked(apiId, "identifier id", API_ID)}`,
      undefined,
      signal,
    );
  }

  /** Links `from` to `to` with a relation (a URI such as http://purl.org/dc/terms/references). */
  async addLink(
    from: { ref: string; type: EntityType },
    linkType: string,
    toRef: string,
    signal?: AbortSignal,
  ): Promise<{ apiId?: string }> {
    checked(toRef, "reference", looksLikeRef);
    const res = await this.send(
      "entity.link.add",
      "POST",
      `${this.entityPath(from.type, from.ref)}/links`,
      (xip) => linkXml(xip, { linkType, from: from.ref, to: toRef }),
      signal,
    );
    const reply = replyXml(res);
    const apiId = reply ? linkApiId(reply) : undefined;
    return apiId ? { apiId } : {};
  }

  /** Removes a link this entity takes part in (from either end). */
  async deleteLink(ref: string, type: EntityType, apiId: string, signal?: AbortSignal): Promise<void> {
    await this.send(
      "entity.link.delete",
      "DELETE",
      `${this.entityPath(type, ref)}/links/${checked(apiId, "link id", API_ID)}`,
      undefined,
      signal,
    );
  }

  /** The metadata groups the service defines (`GET /api/metadata/groups`): their schemas take field maps. */
  async metadataGroups(signal?: AbortSignal): Promise<MetadataGroupSummary[]> {
    const res = await this.http.request<{ groups?: MetadataGroupSummary[] }>({
      path: "/api/metadata/groups",
      accept: "application/json",
      operation: "metadata.groups",
      signal,
    });
    const groups = res.data && typeof res.data === "object" ? res.data.groups : undefined;
    return (Array.isArray(groups) ? groups : [])
      .filter((g) => g && typeof g.id === "string" && typeof g.schemaUri === "string")
      .map((g) => ({ id: g.id, name: String(g.name ?? ""), schemaUri: g.schemaUri }));
  }

  /** One group with its fields (numbers may arrive as strings, as pyPreservica sends them). */
  async metadataGroup(id: string, signal?: AbortSignal): Promise<MetadataGroup> {
    const path = `/api/metadata/groups/${checked(id, "group id", API_ID)}`;
    const res = await this.http.request<Record<string, unknown>>({
      path,
      accept: "application/json",
      operation: "metadata.group",
      signal,
    });
    const g = res.data;
    if (!g || typeof g !== "object" || typeof g.schemaUri !== "string" || !Array.isArray(g.fields))
      throw new UnexpectedResponseError({
        status: res.status,
        operation: "metadata.group",
        method: "GET",
        path,
        detail: "the reply is not a metadata group",
      });
    const num = (v: unknown) => (v === undefined || v === null || v === "" ? undefined : Number(v));
    return {
      id: String(g.id ?? id),
      name: String(g.name ?? ""),
      schemaUri: g.schemaUri,
      fields: (g.fields as Record<string, unknown>[])
        .filter((f) => f && typeof f.id === "string")
        .map((f) => {
          const max = num(f.maxOccurs);
          return {
            id: f.id as string,
            ...(typeof f.name === "string" ? { name: f.name } : {}),
            ...(max !== undefined && Number.isFinite(max) ? { maxOccurs: max } : {}),
            ...(Array.isArray(f.values) ? { values: f.values.map(String) } : {}),
          };
        }),
    };
  }
}

/**
 * A new link's ApiId: the real service's xip:Link has none (no XIP version defines one), so it is the last
 * segment of the reply's Self (`…/links/{apiId}`); an xip:Link/ApiId, as older replies of ours sent, is
 * read too.
 */
/** A write's reply as XML, when the service sent a document (some answer with an empty body). */
function replyXml(res: { data: unknown }): XmlElement | undefined {
  return res.data && typeof res.data === "object" ? (res.data as XmlElement) : undefined;
}

function linkApiId(reply: XmlElement): string | undefined {
  const inLink = childText(find(reply, "Link"), "ApiId");
  if (inLink) return inLink;
  const self = childText(find(reply, "AdditionalInformation"), "Self");
  return self ? /\/links\/([^/?#]+)$/.exec(self)?.[1] : undefined;
}
