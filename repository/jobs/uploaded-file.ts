import { characteriseStoredBlob } from "../characterise/characterise.js";
import { handledRefs } from "../store/actions/read.js";
import { recordItem } from "../store/actions/write.js";
import type { StoredBlob } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import { getEntity } from "../store/entities/read.js";
import type { EntityRow, EntityType } from "../store/entities/types.js";
import type { UploadedFile } from "../store/files/write.js";
import { checkQuota, QuotaExceeded, quotaMessage } from "../store/storage/quota.js";
import type { ActionOutcome, ActionRun } from "./action-kind.js";

/** One uploaded file that an action adds to one entity (a new generation, a new representation). */
export interface UploadedFileChange {
  /** The entity the action is about: its item's ref. */
  ref: string;
  /** The file as the route stored it. */
  upload: { filename: string; blob: StoredBlob };
  /** How the quota refusal names the file, e.g. "the new content x.pdf". */
  fileWhat: string;
  /** What `ref` is (an asset, a content object). */
  type: EntityType;
  /** Makes the change and records its event; returns the item's message and the action's. */
  apply(db: Db, entity: EntityRow, date: string, file: UploadedFile): { item: string; outcome: string };
  /** The failure when the entity is gone (deleted since the route checked it). */
  gone: string;
}

/**
 * The run of an action that adds an uploaded file (already in the content store) to an entity. The
 * file is characterised first, outside any transaction; then one transaction finds the entity, checks
 * the quota again, makes the change, and records the event and the action's item, so a resumed action
 * that finds its item recorded does nothing twice.
 */
export async function addUploadedFile(
  r: ActionRun,
  u: UploadedFileChange,
): Promise<ActionOutcome | undefined> {
  const { db, content } = r.svc;
  if (handledRefs(db, r.action.id).has(u.ref)) return undefined;
  const fail = (message: string): ActionOutcome => {
    db.transaction(() =>
      recordItem(db, r.action.id, { entity_ref: u.ref, outcome: "failed", message }, r.now()),
    )();
    return { status: "FAILED", message };
  };
  const { filename, blob } = u.upload;
  if (!content.has(blob.sha256)) {
    return fail("The uploaded file is no longer in the content store; upload it again");
  }
  const file: UploadedFile = { filename, blob, ...(await characteriseStoredBlob(content, blob, filename)) };
  let outcome: ActionOutcome | undefined;
  try {
    outcome = db.transaction((): ActionOutcome | undefined => {
      const entity = getEntity(db, u.ref);
      if (entity?.type !== u.type) return undefined;
      // Checked again under the write lock: the route checked before storing the file, but another write
      // may have used the room since. The file stays on disk unnamed (not counted), as after a crash.
      const quota = checkQuota(db, [blob]);
      if (!quota.fits) throw new QuotaExceeded(quota, quotaMessage(quota, u.fileWhat, "nothing was changed"));
      const date = r.now();
      const done = u.apply(db, entity, date, file);
      recordItem(db, r.action.id, { entity_ref: u.ref, outcome: "done", message: done.item }, date);
      return { status: "COMPLETED", message: done.outcome };
    })();
  } catch (err) {
    if (err instanceof QuotaExceeded) return fail(err.message);
    throw err;
  }
  return outcome ?? fail(u.gone);
}
