import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { hasRole, MANAGERS } from "../http/roles.js";
import { ACTION_KINDS, actionKind } from "../jobs/kinds.js";
import { ACTION_STATUSES, actionItemsPage, actionsPage, getAction } from "../store/actions/read.js";
import { actionDocument, actionsDocument, progressDocument } from "../xml/action-docs.js";
import {
  type EntityContext,
  type EntityEnv,
  listMeta,
  pagedXml,
  paging,
  refInPath,
  xml,
} from "./entity-common.js";

/**
 * Progress of long-running actions, and the action listings with detail (what, who, when, counts,
 * and item by item what was done or refused). Anyone signed in may poll a progress token (tokens are
 * unguessable, and clients hand them between users: a manager approves a curator's deletion);
 * listings show a user their own actions, and managers and administrators everyone's.
 */
export function registerEntityActionRoutes(api: Hono<EntityEnv>): void {
  api.get("/progress/:id", (c) => {
    const a = knownAction(c, c.req.param("id"));
    const errors = actionItemsPage(c.get("svc").db, a.id, 0, 1000).items.filter(
      (i) => i.outcome === "failed",
    );
    return c.body(progressDocument(a, errors.slice(0, 100)), 200, {
      "Content-Type": "application/xml;charset=UTF-8",
    });
  });

  // Registered after every kind-specific route (deletions, exports, metadata-csv-edits ...), which win.
  api.get("/actions", (c) => listActions(c, null));
  api.get("/actions/:kind", (c) => listActions(c, kindFromPath(c.req.param("kind")).kind));
  api.get("/actions/:kind/:id", (c) => {
    const kind = kindFromPath(c.req.param("kind"));
    const a = knownAction(c, c.req.param("id"));
    if (a.kind !== kind.kind) {
      throw new HTTPException(404, {
        message: `Action ${a.id} is not among ${kind.path}; it is listed under /api/entity/actions/${actionKind(a.kind)?.path ?? a.kind}/${a.id}`,
      });
    }
    mayView(c, a.username);
    return pagedXml(
      c,
      (start, max) => actionItemsPage(c.get("svc").db, a.id, start, max),
      (items, meta) => actionDocument(c.get("render"), a, kind.path, items, meta),
    );
  });
}

function sees(c: EntityContext): "all" | string {
  return hasRole(c, MANAGERS) ? "all" : c.get("caller").user.username;
}

function mayView(c: EntityContext, owner: string): void {
  const who = sees(c);
  if (who !== "all" && who !== owner) {
    throw new HTTPException(403, {
      message: `This action belongs to ${owner}; only its owner, managers and administrators may see its detail (its progress token still answers at /api/entity/progress/{id})`,
    });
  }
}

function knownAction(c: EntityContext, raw: string | undefined) {
  const id = refInPath(raw, "Progress token");
  const a = getAction(c.get("svc").db, id);
  if (!a) {
    throw new HTTPException(404, {
      message: `No action with progress token ${id}; tokens are returned by the request that started the action`,
    });
  }
  return a;
}

function kindFromPath(path: string | undefined) {
  const kind = ACTION_KINDS.find((k) => k.path === path);
  if (!kind) {
    const known = ACTION_KINDS.map((k) => k.path)
      .sort()
      .join(", ");
    throw new HTTPException(404, {
      message: `No action listing "${path ?? ""}"; listings are /api/entity/actions and /api/entity/actions/{${known}}`,
    });
  }
  return kind;
}

function listActions(c: EntityContext, kind: string | null): Response {
  const status = c.req.query("status")?.trim().toUpperCase() || null;
  if (status && !(ACTION_STATUSES as readonly string[]).includes(status)) {
    throw new HTTPException(400, {
      message: `Parameter status must be one of ${ACTION_STATUSES.join(", ")}, got "${c.req.query("status")}"`,
    });
  }
  const who = sees(c);
  const asked = c.req.query("username")?.trim() || null;
  if (asked && who !== "all" && asked !== who) {
    throw new HTTPException(403, {
      message: "Only managers and administrators may list other users' actions",
    });
  }
  const username = who === "all" ? asked : who;
  const { start, max } = paging(c);
  const page = actionsPage(c.get("svc").db, { kind, status, username }, start, max);
  const pathOf = (k: string) => actionKind(k)?.path ?? k;
  return xml(c, actionsDocument(c.get("render"), page.items, pathOf, listMeta(c, start, max, page.total)));
}
