import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { nowIso } from "../context.js";
import { isUuid } from "../http/params.js";
import { child, childrenNamed, childText, type XmlNode } from "../http/xml-body.js";
import {
  type DeletionParams,
  deletionAction,
  deletionScope,
  retentionRefusal,
  unpermittedTag,
} from "../jobs/deletion.js";
import { type FinalDeletionParams, finalDeletionAction } from "../jobs/final-deletion.js";
import { type RecoveryParams, recoveryAction, recoveryBlocker } from "../jobs/recovery.js";
import { startAction } from "../jobs/start.js";
import { type ActionRow, getAction } from "../store/actions/read.js";
import { Permission, Role } from "../store/auth.js";
import type { EntityType } from "../store/entities/types.js";
import {
  anyEntity,
  binPage,
  deletionRoots,
  deletionSize,
  deletionTags,
  finalDeletionTargets,
  openDeletionOf,
} from "../store/recycle-bin/read.js";
import { blockingRetention } from "../store/retention/read.js";
import { ENTITY_PATH } from "../xml/common.js";
import { recycleBinDocument } from "../xml/deletion-docs.js";
import { decideDeletion } from "./deletion-decision.js";
import {
  ENTITY_API_PATH,
  ENTITY_TYPE_PATHS,
  type EntityContext,
  type EntityEnv,
  pagedXml,
  progressReply,
  readableEntity,
  readableTags,
  refInPath,
  requirePermission,
  requireUuid,
  xmlRequest,
} from "./entity-common.js";

/**
 * Deletion and the recycle bin. A deletion is submitted (DELETE …/{path}/{ref}) and waits, PENDING,
 * for a manager's approval (PUT /actions/deletions/{id}); approved, it moves the entity and its
 * subtree to the recycle bin (jobs/deletion.ts). Recovery (POST /actions/recoveries) takes whole
 * deletions out again; final deletion (POST /actions/final-deletions) removes them for good. Every
 * refusal comes before any change.
 */
export function registerEntityDeletionRoutes(api: Hono<EntityEnv>): void {
  for (const [type, path] of ENTITY_TYPE_PATHS) {
    api.delete(`/${path}/:ref`, (c) => submitDeletion(c, type));
  }
  api.put("/actions/deletions/:id", approveDeletion);
  api.post("/actions/recoveries", recover);
  api.post("/actions/recoveries/", recover);
  api.post("/actions/final-deletions", finallyDelete);
  api.post("/actions/final-deletions/", finallyDelete);
  api.get("/recycle-bin", (c) => {
    return pagedXml(
      c,
      (start, max) => binPage(c.get("svc").db, readableTags(c), start, max),
      (items, meta) => recycleBinDocument(c.get("render"), items, meta),
    );
  });
}

function examples(c: EntityContext) {
  const { entityNs, xipNs } = c.get("render").version;
  return {
    submission: `<DeletionAction xmlns="${entityNs}" xmlns:xip="${xipNs}"><Submission><Comment>Why it goes</Comment></Submission></DeletionAction>`,
    approval: `<DeletionAction xmlns="${entityNs}" xmlns:xip="${xipNs}"><Approval><Approved>true</Approved><Comment>Checked</Comment></Approval></DeletionAction>`,
    recovery: `<RecoveryAction xmlns="${entityNs}"><Deletion>{deletion action id}</Deletion></RecoveryAction> or <RecoveryAction xmlns="${entityNs}"><Entity>{ref of a deleted entity}</Entity></RecoveryAction>`,
    finalDeletion: `<FinalDeletionAction xmlns="${entityNs}"><Deletion>{deletion action id}</Deletion></FinalDeletionAction> or <FinalDeletionAction xmlns="${entityNs}"><Entity>{ref of a deleted entity}</Entity></FinalDeletionAction>`,
  };
}

function badRequest(message: string): HTTPException {
  return new HTTPException(400, { message });
}

function conflict(message: string): HTTPException {
  return new HTTPException(409, { message });
}

/** The request's XML with the expected root element (by local name: clients pick prefixes freely). */
async function actionBody(c: EntityContext, root: string, example: string): Promise<XmlNode> {
  const doc = await xmlRequest(c, example);
  if (doc.name !== root)
    throw badRequest(`The root element must be ${root}, not ${doc.name}; send ${example}`);
  return doc;
}

function isManager(c: EntityContext): boolean {
  return c.get("caller").user.roles.includes(Role.MANAGER);
}

