import { UnexpectedResponseError } from "./errors.js";
import type { HttpClient } from "./http.js";
import { opt, readReply } from "./reply.js";
import {
  attr,
  childText,
  descendants,
  find,
  intText,
  one,
  parseXml,
  path,
  rootOf,
  text,
  type XmlElement,
} from "./xml.js";

/**
 * Progress of long-running actions (/api/entity/progress) and action listings. Thin typed methods; nothing
 * MCP-specific. A progress token is the whole text/plain body of the 202 that started an action (ingest,
 * export, move, security tag, deletion, CSV edit, ...); it is the job handle the tools hand out.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `token` has the shape of a progress token (a UUID). */
export function looksLikeToken(token: string): boolean {
  return UUID.test(token);
}

/** States after which an action does nothing more (PENDING waits for a person, so it is not final). */
export const FINAL_STATES: ReadonlySet<string> = new Set([
  "COMPLETED",
  "FAILED",
  "FINISHED_MIXED_OUTCOME",
  "CANCELLED",
  "ABORTED",
]);

export interface ActionError {
  message: string;
  entityRef?: string;
  item?: number;
}

export interface Progress {
  token: string;
  /** ACTIVE, PENDING, COMPLETED, FAILED, FINISHED_MIXED_OUTCOME, CANCELLED, ... (upper case). */
  status: string;
  /** The action's kind when the service says (ingest, export, move, security-tag, deletion, ...). */
  kind?: string;
  percentage?: number;
  total?: number;
  done?: number;
  failed?: number;
  message?: string;
  created?: string;
  updated?: string;
  completed?: string;
  errors: ActionError[];
}

export interface ActionSummary {
  id: string;
  kind: string;
  status: string;
  user?: string;
  entity?: { ref: string; type?: string };
  total?: number;
  done?: number;
  failed?: number;
  message?: string;
  created?: string;
  completed?: string;
}

export interface ActionItem {
  seq: number;
  outcome: string;
  entityRef?: string;
  message?: string;
}

export interface ActionDetail {
  action: ActionSummary;
  items: ActionItem[];
  totalItems: number;
}

/** The listing path of each kind the service names (`/api/entity/actions/{path}`). */
const KIND_PATHS: Record<string, string> = {
  ingest: "ingests",
  export: "exports",
  move: "moves",
  "security-tag": "security-tags",
  deletion: "deletions",
  recovery: "recoveries",
  "final-deletion": "final-deletions",
  "replace-content": "content-replacements",
  "add-representation": "representations",
  "metadata-csv-edit": "metadata-csv-edits",
  report: "reports",
  "integrity-check": "integrity-checks",
};

export function kindPath(kind: string): string {
  return KIND_PATHS[kind] ?? `${kind}s`;
}

function num(el: XmlElement | undefined, name: string): number | undefined {
  return intText(one(el, name));
}

/** Reads a ProgressResponse (namespace-agnostic; Status is looked for as a descendant). */
export function readProgress(doc: XmlElement, token: string): Progress {
  const root = rootOf(doc).el;
  const status = text(find(root, "Status"))?.trim().toUpperCase();
  if (!status) throw new Error("no Status in the progress reply");
  const errors = descendants(root, "Error").map((e) => {
    const item = attr(e, "item");
    return {
      message: text(e) ?? "failed",
      ...opt("entityRef", attr(e, "entityRef") || undefined),
      ...opt("item", item && /^\d+$/.test(item) ? Number(item) : undefined),
    };
  });
  return {
    token: childText(root, "Id") ?? token,
    status,
    ...opt("kind", childText(root, "Kind")),
    ...opt("percentage", num(root, "Percentage")),
    ...opt("total", num(root, "Total")),
    ...opt("done", num(root, "Done")),
    ...opt("failed", num(root, "Failed")),
    ...opt("message", childText(root, "Message")),
    ...opt("created", childText(root, "Created")),
    ...opt("updated", childText(root, "Updated")),
    ...opt("completed", childText(root, "Completed")),
    errors,
  };
}

