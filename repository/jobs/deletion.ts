import { handledRefs } from "../store/actions/read.js";
import { recordItems, setActionTotal } from "../store/actions/write.js";
import { getUser, Permission, Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { findEntity } from "../store/entities/read.js";
import { EventType, recordChange } from "../store/events/write.js";
import { anyEntity } from "../store/recycle-bin/read.js";
import { markDeleted } from "../store/recycle-bin/write.js";
import { type BlockingAssignment, blockingRetention } from "../store/retention/read.js";
import { liveDescendants, subtreeTags } from "../store/structure/read.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";

/**
 * Deleting a folder or asset (DELETE …/{path}/{ref}): the action is created PENDING, awaiting a
 * manager's approval (PUT /api/entity/actions/deletions/{id}); this service always asks for one.
 * Once approved it runs: permissions and retention are checked again (things may have changed while
 * it waited), then the entity and its whole live subtree go to the recycle bin in one transaction,
 * with their items and one "Delete" event. Recovery (jobs/recovery.ts) takes them out again.
 */

export interface DeletionParams {
  comment: string;
  approvedBy?: string;
  approvalComment?: string;
}

export const DELETE_COMMAND = "DeleteEntity";

export const deletionAction: ActionKind = {
  kind: "deletion",
  path: "deletions",
  title: "Delete a folder or asset with everything under it (to the recycle bin), after a manager's approval",
  run: runDeletion,
};

/** The entity and its live descendants, the entity first. */
export function deletionScope(db: Db, ref: string): string[] {
  return [ref, ...liveDescendants(db, ref).map((e) => e.ref)];
}

/** A tag in the subtree of `ref` on which `permits` says no, with an entity carrying it. */
export function unpermittedTag(
  db: Db,
  ref: string,
  permits: (tag: string) => boolean,
): { tag: string; ref: string } | undefined {
  return subtreeTags(db, ref).find((t) => !permits(t.tag));
}

/** What a person needs to know about the retention that forbids a deletion, and what to do. */
export function retentionRefusal(db: Db, blocking: readonly BlockingAssignment[]): string {
  const b = blocking[0] as BlockingAssignment;
  const title = anyEntity(db, b.entityRef)?.title;
  const until = b.expires === null ? "indefinitely (the policy has no period)" : `until ${b.expires}`;
  const more =
    blocking.length > 1 ? ` (and ${blocking.length - 1} more retention assignments in the subtree)` : "";
  return `Asset ${b.entityRef}${title ? ` ("${title}")` : ""} is kept by retention policy "${b.policyName}" (${b.policyRef}) ${until}${more}; it cannot be deleted while the retention lasts. Wait until it expires, or remove the assignment (DELETE /api/entity/information-objects/${b.entityRef}/retention-assignments/${b.apiId}) if it was made in error`;
}

async function runDeletion(run: ActionRun): Promise<ActionOutcome | undefined> {
  const { db } = run.svc;
  const { action } = run;
  const ref = action.entity_ref as string;
  const params = run.params as DeletionParams;
  // One transaction does it all: items recorded means it is done (a crash came after the commit).
  if (handledRefs(db, action.id).size > 0) return undefined;
  const fail = (message: string): ActionOutcome => ({ status: "FAILED", message });

  const e = findEntity(db, ref);
  if (!e) {
    const gone = anyEntity(db, ref);
    return fail(
      gone?.deletion_id
        ? `Entity ${ref} is already in the recycle bin (deletion ${gone.deletion_id}); nothing was deleted`
        : `Entity ${ref} no longer exists; nothing was deleted`,
    );
  }
  const user = getUser(db, action.username);
  if (!user?.enabled) {
    return fail(
      `The user who asked for this deletion (${action.username}) can no longer sign in; nothing was deleted`,
    );
  }
  const permissions = new Permissions(db, user.roles);
  const denied = unpermittedTag(db, ref, (tag) => permissions.permits(tag, Permission.DELETE));
  if (denied) {
    return fail(
      `User ${user.username} no longer has the ${Permission.DELETE} permission on security tag "${denied.tag}" (entity ${denied.ref}); nothing was deleted`,
    );
  }
  const now = run.now();
  const blocking = blockingRetention(db, deletionScope(db, ref), now);
  if (blocking.length > 0) return fail(`${retentionRefusal(db, blocking)}. Nothing was deleted`);

  const count = db.transaction(() => {
    const refs = markDeleted(db, ref, action.id, now);
    const comments = [
      params.comment,
      params.approvalComment && `Approved by ${params.approvedBy}: ${params.approvalComment}`,
    ]
      .filter(Boolean)
      .join(" / ");
    recordChange(db, {
      username: action.username,
      date: now,
      type: EventType.DELETED,
      commandType: DELETE_COMMAND,
      entityRefs: refs,
      detail: comments || null,
      // Deleted entities leave every listing, updated-since included; recovery stamps them anew.
      touch: false,
    });
    setActionTotal(db, action.id, refs.length, now);
    recordItems(
      db,
      action.id,
      refs.map((r, i) => ({ seq: i + 1, entity_ref: r, outcome: "done" as const, message: null })),
      now,
    );
    return refs.length;
  })();
  return {
    message: `${e.title} (${ref})${count > 1 ? ` and the ${count - 1} entities under it` : ""} moved to the recycle bin; POST /api/entity/actions/recoveries brings ${count > 1 ? "them" : "it"} back`,
  };
}