// ---------------------------------------------------------------------------------------------------
// Submission and approval

async function submitDeletion(c: EntityContext, type: EntityType): Promise<Response> {
  const { db } = c.get("svc");
  const caller = c.get("caller");
  const e = readableEntity(c, c.req.param("ref"), type);
  if (e.type === "CO") {
    throw conflict(
      `Content objects are deleted with their asset; delete the asset instead (DELETE ${ENTITY_API_PATH}/${ENTITY_PATH.IO}/${e.parent_ref ?? "{asset}"})`,
    );
  }
  requirePermission(c, e, Permission.DELETE);
  const ex = examples(c).submission;
  const doc = await actionBody(c, "DeletionAction", ex);
  const submission = child(doc, "Submission");
  if (!submission) throw badRequest(`DeletionAction needs a Submission element; send ${ex}`);
  const comment = childText(submission, "Comment") ?? "";

  const denied = unpermittedTag(db, e.ref, (tag) => caller.permissions.permits(tag, Permission.DELETE));
  if (denied) {
    throw new HTTPException(403, {
      message: `User ${caller.user.username} lacks the ${Permission.DELETE} permission on security tag "${denied.tag}" of entity ${denied.ref}, which is under ${e.ref}: a deletion takes everything under the entity; nothing was deleted`,
    });
  }
  const open = openDeletionOf(db, e.ref);
  if (open) {
    throw conflict(
      `A deletion of ${e.ref} is already ${open.status === "PENDING" ? "awaiting approval" : "running"} (progress token ${open.id}); ${open.status === "PENDING" ? `a manager approves it with PUT ${ENTITY_API_PATH}/actions/deletions/${open.id}` : "wait for it to finish"}`,
    );
  }
  const scope = deletionScope(db, e.ref);
  const blocking = blockingRetention(db, scope, nowIso(c));
  if (blocking.length > 0) throw conflict(retentionRefusal(db, blocking));

  const params: DeletionParams = { comment };
  const a = startAction(c, {
    kind: deletionAction.kind,
    entityRef: e.ref,
    entityType: e.type,
    params,
    status: "PENDING",
    total: scope.length,
    message: `Awaiting a manager's approval: PUT ${ENTITY_API_PATH}/actions/deletions/{this id}`,
  });
  return progressReply(c, a.id);
}

async function approveDeletion(c: EntityContext): Promise<Response> {
  const caller = c.get("caller");
  if (!isManager(c)) {
    throw new HTTPException(403, {
      message: `Only managers approve deletions; ${caller.user.username} does not have the ${Role.MANAGER} role. Ask a manager to send this approval with their own token`,
    });
  }
  const a = deletionActionOf(c, c.req.param("id"));
  const ex = examples(c).approval;
  const doc = await actionBody(c, "DeletionAction", ex);
  const approval = child(doc, "Approval");
  const approvedRaw = approval ? childText(approval, "Approved") : undefined;
  if (!approval || approvedRaw === undefined) {
    throw badRequest(`DeletionAction needs Approval/Approved (true or false); send ${ex}`);
  }
  const approved = approvedRaw.toLowerCase();
  if (approved !== "true" && approved !== "false") {
    throw badRequest(`Approved must be true or false, got "${approvedRaw.slice(0, 40)}"; send ${ex}`);
  }
  const comment = childText(approval, "Comment") ?? "";
  decideDeletion(
    c.get("svc"),
    a,
    { approved: approved === "true", comment, by: caller.user.username },
    nowIso(c),
  );
  return progressReply(c, a.id);
}

function deletionActionOf(c: EntityContext, raw: string | undefined): ActionRow {
  const id = refInPath(raw, "Deletion action id");
  const a = getAction(c.get("svc").db, id);
  if (!a || a.kind !== deletionAction.kind) {
    throw new HTTPException(404, {
      message: `No deletion with id ${id}; the id is the progress token the DELETE request returned (GET ${ENTITY_API_PATH}/actions/deletions lists them)`,
    });
  }
  return a;
}

// ---------------------------------------------------------------------------------------------------
// Recovery and final deletion

/**
 * The deletions a recovery or final-deletion body names, by `Deletion` (a deletion action id) or
 * `Entity` (a deleted entity: the deletion it belongs to). Each must still hold something in the bin.
 */
