import { handledRefs } from "../store/actions/read.js";
import { nextItemSeq, recordItems, setActionParams, setActionTotal } from "../store/actions/write.js";
import type { Db } from "../store/db.js";
import { findEntity } from "../store/entities/read.js";
import { EventType, recordChange, touchEntities } from "../store/events/write.js";
import { isSelfOrAncestor, liveDescendantCount, liveDescendants } from "../store/structure/read.js";
import { appendEventActions, setParent } from "../store/structure/write.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";
import { actionBatchSize, batches } from "./batches.js";

/**
 * Moving a folder or asset (PUT …/{ref}/parent-ref). The first transaction changes the entity's parent,
 * which moves the whole subtree at once (descendants reference their parent, not a path), and records
 * the "Moved" event. Then, batch by batch, every descendant gets an action on that same event and a
 * new `modified` date, so harvesters reading updated-since see the new path of everything that moved.
 * Each batch records its items in its own transaction; after a crash the action resumes with the
 * descendants it has not recorded yet, so nothing is recorded twice and the tree is never half-moved.
 */

export interface MoveParams {
  /** The destination folder; null = the top level. */
  destination: string | null;
  /** Where the entity was when the move was asked for. */
  from?: string | null;
  /** The "Moved" event, once the first transaction has recorded it. */
  eventRef?: string;
}

export const MOVE_COMMAND = "MoveEntity";

export function placeName(ref: string | null | undefined): string {
  return ref ? `folder ${ref}` : "the top level";
}

export const moveAction: ActionKind = {
  kind: "move",
  path: "moves",
  title: "Move a folder or asset, with everything under it, to another folder",
  run: runMove,
};

async function runMove(run: ActionRun): Promise<ActionOutcome | undefined> {
  const { db } = run.svc;
  const id = run.action.id;
  const ref = run.action.entity_ref as string;
  let params = run.params as MoveParams;
  const handled = handledRefs(db, id);

  if (!handled.has(ref)) {
    const first = db.transaction(() => moveRoot(db, run, ref, params))();
    if ("outcome" in first) return first.outcome;
    params = first.params;
    handled.add(ref);
    await run.pause();
  }

  const todo = liveDescendants(db, ref)
    .map((e) => e.ref)
    .filter((r) => !handled.has(r));
  const detail = `Moved with ${ref} from ${placeName(params.from)} to ${placeName(params.destination)}`;
  for (const batch of batches(todo, actionBatchSize())) {
    db.transaction(() => {
      const now = run.now();
      appendEventActions(db, params.eventRef as string, batch, MOVE_COMMAND, now, detail);
      touchEntities(db, batch, now);
      let seq = nextItemSeq(db, id);
      recordItems(
        db,
        id,
        batch.map((entityRef) => ({
          seq: seq++,
          entity_ref: entityRef,
          outcome: "done" as const,
          message: null,
        })),
        now,
      );
    })();
    await run.pause();
  }
  const moved = handled.size + todo.length;
  return {
    message: `Moved ${ref}${moved > 1 ? ` and the ${moved - 1} entities under it` : ""} from ${placeName(params.from)} to ${placeName(params.destination)}`,
  };
}

/**
 * The first transaction: checks again what the route checked (time has passed, perhaps a restart),
 * changes the parent, records the event and the root's item, and fixes the total.
 */
function moveRoot(
  db: Db,
  run: ActionRun,
  ref: string,
  params: MoveParams,
): { outcome: ActionOutcome } | { params: MoveParams } {
  const fail = (message: string) => ({ outcome: { status: "FAILED" as const, message } });
  const e = findEntity(db, ref);
  if (!e)
    return fail(
      `Entity ${ref} no longer exists (it was deleted after the move was asked for); nothing moved`,
    );
  const dest = params.destination;
  if (dest !== null) {
    const folder = findEntity(db, dest);
    if (!folder) return fail(`Destination folder ${dest} no longer exists; nothing moved`);
    if (folder.type !== "SO") return fail(`Destination ${dest} is not a folder; nothing moved`);
    if (isSelfOrAncestor(db, ref, dest)) {
      return fail(`Destination folder ${dest} is now inside ${ref} itself; nothing moved`);
    }
  }
  const now = run.now();
  const seq = nextItemSeq(db, run.action.id);
  if (e.parent_ref === dest) {
    recordItems(
      db,
      run.action.id,
      [{ seq, entity_ref: ref, outcome: "skipped", message: `Already in ${placeName(dest)}` }],
      now,
    );
    setActionTotal(db, run.action.id, 1, now);
    return {
      outcome: { status: "COMPLETED", message: `${ref} is already in ${placeName(dest)}; nothing changed` },
    };
  }
  const from = e.parent_ref;
  setParent(db, ref, dest);
  const detail = `Moved from ${placeName(from)} to ${placeName(dest)}`;
  const eventRef = recordChange(db, {
    username: run.action.username,
    date: now,
    type: EventType.MOVED,
    commandType: MOVE_COMMAND,
    entityRefs: [ref],
    detail,
  });
  const next: MoveParams = { ...params, from, eventRef };
  setActionParams(db, run.action.id, next, now);
  setActionTotal(db, run.action.id, 1 + liveDescendantCount(db, ref), now);
  recordItems(db, run.action.id, [{ seq, entity_ref: ref, outcome: "done", message: detail }], now);
  return { params: next };
}