function readAction(a: XmlElement): ActionSummary {
  const entity = one(a, "Entity");
  const ref = attr(entity, "ref");
  return {
    id: childText(a, "Id") ?? attr(a, "id") ?? "",
    kind: childText(a, "Kind") ?? attr(a, "kind") ?? "",
    status: (childText(a, "Status") ?? attr(a, "status") ?? "").toUpperCase(),
    ...opt("user", childText(a, "User")),
    ...(ref ? { entity: { ref, ...opt("type", attr(entity, "type")) } } : {}),
    ...opt("total", num(a, "Total")),
    ...opt("done", num(a, "Done")),
    ...opt("failed", num(a, "Failed")),
    ...opt("message", childText(a, "Message")),
    ...opt("created", childText(a, "Created")),
    ...opt("completed", childText(a, "Completed")),
  };
}

function rootElement(doc: XmlElement): XmlElement {
  return rootOf(doc).el;
}

export class ActionsApi {
  private readonly base = "/api/entity";

  constructor(private readonly http: HttpClient) {}

  private async xml(
    operation: string,
    p: string,
    query?: Record<string, string | number | undefined>,
    signal?: AbortSignal,
  ) {
    // The real service may label the progress document text/plain: read text, parse it here.
    const res = await this.http.request<string>({
      path: p,
      query,
      accept: "application/xml",
      operation,
      responseType: "text",
      signal,
    });
    const body = res.data ?? "";
    try {
      return parseXml(body);
    } catch (err) {
      throw new UnexpectedResponseError({
        status: res.status,
        operation,
        method: "GET",
        path: p,
        detail: `the reply is not readable XML (${(err as Error).message})`,
        cause: err,
      });
    }
  }

  private read<T>(operation: string, p: string, fn: () => T): T {
    return readReply({ status: 200, operation, method: "GET", path: p }, fn);
  }

  /** The state of any action by its progress token. */
  async progress(token: string, signal?: AbortSignal): Promise<Progress> {
    if (!looksLikeToken(token))
      throw new TypeError(`Not a valid progress token: "${token}" (expected a UUID)`);
    const p = `${this.base}/progress/${encodeURIComponent(token)}`;
    const doc = await this.xml("actions.progress", p, undefined, signal);
    return this.read("actions.progress", p, () => readProgress(doc, token));
  }

  /** Actions, newest first: a user's own, or everyone's for managers (`kind` = ingest, export, move, ...). */
  async list(
    filter: {
      kind?: string;
      status?: string;
      username?: string;
      start?: number;
      max?: number;
      signal?: AbortSignal;
    } = {},
  ): Promise<{ items: ActionSummary[]; total: number }> {
    const p = filter.kind
      ? `${this.base}/actions/${encodeURIComponent(kindPath(filter.kind))}`
      : `${this.base}/actions`;
    const doc = await this.xml(
      "actions.list",
      p,
      { status: filter.status, username: filter.username, start: filter.start ?? 0, max: filter.max ?? 50 },
      filter.signal,
    );
    return this.read("actions.list", p, () => {
      const root = rootElement(doc);
      const items = descendants(one(root, "Actions"), "Action").map(readAction);
      return { items, total: intText(path(root, "Paging", "TotalResults")) ?? items.length };
    });
  }

  /** One action with what it did item by item (owner, managers and administrators only). */
  async detail(
    kind: string,
    token: string,
    page: { start?: number; max?: number; signal?: AbortSignal } = {},
  ): Promise<ActionDetail> {
    if (!looksLikeToken(token))
      throw new TypeError(`Not a valid progress token: "${token}" (expected a UUID)`);
    const p = `${this.base}/actions/${encodeURIComponent(kindPath(kind))}/${encodeURIComponent(token)}`;
    const doc = await this.xml(
      "actions.detail",
      p,
      { start: page.start ?? 0, max: page.max ?? 100 },
      page.signal,
    );
    return this.read("actions.detail", p, () => {
      const root = rootElement(doc);
      const a = one(root, "Action");
      if (!a) throw new Error("no Action element");
      const items = descendants(one(root, "Items"), "Item").map((it) => {
        const seq = attr(it, "seq");
        return {
          seq: seq && /^\d+$/.test(seq) ? Number(seq) : 0,
          outcome: attr(it, "outcome") ?? "",
          ...opt("entityRef", attr(it, "entityRef") || undefined),
          ...opt("message", text(it)),
        };
      });
      return {
        action: readAction(a),
        items,
        totalItems: intText(path(root, "Paging", "TotalResults")) ?? items.length,
      };
    });
  }
}
