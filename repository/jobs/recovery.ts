import { handledRefs } from "../store/actions/read.js";
import { recordItems, setActionTotal } from "../store/actions/write.js";
import { getUser, Permission, Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { EventType, recordChange } from "../store/events/write.js";
import { anyEntity, deletionRoots, deletionSize, deletionTags } from "../store/recycle-bin/read.js";
import { noteOnAction, restoreDeletions } from "../store/recycle-bin/write.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";

/**
 * Recovering deletions from the recycle bin (POST /api/entity/actions/recoveries). A deletion comes
 * back whole (the entity it was asked for and everything that went with it), in one transaction with
 * its items and one "Recover" event; entities get a new `modified` date so harvesters see them again.
 * A deletion whose top entity sits under a folder that is itself in the bin cannot come back on its
 * own: its parent must be recovered first (or in the same recovery).
 */

export interface RecoveryParams {
  deletions: string[];
}

export const RECOVER_COMMAND = "RecoverEntity";

export const recoveryAction: ActionKind = {
  kind: "recovery",
  path: "recoveries",
  title: "Recover deleted folders and assets from the recycle bin",
  run: runRecovery,
};

/** Why these deletions cannot be recovered now, or undefined when they can. */
export function recoveryBlocker(db: Db, deletionIds: readonly string[]): string | undefined {
  const empty = deletionIds.filter((id) => deletionSize(db, id) === 0);
  if (empty.length > 0) {
    return `Nothing of deletion ${empty[0]} is in the recycle bin any more (it was recovered or finally deleted)`;
  }
  for (const root of deletionRoots(db, deletionIds)) {
    if (root.parent_ref === null) continue;
    const parent = anyEntity(db, root.parent_ref);
    if (!parent) {
      return `Entity ${root.ref} cannot be recovered: its parent folder ${root.parent_ref} was finally deleted`;
    }
    if (parent.deleted === 1 && !deletionIds.includes(parent.deletion_id as string)) {
      return `Entity ${root.ref} cannot be recovered while its parent folder ${parent.ref} ("${parent.title}") is in the recycle bin (deletion ${parent.deletion_id}): recover its parent first, or both in one recovery`;
    }
  }
  return undefined;
}

async function runRecovery(run: ActionRun): Promise<ActionOutcome | undefined> {
  const { db } = run.svc;
  const { action } = run;
  const { deletions } = run.params as RecoveryParams;
  if (handledRefs(db, action.id).size > 0) return undefined; // committed before a restart
  const fail = (message: string): ActionOutcome => ({
    status: "FAILED",
    message: `${message}; nothing was recovered`,
  });

  const user = getUser(db, action.username);
  if (!user?.enabled)
    return fail(`The user who asked for this recovery (${action.username}) can no longer sign in`);
  const permissions = new Permissions(db, user.roles);
  const denied = deletionTags(db, deletions).find((t) => !permissions.permits(t.tag, Permission.DELETE));
  if (denied) {
    return fail(
      `User ${user.username} no longer has the ${Permission.DELETE} permission on security tag "${denied.tag}" (entity ${denied.ref})`,
    );
  }
  return db.transaction((): ActionOutcome => {
    const blocker = recoveryBlocker(db, deletions);
    if (blocker) return fail(blocker);
    const now = run.now();
    const refs = restoreDeletions(db, deletions);
    recordChange(db, {
      username: action.username,
      date: now,
      type: EventType.RECOVERED,
      commandType: RECOVER_COMMAND,
      entityRefs: refs,
      detail: `Recovered from the recycle bin (deletion ${deletions.join(", ")})`,
    });
    setActionTotal(db, action.id, refs.length, now);
    recordItems(
      db,
      action.id,
      refs.map((r, i) => ({ seq: i + 1, entity_ref: r, outcome: "done" as const, message: null })),
      now,
    );
    for (const d of deletions) noteOnAction(db, d, `Recovered by action ${action.id} at ${now}.`, now);
    return {
      status: "COMPLETED",
      message: `Recovered ${refs.length} ${refs.length === 1 ? "entity" : "entities"} from the recycle bin`,
    };
  })();
}
