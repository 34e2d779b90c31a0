import type { Readable } from "node:stream";
import { ENTITY_PATHS, type EntityType, type Page, type PageRequest, pageTarget } from "./entity.js";
import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient, HttpResponse } from "./http.js";
import { checkRef, looksLikeRef } from "./refs.js";
import { readReply } from "./reply.js";
import { all, attr, childText, escapeXml, find, intText, one, rootOf, text, type XmlElement } from "./xml.js";

/**
 * Entity API lifecycle: deletion (submitted, then approved or rejected by a manager), the recycle bin,
 * recovery, final deletion, content replacement and access representations. Thin typed methods; nothing
 * MCP-specific. Every write that the service runs as an action answers its progress token (the whole
 * text/plain body): for a deletion that token is also the deletion's id, which approval, rejection and
 * the recycle bin use.
 */

/** An entity at the top of a deletion in the recycle bin (what `GET /recycle-bin` lists). */
export interface DeletedEntity {
  ref: string;
  type: EntityType;
  title: string;
  securityTag?: string;
  parentRef?: string;
  /** The deletion action (its progress token) that put it there. */
  deletion: string;
  deletedAt?: string;
  deletedBy?: string;
  /** How many entities that deletion holds (this one and everything below it). */
  entities?: number;
}

/** A deletion action as `/api/entity/actions/deletions[/{id}]` describes it. */
export interface DeletionAction {
  id: string;
  /** PENDING (awaiting approval), ACTIVE, COMPLETED, CANCELLED (rejected), FAILED, … */
  status: string;
  user?: string;
  entityRef?: string;
  entityType?: EntityType;
  /** Entities the deletion covers. */
  total?: number;
  done?: number;
  failed?: number;
  message?: string;
  /** The submitter's comment, when the service shows the action's parameters. */
  comment?: string;
  created?: string;
  updated?: string;
  completed?: string;
}

export interface RetentionAssignment {
  entityRef?: string;
  policy: string;
  startDate?: string;
  expired: boolean;
  apiId?: string;
}

/** The deletions a recovery or final deletion names: by deletion id and/or by a deleted entity's ref. */
export interface DeletionSelection {
  deletions?: readonly string[];
  entities?: readonly string[];
}

export type FixityAlgorithm = "MD5" | "SHA-1" | "SHA-256" | "SHA-512";

export interface Upload {
  /** The file's bytes, streamed (never read whole into memory); a stream cannot be resent, so no retries. */
  body: Readable;
  /** Exact size in bytes (sent as Content-Length). */
  size: number;
  /** A bare file name (no folders). */
  filename: string;
  /** A checksum of the bytes; the service refuses the upload, storing nothing, when they disagree. */
  fixity?: { algorithm: FixityAlgorithm; value: string };
  signal?: AbortSignal;
}

const TYPES: Record<string, EntityType> = { SO: "SO", IO: "IO", CO: "CO" };

/** A header value that may hold any Unicode: its UTF-8 bytes, sent as they are (the service reads them as UTF-8). */
function headerText(s: string): string {
  return Buffer.from(s, "utf8").toString("latin1");
}

function pageOf<T>(root: XmlElement, items: T[]): Page<T> {
  const paging = find(root, "Paging");
  const next = text(one(paging, "Next"));
  const total = intText(one(paging, "TotalResults")) ?? items.length;
  const start = next ? Number(new URL(next, "http://x").searchParams.get("start")) : Number.NaN;
  return {
    items,
    total,
    ...(next ? { next } : {}),
    ...(Number.isFinite(start) && next ? { nextStart: start } : {}),
  };
}

export function readDeletedEntities(doc: XmlElement): Page<DeletedEntity> {
  const { el: root } = rootOf(doc);
  const items = all(find(root, "DeletedEntities"), "DeletedEntity").map((e): DeletedEntity => {
    const ref = childText(e, "Ref") ?? attr(e, "ref") ?? "";
    const deletion = childText(e, "DeletionAction") ?? "";
    if (!ref || !deletion) throw new Error("a DeletedEntity without Ref or DeletionAction");
    const entities = intText(one(e, "Entities"));
    return {
      ref,
      type: TYPES[childText(e, "Type") ?? attr(e, "type") ?? ""] ?? "IO",
      title: childText(e, "Title") ?? attr(e, "title") ?? "",
      ...opt("securityTag", childText(e, "SecurityTag")),
      ...opt("parentRef", childText(e, "Parent")),
      deletion,
      ...opt("deletedAt", childText(e, "DeletedAt")),
      ...opt("deletedBy", childText(e, "DeletedBy")),
      ...(entities !== undefined ? { entities } : {}),
    };
  });
  return pageOf(root, items);
}

