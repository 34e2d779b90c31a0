import { handledRefs } from "../store/actions/read.js";
import { nextItemSeq, recordItems, setActionParams, setActionTotal } from "../store/actions/write.js";
import type { Db } from "../store/db.js";
import { EventType, recordChange } from "../store/events/write.js";
import { finalDeletionTargets } from "../store/recycle-bin/read.js";
import { noteOnAction, removeEntities, unreferencedBlobs } from "../store/recycle-bin/write.js";
import { appendEventActions } from "../store/structure/write.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";
import { actionBatchSize, batches } from "./batches.js";

/**
 * Final deletion (POST /api/entity/actions/final-deletions): removes deletions' entities from the
 * recycle bin for good, with everything below them and everything hanging off them, and then the
 * files on disk that no remaining bitstream or preview uses. Batches, deepest entities first (so an
 * interrupted run never leaves an entity whose parent is gone, and the next run finds the rest from
 * the same top entities); each batch records the content hashes it freed in the action's parameters
 * in the same transaction, so blobs are removed after a crash too. Events stay (they are history),
 * plus one "FinalDelete" event.
 */

export interface FinalDeletionParams {
  deletions: string[];
  /** Content hashes that removed bitstreams and previews used: candidates for removal from disk. */
  blobs?: string[];
  eventRef?: string;
}

export const FINAL_DELETE_COMMAND = "FinalDeleteEntity";

export const finalDeletionAction: ActionKind = {
  kind: "final-deletion",
  path: "final-deletions",
  title: "Remove deleted folders and assets from the recycle bin for good, with their files",
  run: runFinalDeletion,
};

async function runFinalDeletion(run: ActionRun): Promise<ActionOutcome | undefined> {
  const { db } = run.svc;
  const id = run.action.id;
  let params = run.params as FinalDeletionParams;
  const handled = handledRefs(db, id);
  const targets = finalDeletionTargets(db, params.deletions);
  const live = targets.find((t) => t.deleted === 0);
  if (live) {
    return {
      status: "FAILED",
      message: `Entity ${live.ref} is not in the recycle bin (it was recovered or never deleted); nothing more was removed`,
    };
  }
  if (handled.size === 0 && targets.length === 0) {
    return {
      status: "FAILED",
      message: `Nothing of deletion ${params.deletions.join(", ")} is in the recycle bin any more (recovered or finally deleted already)`,
    };
  }
  const total = handled.size + targets.length;
  if (total !== run.action.total) setActionTotal(db, id, total, run.now());

  for (const batch of batches(
    targets.map((t) => t.ref),
    actionBatchSize(),
  )) {
    const recovered = db.transaction((): string | undefined => {
      // A recovery may have run between two batches: never remove a live entity.
      const live = liveAmong(db, batch);
      if (live) return live;
      const now = run.now();
      const freed = removeEntities(db, batch);
      const detail = "Removed from the recycle bin for good";
      let eventRef = params.eventRef;
      if (eventRef) appendEventActions(db, eventRef, batch, FINAL_DELETE_COMMAND, now, detail);
      else {
        eventRef = recordChange(db, {
          username: run.action.username,
          date: now,
          type: EventType.FINAL_DELETED,
          commandType: FINAL_DELETE_COMMAND,
          entityRefs: batch,
          detail,
          touch: false,
        });
      }
      params = { ...params, eventRef, blobs: [...new Set([...(params.blobs ?? []), ...freed])] };
      setActionParams(db, id, params, now);
      let seq = nextItemSeq(db, id);
      recordItems(
        db,
        id,
        batch.map((ref) => ({ seq: seq++, entity_ref: ref, outcome: "done" as const, message: null })),
        now,
      );
      return undefined;
    })();
    if (recovered) {
      removeUnusedBlobs(run, params.blobs ?? []);
      return {
        status: "FAILED",
        message: `Entity ${recovered} was recovered while the final deletion ran; what was not yet removed stays`,
      };
    }
    await run.pause();
  }

  const { removed, kept } = removeUnusedBlobs(run, params.blobs ?? []);
  db.transaction(() => {
    const now = run.now();
    setActionParams(db, id, { deletions: params.deletions, eventRef: params.eventRef }, now);
    for (const d of params.deletions) noteOnAction(db, d, `Finally deleted by action ${id} at ${now}.`, now);
  })();
  return {
    message: `Removed ${total} ${total === 1 ? "entity" : "entities"} for good and ${removed} ${removed === 1 ? "file" : "files"} from disk${kept > 0 ? ` (${kept} ${kept === 1 ? "file is" : "files are"} still used by other entities and kept)` : ""}`,
  };
}

function liveAmong(db: Db, refs: readonly string[]): string | undefined {
  const row = db
    .prepare("SELECT ref FROM entities WHERE deleted = 0 AND ref IN (SELECT value FROM json_each(?)) LIMIT 1")
    .get(JSON.stringify(refs)) as { ref: string } | undefined;
  return row?.ref;
}

/**
 * Removes from disk the blobs among `shas` that nothing references any more. No await from the check
 * to the last removal: an upload that stores a blob and records its bitstream in one synchronous step
 * can never lose its file to this.
 */
function removeUnusedBlobs(run: ActionRun, shas: readonly string[]): { removed: number; kept: number } {
  const unused = unreferencedBlobs(run.svc.db, shas);
  let removed = 0;
  for (const sha of unused) if (run.svc.content.remove(sha)) removed++;
  return { removed, kept: shas.length - unused.length };
}
