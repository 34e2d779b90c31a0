import { randomUUID } from "node:crypto";
import { ENTITY_PATHS, type Entity, type EntityType, readEntity } from "./entity.js";
import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";
import { checkRef } from "./refs.js";
import { readReply } from "./reply.js";
import { escapeXml, type XmlElement } from "./xml.js";

/**
 * Entity API structure: create folders, move entities (a folder with everything under it), change security
 * tags. Thin typed methods; nothing MCP-specific. Moves and tag changes run as actions in the service: the
 * methods return its progress token (the job handle), polled at `GET /api/entity/progress/{token}`.
 */

export interface NewFolder {
  title: string;
  description?: string;
  securityTag: string;
  /** The folder to create it in; absent = the top level. */
  parentRef?: string;
  /** The new folder's ref; a fresh UUID when absent (as pyPreservica does). */
  ref?: string;
}

/** `@root@`: the destination that means the top level (folders only). */
export const TOP_LEVEL = "@root@";

/** The XIP document that creates a folder (`POST /structural-objects`), in the service's XIP namespace. */
export function folderXml(folder: NewFolder & { ref: string }, xipNamespace: string): string {
  const el = (name: string, value: string) => `<${name}>${escapeXml(value)}</${name}>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<StructuralObject xmlns="${escapeXml(xipNamespace)}">`,
    el("Ref", folder.ref),
    el("Title", folder.title),
    el("Description", folder.description ?? ""),
    el("SecurityTag", folder.securityTag),
    folder.parentRef ? el("Parent", folder.parentRef) : "",
    "</StructuralObject>",
  ].join("");
}

const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

export class StructureApi {
  private readonly base = "/api/entity";
  private xipNamespace: Promise<string> | undefined;

  constructor(private readonly http: HttpClient) {}

  private entityPath(type: EntityType, ref: string): string {
    return `${this.base}/${ENTITY_PATHS[type]}/${encodeURIComponent(checkRef(ref, "reference"))}`;
  }

  /**
   * The XIP namespace of the service's version (`http://preservica.com/XIP/v7.7`), as real clients send:
   * asked once and kept; a failed look-up is asked again next time.
   */
  private namespace(signal?: AbortSignal): Promise<string> {
    if (!this.xipNamespace) {
      const path = `${this.base}/versiondetails/version`;
      this.xipNamespace = this.http
        .request<unknown>({ path, operation: "entity.version", responseType: "text", signal })
        .then((res) => {
          const m = /<CurrentVersion>\s*(\d+)\.(\d+)/.exec(String(res.data ?? ""));
          return `http://preservica.com/XIP/v${m ? `${m[1]}.${m[2]}` : "7.7"}`;
        });
      this.xipNamespace.catch(() => {
        this.xipNamespace = undefined;
      });
    }
    return this.xipNamespace;
  }

  /** Creates a folder under `parentRef` (or at the top level) and returns it as the service now has it. */
  async createFolder(folder: NewFolder, signal?: AbortSignal): Promise<Entity> {
    if (folder.parentRef) checkRef(folder.parentRef, "parent folder reference");
    const ref = folder.ref ? checkRef(folder.ref, "folder reference") : randomUUID();
    const body = folderXml({ ...folder, ref }, await this.namespace(signal));
    const path = `${this.base}/structural-objects`;
    const res = await this.http.request<XmlElement>({
      method: "POST",
      path,
      body,
      headers: { "content-type": "application/xml;charset=UTF-8" },
      accept: "application/xml",
      operation: "structure.createFolder",
      idempotent: false,
      signal,
    });
    return readReply(
      { status: res.status, operation: "structure.createFolder", method: "POST", path },
      () => {
        if (!res.data || typeof res.data !== "object") throw new TypeError("the reply is not XML");
        return readEntity(res.data);
      },
    );
  }

  /**
   * Moves an asset or a folder (with everything under it) into `destination`, a folder ref or TOP_LEVEL
   * (folders only). Returns the progress token of the move.
   */
  async move(ref: string, type: "SO" | "IO", destination: string, signal?: AbortSignal): Promise<string> {
    const target =
      destination === TOP_LEVEL ? TOP_LEVEL : checkRef(destination, "destination folder reference");
    return this.startAction("structure.move", `${this.entityPath(type, ref)}/parent-ref`, target, {}, signal);
  }

  /**
   * Sets the security tag of an entity (an asset's content objects follow it); with `includeDescendants`
   * also of everything under a folder. Returns the progress token of the change.
   */
  async setSecurityTag(
    ref: string,
    type: EntityType,
    tag: string,
    includeDescendants: boolean,
    signal?: AbortSignal,
  ): Promise<string> {
    return this.startAction(
      "structure.setSecurityTag",
      `${this.entityPath(type, ref)}/security-descriptor`,
      tag,
      { includeDescendants: includeDescendants ? "true" : "false" },
      signal,
    );
  }

  /** A PUT whose text/plain body starts an action; the reply's whole body is the progress token. */
  private async startAction(
    operation: string,
    path: string,
    body: string,
    query: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<string> {
    const res = await this.http.request<unknown>({
      method: "PUT",
      path,
      query,
      body,
      headers: { "content-type": "text/plain;charset=UTF-8" },
      accept: "text/plain, */*;q=0.5",
      responseType: "text",
      operation,
      signal,
    });
    const token = String(res.data ?? "").trim();
    if (!TOKEN.test(token)) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation,
        method: "PUT",
        path,
        detail: "the reply holds no progress token",
      });
    }
    return token;
  }
}