function namedDeletions(c: EntityContext, doc: XmlNode, example: string): string[] {
  const { db } = c.get("svc");
  const ids = new Set<string>();
  const deletionEls = childrenNamed(doc, "Deletion");
  const entityEls = childrenNamed(doc, "Entity");
  if (deletionEls.length + entityEls.length === 0) {
    throw badRequest(`${doc.name} names no Deletion and no Entity; send ${example}`);
  }
  if (deletionEls.length + entityEls.length > 1000) {
    throw badRequest(`${doc.name} may name at most 1000 deletions and entities; send several requests`);
  }
  for (const el of deletionEls) {
    const raw = el.text.trim();
    if (!isUuid(raw))
      throw badRequest(
        `Deletion "${raw.slice(0, 80)}" is not a deletion action id (a UUID); send ${example}`,
      );
    const a = deletionActionOf(c, raw);
    if (a.status !== "COMPLETED") {
      throw conflict(`Deletion ${a.id} is ${a.status}: nothing of it is in the recycle bin`);
    }
    if (deletionSize(db, a.id) === 0) {
      throw conflict(
        `Nothing of deletion ${a.id} is in the recycle bin any more (it was recovered or finally deleted)`,
      );
    }
    ids.add(a.id);
  }
  for (const el of entityEls) {
    const ref = requireUuid(el.text.trim(), "Entity reference");
    const e = anyEntity(db, ref);
    if (!e) {
      throw new HTTPException(404, {
        message: `Entity ${ref} not found (never existed, or finally deleted); GET ${ENTITY_API_PATH}/recycle-bin lists what is in the recycle bin`,
      });
    }
    if (e.deleted !== 1 || !e.deletion_id) throw conflict(`Entity ${ref} is not in the recycle bin`);
    ids.add(e.deletion_id);
  }
  return [...ids];
}

/** 403 unless the caller holds Delete on every security tag in `tags`. */
function requireDeleteOn(c: EntityContext, tags: { tag: string; ref: string }[], what: string): void {
  const caller = c.get("caller");
  const denied = tags.find((t) => !caller.permissions.permits(t.tag, Permission.DELETE));
  if (denied) {
    throw new HTTPException(403, {
      message: `User ${caller.user.username} lacks the ${Permission.DELETE} permission on security tag "${denied.tag}" (entity ${denied.ref}), which ${what} needs`,
    });
  }
}

async function recover(c: EntityContext): Promise<Response> {
  const { db } = c.get("svc");
  const ex = examples(c).recovery;
  const doc = await actionBody(c, "RecoveryAction", ex);
  const deletions = namedDeletions(c, doc, ex);
  requireDeleteOn(c, deletionTags(db, deletions), "a recovery");
  const blocker = recoveryBlocker(db, deletions);
  if (blocker) throw conflict(blocker);
  const params: RecoveryParams = { deletions };
  return startBinAction(c, recoveryAction.kind, params);
}

async function finallyDelete(c: EntityContext): Promise<Response> {
  const { db } = c.get("svc");
  const caller = c.get("caller");
  if (!isManager(c)) {
    throw new HTTPException(403, {
      message: `Only managers may delete for good; ${caller.user.username} does not have the ${Role.MANAGER} role`,
    });
  }
  const ex = examples(c).finalDeletion;
  const doc = await actionBody(c, "FinalDeletionAction", ex);
  const deletions = namedDeletions(c, doc, ex);
  const targets = finalDeletionTargets(db, deletions);
  const live = targets.find((t) => t.deleted === 0);
  if (live)
    throw conflict(
      `Entity ${live.ref} is not in the recycle bin; only deleted entities can be deleted for good`,
    );
  const byTag = new Map<string, string>();
  for (const t of targets) if (!byTag.has(t.security_tag)) byTag.set(t.security_tag, t.ref);
  requireDeleteOn(
    c,
    [...byTag].map(([tag, ref]) => ({ tag, ref })),
    "a final deletion",
  );
  const params: FinalDeletionParams = { deletions };
  return startBinAction(c, finalDeletionAction.kind, params, targets.length);
}

/** Starts a recovery or final deletion of whole deletions; listed under the top entity of the first. */
function startBinAction(
  c: EntityContext,
  kind: string,
  params: { deletions: string[] },
  total?: number,
): Response {
  const root = deletionRoots(c.get("svc").db, params.deletions)[0];
  const a = startAction(c, {
    kind,
    entityRef: root?.ref ?? null,
    entityType: root?.type ?? null,
    params,
    ...(total === undefined ? {} : { total }),
  });
  return progressReply(c, a.id);
}