function readAction(a: XmlElement): DeletionAction {
  const id = childText(a, "Id") ?? attr(a, "id");
  const status = childText(a, "Status") ?? attr(a, "status");
  if (!id || !status) throw new Error("an Action without Id or Status");
  const entity = one(a, "Entity");
  const entityRef = attr(entity, "ref") ?? (looksLikeRef(text(entity) ?? "") ? text(entity) : undefined);
  const entityType = TYPES[attr(entity, "type") ?? ""];
  let comment: string | undefined;
  const params = childText(a, "Parameters");
  if (params) {
    try {
      const p = JSON.parse(params) as { comment?: unknown };
      if (typeof p.comment === "string" && p.comment) comment = p.comment;
    } catch {
      // shortened or not JSON: no comment to show
    }
  }
  const num = (name: string) => intText(one(a, name));
  const total = num("Total");
  const done = num("Done");
  const failed = num("Failed");
  return {
    id,
    status: status.toUpperCase(),
    ...opt("user", childText(a, "User")),
    ...opt("entityRef", entityRef),
    ...opt("entityType", entityType),
    ...(total !== undefined ? { total } : {}),
    ...(done !== undefined ? { done } : {}),
    ...(failed !== undefined ? { failed } : {}),
    ...opt("message", childText(a, "Message")),
    ...opt("comment", comment),
    ...opt("created", childText(a, "Created")),
    ...opt("updated", childText(a, "Updated")),
    ...opt("completed", childText(a, "Completed")),
  };
}

export function readDeletionActions(doc: XmlElement): Page<DeletionAction> {
  const { el: root } = rootOf(doc);
  return pageOf(root, all(find(root, "Actions"), "Action").map(readAction));
}

export function readDeletionAction(doc: XmlElement): DeletionAction {
  const { el: root } = rootOf(doc);
  const a = one(root, "Action") ?? find(root, "Action");
  if (!a) throw new Error("no Action element");
  return readAction(a);
}

export function readRetentionAssignments(doc: XmlElement): Page<RetentionAssignment> {
  const { el: root } = rootOf(doc);
  const items = all(find(root, "RetentionAssignments") ?? root, "RetentionAssignment").map((r) => {
    const policy = childText(r, "RetentionPolicy");
    if (!policy) throw new Error("a RetentionAssignment without RetentionPolicy");
    return {
      policy,
      expired: (childText(r, "Expired") ?? "").toLowerCase() === "true",
      ...opt("entityRef", childText(r, "Entity")),
      ...opt("startDate", childText(r, "StartDate")),
      ...opt("apiId", childText(r, "ApiId")),
    };
  });
  return pageOf(root, items);
}

function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined || value === "" ? {} : { [key]: value }) as { [P in K]?: V };
}

export class LifecycleApi {
  private namespaces: Promise<{ entity: string; xip: string }> | undefined;

  constructor(
    private readonly http: HttpClient,
    private readonly base = "/api/entity",
  ) {}

  /**
   * The EntityAPI and XIP namespaces of the service's version, for request bodies (pyPreservica sends
   * its service's version too). Asked once; v7.7 when the service does not say.
   */
  private ns(signal?: AbortSignal): Promise<{ entity: string; xip: string }> {
    this.namespaces ??= this.http
      .request<XmlElement>({
        path: `${this.base}/versiondetails/version`,
        accept: "application/xml",
        operation: "lifecycle.version",
        signal,
      })
      .then((res) => {
        const v = text(find(res.data, "CurrentVersion"))?.trim() ?? "";
        const m = /^(\d+)\.(\d+)/.exec(v);
        const version = m ? `v${m[1]}.${m[2]}` : "v7.7";
        return {
          entity: `http://preservica.com/EntityAPI/${version}`,
          xip: `http://preservica.com/XIP/${version}`,
        };
      })
      .catch((err: unknown) => {
        this.namespaces = undefined;
        throw err;
      });
    return this.namespaces;
  }

