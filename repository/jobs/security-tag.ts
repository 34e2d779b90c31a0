import type { ActionItemRow } from "../store/actions/read.js";
import { handledRefs } from "../store/actions/read.js";
import { nextItemSeq, recordItems, setActionParams, setActionTotal } from "../store/actions/write.js";
import type { Db } from "../store/db.js";
import { findEntity } from "../store/entities/read.js";
import { EventType, recordChange, touchEntities } from "../store/events/write.js";
import {
  contentObjectsOf,
  liveDescendants,
  securityTagNames,
  type TreeEntity,
} from "../store/structure/read.js";
import { appendEventActions, setSecurityTag } from "../store/structure/write.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";
import { actionBatchSize, batches } from "./batches.js";

/**
 * Changing the security tag of an entity (PUT …/{ref}/security-descriptor). An asset's content
 * objects always take its new tag with it (downloads are checked against the content object's tag, so
 * leaving them behind would leave the files readable under the old tag); with includeDescendants the
 * whole subtree takes it. Batches of entities, each batch's changes and items in one transaction,
 * one "SecurityTagChanged" event whose actions grow batch by batch; resumable after a crash.
 */

export interface SecurityTagParams {
  tag: string;
  includeDescendants: boolean;
  /** The entity's tag when the change was asked for. */
  previous?: string;
  /** The event, once a batch has changed something. */
  eventRef?: string;
}

export const SECURITY_COMMAND = "ChangeSecurityTag";

export const securityTagAction: ActionKind = {
  kind: "security-tag",
  path: "security-tags",
  title: "Change the security tag of a folder or asset (and, if asked, of everything under it)",
  run: runSecurityTag,
};

/** What a tag change of `root` covers: the root first, then its content objects or its whole subtree. */
export function securityTagTargets(db: Db, root: TreeEntity, includeDescendants: boolean): TreeEntity[] {
  if (includeDescendants) return [root, ...liveDescendants(db, root.ref)];
  return root.type === "IO" ? [root, ...contentObjectsOf(db, root.ref)] : [root];
}

async function runSecurityTag(run: ActionRun): Promise<ActionOutcome | undefined> {
  const { db } = run.svc;
  const id = run.action.id;
  const ref = run.action.entity_ref as string;
  let params = run.params as SecurityTagParams;
  const root = findEntity(db, ref);
  if (!root) {
    return {
      status: "FAILED",
      message: `Entity ${ref} no longer exists (deleted since); no tag was changed`,
    };
  }
  if (!securityTagNames(db).includes(params.tag)) {
    return { status: "FAILED", message: `Security tag "${params.tag}" no longer exists; no tag was changed` };
  }
  const handled = handledRefs(db, id);
  const todo = securityTagTargets(db, root, params.includeDescendants).filter((e) => !handled.has(e.ref));
  const total = handled.size + todo.length;
  if (total !== run.action.total) setActionTotal(db, id, total, run.now());

  let changed = 0;
  for (const batch of batches(todo, actionBatchSize())) {
    db.transaction(() => {
      const now = run.now();
      const current = new Map(batch.map((e) => [e.ref, findEntity(db, e.ref)?.security_tag] as const));
      const toChange = batch.filter((e) => {
        const tag = current.get(e.ref);
        return tag !== undefined && tag !== params.tag;
      });
      const refs = toChange.map((e) => e.ref);
      setSecurityTag(db, refs, params.tag);
      const detail = `Security tag set to "${params.tag}"`;
      if (refs.length > 0) {
        if (params.eventRef) {
          appendEventActions(db, params.eventRef, refs, SECURITY_COMMAND, now, detail);
          touchEntities(db, refs, now);
        } else {
          const eventRef = recordChange(db, {
            username: run.action.username,
            date: now,
            type: EventType.SECURITY_CHANGED,
            commandType: SECURITY_COMMAND,
            entityRefs: refs,
            detail,
          });
          params = { ...params, eventRef };
          setActionParams(db, id, params, now);
        }
      }
      let seq = nextItemSeq(db, id);
      const items: ActionItemRow[] = batch.map((e) => {
        const was = current.get(e.ref);
        if (was === undefined) {
          return { seq: seq++, entity_ref: e.ref, outcome: "skipped", message: "No longer exists" };
        }
        if (was === params.tag) {
          return { seq: seq++, entity_ref: e.ref, outcome: "skipped", message: `Already tagged "${was}"` };
        }
        return { seq: seq++, entity_ref: e.ref, outcome: "done", message: `"${was}" to "${params.tag}"` };
      });
      recordItems(db, id, items, now);
      changed += refs.length;
    })();
    await run.pause();
  }
  return {
    message: `Security tag "${params.tag}" set on ${changed} of ${todo.length} entities${handled.size > 0 ? ` (and ${handled.size} before a restart)` : ""}`,
  };
}
