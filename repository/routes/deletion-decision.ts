import { HTTPException } from "hono/http-exception";
import type { ServiceContext } from "../context.js";
import { type DeletionParams, deletionScope, retentionRefusal } from "../jobs/deletion.js";
import type { ActionRow } from "../store/actions/read.js";
import { setActionParams, setActionStatus } from "../store/actions/write.js";
import { anyEntity } from "../store/recycle-bin/read.js";
import { blockingRetention } from "../store/retention/read.js";

/**
 * A manager's decision on a deletion awaiting approval, wherever it arrives: the Entity API's
 * `PUT /api/entity/actions/deletions/{id}` and the Workflow API's human task. Rejected, the deletion
 * ends CANCELLED and nothing is deleted; approved, it is checked again (the entity may have gone, a
 * retention may have been assigned while it waited) and submitted to run. Refusals (409) change nothing.
 */
export interface DeletionDecision {
  approved: boolean;
  comment: string;
  /** The manager deciding. */
  by: string;
}

function conflict(message: string): HTTPException {
  return new HTTPException(409, { message });
}

export function decideDeletion(svc: ServiceContext, a: ActionRow, d: DeletionDecision, now: string): void {
  const { db, actions } = svc;
  if (a.status !== "PENDING") {
    throw conflict(
      `Deletion ${a.id} is ${a.status}, not awaiting approval; only a PENDING deletion can be approved or rejected`,
    );
  }
  const params = JSON.parse(a.params) as DeletionParams;
  const decided = { ...params, approvedBy: d.by, approvalComment: d.comment };
  if (!d.approved) {
    db.transaction(() => {
      setActionParams(db, a.id, decided, now);
      setActionStatus(
        db,
        a.id,
        "CANCELLED",
        now,
        `Rejected by ${d.by}${d.comment ? `: ${d.comment}` : ""}; nothing was deleted`,
      );
    })();
    return;
  }
  // Checked again now, so the approver hears at once why it cannot go ahead (the run checks once more).
  const entityRef = a.entity_ref as string;
  const e = anyEntity(db, entityRef);
  if (!e || e.deleted === 1) {
    throw conflict(
      `Entity ${entityRef} ${e ? `is already in the recycle bin (deletion ${e.deletion_id})` : "no longer exists"}; reject this deletion (Approved false)`,
    );
  }
  const blocking = blockingRetention(db, deletionScope(db, entityRef), now);
  if (blocking.length > 0) throw conflict(`${retentionRefusal(db, blocking)}; the deletion stays PENDING`);
  db.transaction(() => {
    setActionParams(db, a.id, decided, now);
    setActionStatus(db, a.id, "ACTIVE", now, `Approved by ${d.by}`);
  })();
  actions.submit(a.id);
}