  /** The progress token a 2xx action reply carries as its whole body. */
  private token(operation: string, method: string, p: string, res: HttpResponse<unknown>): string {
    const body = (typeof res.data === "string" ? res.data : (res.text ?? "")).trim();
    if (!looksLikeRef(body)) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation,
        method,
        path: p,
        detail: "the reply is not a progress token",
      });
    }
    return body;
  }

  private async getXml<T>(
    operation: string,
    p: string,
    query: Record<string, string | number | undefined> | undefined,
    signal: AbortSignal | undefined,
    reader: (doc: XmlElement) => T,
  ): Promise<T> {
    const res = await this.http.request<XmlElement>({
      path: p,
      query,
      accept: "application/xml",
      operation,
      signal,
    });
    return readReply({ status: res.status, operation, method: "GET", path: p }, () => {
      if (!res.data || typeof res.data !== "object") throw new Error("the reply is not XML");
      return reader(res.data);
    });
  }

  private async postAction(
    operation: string,
    p: string,
    method: "POST" | "PUT" | "DELETE",
    xml: string,
    signal?: AbortSignal,
    idempotent = false,
  ): Promise<string> {
    const res = await this.http.request({
      method,
      path: p,
      body: xml,
      headers: { "content-type": "application/xml;charset=UTF-8" },
      accept: "text/plain, application/xml;q=0.9, */*;q=0.5",
      responseType: "text",
      operation,
      idempotent,
      signal,
    });
    return this.token(operation, method, p, res);
  }

  /**
   * Submits the deletion of a folder (with everything below it) or an asset to the recycle bin. Answers
   * the progress token, which is also the deletion's id; the service may hold it PENDING until a manager
   * approves it (this service always does).
   */
  async deleteEntity(ref: string, type: "SO" | "IO", comment: string, signal?: AbortSignal): Promise<string> {
    const ns = await this.ns(signal);
    const p = `${this.base}/${ENTITY_PATHS[type]}/${encodeURIComponent(checkRef(ref))}`;
    const xml = `<DeletionAction xmlns="${ns.entity}" xmlns:xip="${ns.xip}"><Submission><Comment>${escapeXml(comment)}</Comment></Submission></DeletionAction>`;
    // Not idempotent: a repeated DELETE after a lost reply would find the deletion pending and fail.
    return this.postAction("lifecycle.delete", p, "DELETE", xml, signal, false);
  }

  /** Approves (true) or rejects (false) a pending deletion; needs a manager. Answers the same token. */
  async decideDeletion(
    id: string,
    approved: boolean,
    comment: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const ns = await this.ns(signal);
    const p = `${this.base}/actions/deletions/${encodeURIComponent(checkRef(id, "deletion id"))}`;
    const xml = `<DeletionAction xmlns="${ns.entity}" xmlns:xip="${ns.xip}"><Approval><Approved>${approved}</Approved><Comment>${escapeXml(comment)}</Comment></Approval></DeletionAction>`;
    return this.postAction(
      approved ? "lifecycle.approveDeletion" : "lifecycle.rejectDeletion",
      p,
      "PUT",
      xml,
      signal,
      false,
    );
  }

  /** One deletion action: its state, who submitted it, what it covers. */
  deletion(id: string, signal?: AbortSignal): Promise<DeletionAction> {
    const p = `${this.base}/actions/deletions/${encodeURIComponent(checkRef(id, "deletion id"))}`;
    return this.getXml("lifecycle.deletion", p, { start: 0, max: 1 }, signal, readDeletionAction);
  }

  /** Deletion actions, newest first, optionally of one status (PENDING: awaiting approval). */
  deletions(opts: PageRequest & { status?: string } = {}): Promise<Page<DeletionAction>> {
    const { path: p, query } = pageTarget(opts, `${this.base}/actions/deletions`, { status: opts.status });
    return this.getXml("lifecycle.deletions", p, query, opts.signal, readDeletionActions);
  }

  /** The recycle bin: the top entity of each deletion the caller may read, newest first. */
  recycleBin(page: PageRequest = {}): Promise<Page<DeletedEntity>> {
    const { path: p, query } = pageTarget(page, `${this.base}/recycle-bin`);
    return this.getXml("lifecycle.recycleBin", p, query, page.signal, readDeletedEntities);
  }

  private selection(root: string, ns: string, sel: DeletionSelection): string {
    const deletions = (sel.deletions ?? []).map(
      (d) => `<Deletion>${escapeXml(checkRef(d, "deletion id"))}</Deletion>`,
    );
    const entities = (sel.entities ?? []).map((e) => `<Entity>${escapeXml(checkRef(e))}</Entity>`);
    if (deletions.length + entities.length === 0) throw new TypeError("Name at least one deletion or entity");
    return `<${root} xmlns="${ns}">${deletions.join("")}${entities.join("")}</${root}>`;
  }

  /** Takes whole deletions back out of the recycle bin. */
  async recover(sel: DeletionSelection, signal?: AbortSignal): Promise<string> {
    const ns = await this.ns(signal);
    const xml = this.selection("RecoveryAction", ns.entity, sel);
    return this.postAction("lifecycle.recover", `${this.base}/actions/recoveries`, "POST", xml, signal);
  }

  /** Deletes whole deletions from the recycle bin for good (managers). */
  async finalDelete(sel: DeletionSelection, signal?: AbortSignal): Promise<string> {
    const ns = await this.ns(signal);
    const xml = this.selection("FinalDeletionAction", ns.entity, sel);
    return this.postAction(
      "lifecycle.finalDelete",
      `${this.base}/actions/final-deletions`,
      "POST",
      xml,
      signal,
    );
  }

  /** Retention assignments on an asset (an unexpired one keeps it from being deleted). */
  retentionAssignments(assetRef: string, page: PageRequest = {}): Promise<Page<RetentionAssignment>> {
    const { path: p, query } = pageTarget(
      page,
      `${this.base}/${ENTITY_PATHS.IO}/${encodeURIComponent(checkRef(assetRef))}/retention-assignments`,
    );
    return this.getXml("lifecycle.retentionAssignments", p, query, page.signal, readRetentionAssignments);
  }

  /** A retention policy's name (undefined when the service gives none). */
  retentionPolicyName(ref: string, signal?: AbortSignal): Promise<string | undefined> {
    const p = `${this.base}/retention-policies/${encodeURIComponent(checkRef(ref, "policy reference"))}`;
    return this.getXml("lifecycle.retentionPolicy", p, undefined, signal, (doc) =>
      childText(find(doc, "RetentionPolicy"), "Name"),
    );
  }

  /**
   * Replaces a content object's file: a new generation becomes active, the old one is kept. The body is
   * streamed; `fixity` is required here (the service checks it against the bytes it received).
   */
  async replaceContent(contentObjectRef: string, upload: Upload): Promise<string> {
    if (!upload.fixity) throw new TypeError("Replacing content needs a fixity of the new file");
    const p = `${this.base}/${ENTITY_PATHS.CO}/${encodeURIComponent(checkRef(contentObjectRef))}/generations`;
    const res = await this.http.request({
      method: "POST",
      path: p,
      query: { replaceType: "previous" },
      body: upload.body,
      headers: {
        "content-type": "application/octet-stream",
        "content-length": String(upload.size),
        filename: headerText(upload.filename),
        [`fixity-${upload.fixity.algorithm.toLowerCase()}`]: upload.fixity.value,
      },
      accept: "text/plain, */*;q=0.5",
      responseType: "text",
      operation: "lifecycle.replaceContent",
      idempotent: false,
      signal: upload.signal,
    });
    return this.token("lifecycle.replaceContent", "POST", p, res);
  }

  /** Adds an access representation to an asset from one file (a new content object holding it). */
  async addAccessRepresentation(assetRef: string, upload: Upload & { name?: string }): Promise<string> {
    const p = `${this.base}/${ENTITY_PATHS.IO}/${encodeURIComponent(checkRef(assetRef))}/representations`;
    const res = await this.http.request({
      method: "POST",
      path: p,
      query: { type: "Access", name: upload.name, filename: upload.filename },
      body: upload.body,
      headers: {
        "content-type": "application/octet-stream",
        "content-length": String(upload.size),
        ...(upload.fixity
          ? { [`fixity-${upload.fixity.algorithm.toLowerCase()}`]: upload.fixity.value }
          : {}),
      },
      accept: "text/plain, */*;q=0.5",
      responseType: "text",
      operation: "lifecycle.addAccessRepresentation",
      idempotent: false,
      signal: upload.signal,
    });
    return this.token("lifecycle.addAccessRepresentation", "POST", p, res);
  }
}
