import type { ActionItemRow, ActionRow } from "../store/actions/read.js";
import {
  ENTITY_PATH,
  entityUrl,
  type ListMeta,
  openDocument,
  type RenderContext,
  writeListTail,
} from "./common.js";
import { XmlWriter } from "./writer.js";

/** Documents about long-running actions: the progress status, and the action listings with detail. */

export const STATUS_NS = "http://status.preservica.com";

/**
 * The progress document. Clients look for a *descendant* `{http://status.preservica.com}Status`, so
 * Status is a child of the root, never the root itself.
 */
export function progressDocument(a: ActionRow, errors: ActionItemRow[]): string {
  const w = new XmlWriter().open("ProgressResponse", { xmlns: STATUS_NS });
  w.leaf("Id", a.id).leaf("Status", a.status).leaf("Kind", a.kind).leaf("Percentage", percentage(a));
  counts(w, a);
  if (errors.length > 0) {
    w.open("Errors");
    for (const e of errors) w.leaf("Error", e.message ?? "failed", { entityRef: e.entity_ref, item: e.seq });
    w.close("Errors");
  }
  return w.close("ProgressResponse").toString();
}

function percentage(a: ActionRow): number {
  if (a.completed) return 100;
  if (a.total <= 0) return 0;
  return Math.min(99, Math.floor(((a.done + a.failed) * 100) / a.total));
}

/** Longest parameter text a listing shows; CSV edits keep their whole file in the parameters. */
const MAX_PARAMS_CHARS = 1000;

/**
 * The parameters as a listing shows them: long strings and arrays are shortened (saying how much was
 * left out), so a listing of many actions stays small whatever each was asked to do.
 */
export function summariseParams(json: string): string {
  if (json.length <= MAX_PARAMS_CHARS) return json;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return `${json.slice(0, MAX_PARAMS_CHARS)}… (${json.length} characters in all)`;
  }
  const shorten = (v: unknown): unknown => {
    if (typeof v === "string" && v.length > 200) return `${v.slice(0, 200)}… (${v.length} characters)`;
    if (Array.isArray(v)) {
      const kept = v.slice(0, 5).map(shorten);
      return v.length > 5 ? [...kept, `… and ${v.length - 5} more`] : kept;
    }
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shorten(x)]));
    }
    return v;
  };
  const short = JSON.stringify(shorten(value));
  return short.length <= MAX_PARAMS_CHARS
    ? short
    : `${short.slice(0, MAX_PARAMS_CHARS)}… (${json.length} characters in all)`;
}

function actionUrl(ctx: RenderContext, path: string, id: string): string {
  return `${ctx.base}/actions/${path}/${id}`;
}

function writeAction(w: XmlWriter, ctx: RenderContext, a: ActionRow, path: string): void {
  w.open("Action", { id: a.id, kind: a.kind, status: a.status })
    .leaf("Id", a.id)
    .leaf("Kind", a.kind)
    .leaf("Status", a.status)
    .leaf("User", a.username);
  if (a.entity_ref && a.entity_type && a.entity_type in ENTITY_PATH) {
    w.leaf("Entity", entityUrl(ctx, a.entity_type as keyof typeof ENTITY_PATH, a.entity_ref), {
      ref: a.entity_ref,
      type: a.entity_type,
    });
  } else if (a.entity_ref) {
    w.leaf("Entity", a.entity_ref, { ref: a.entity_ref });
  }
  w.leaf("Parameters", summariseParams(a.params));
  counts(w, a)
    .leaf("Progress", `${ctx.base}/progress/${a.id}`)
    .leaf("Self", actionUrl(ctx, path, a.id))
    .close("Action");
}

/** ActionsResponse: Actions/Action (newest first) with Paging. `pathOf` maps a kind to its listing. */
export function actionsDocument(
  ctx: RenderContext,
  actions: ActionRow[],
  pathOf: (kind: string) => string,
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "ActionsResponse").open("Actions");
  for (const a of actions) writeAction(w, ctx, a, pathOf(a.kind));
  w.close("Actions");
  return writeListTail(w, meta).close("ActionsResponse").toString();
}

/** ActionResponse: one action, then Items/Item (what it did to each entity or row), paged. */
export function actionDocument(
  ctx: RenderContext,
  a: ActionRow,
  path: string,
  items: ActionItemRow[],
  meta: ListMeta,
): string {
  const w = openDocument(ctx, "ActionResponse");
  writeAction(w, ctx, a, path);
  w.open("Items");
  for (const it of items) {
    w.leaf("Item", it.message ?? "", { seq: it.seq, entityRef: it.entity_ref, outcome: it.outcome });
  }
  w.close("Items");
  return writeListTail(w, meta).close("ActionResponse").toString();
}

/** How far an action got and when: the same elements, in the same order, in its progress and its detail. */
function counts(w: XmlWriter, a: ActionRow): XmlWriter {
  return w
    .leaf("Total", a.total)
    .leaf("Done", a.done)
    .leaf("Failed", a.failed)
    .opt("Message", a.message)
    .leaf("Created", a.created)
    .leaf("Updated", a.updated)
    .opt("Completed", a.completed);
}
