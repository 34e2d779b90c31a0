import { characteriseStoredBlob } from "../characterise/characterise.js";
import { handledRefs } from "../store/actions/read.js";
import { recordItem } from "../store/actions/write.js";
import type { StoredBlob } from "../store/content-store.js";
import { getEntity } from "../store/entities/read.js";
import { EventType, recordChange } from "../store/events/write.js";
import { addReplacementGeneration } from "../store/files/write.js";
import { checkQuota, QuotaExceeded, quotaMessage } from "../store/storage/quota.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";

/**
 * Replacing a content object's content: the uploaded file (already in the content store, fixity
 * checked by the route) becomes generation N+1, the only active one; earlier generations are kept.
 * One transaction adds the generation, its bitstream, the event and the action's item, so a resumed
 * action that finds its item recorded does nothing twice.
 */

export const REPLACE_CONTENT_KIND = "replace-content";

export interface ReplaceContentParams {
  coRef: string;
  filename: string;
  blob: StoredBlob;
}

async function run(r: ActionRun): Promise<ActionOutcome | undefined> {
  const { db, content } = r.svc;
  const p = r.params as ReplaceContentParams;
  if (handledRefs(db, r.action.id).has(p.coRef)) return undefined;
  const fail = (message: string): ActionOutcome => {
    db.transaction(() =>
      recordItem(db, r.action.id, { entity_ref: p.coRef, outcome: "failed", message }, r.now()),
    )();
    return { status: "FAILED", message };
  };
  if (!content.has(p.blob.sha256)) {
    return fail("The uploaded file is no longer in the content store; upload it again");
  }
  const { format, properties } = await characteriseStoredBlob(content, p.blob, p.filename);
  let outcome: ActionOutcome | undefined;
  try {
    outcome = db.transaction((): ActionOutcome | undefined => {
      const co = getEntity(db, p.coRef);
      if (co?.type !== "CO") return undefined;
      // Checked again under the write lock: the route checked before storing the file, but another write
      // may have used the room since. The file stays on disk unnamed (not counted), as after a crash.
      const quota = checkQuota(db, [p.blob]);
      if (!quota.fits)
        throw new QuotaExceeded(
          quota,
          quotaMessage(quota, `the new content ${p.filename}`, "nothing was changed"),
        );
      const date = r.now();
      const generation = addReplacementGeneration(
        db,
        co.ref,
        { filename: p.filename, format, properties, blob: p.blob },
        date,
      );
      recordChange(db, {
        username: r.action.username,
        date,
        type: EventType.CONTENT_REPLACED,
        commandType: "ReplaceContent",
        entityRefs: co.parent_ref ? [co.ref, co.parent_ref] : [co.ref],
        detail: `Generation ${generation} (${p.filename}, ${p.blob.size} bytes, SHA256 ${p.blob.sha256}) replaces the previous active generation`,
      });
      const message = `Generation ${generation} added`;
      recordItem(db, r.action.id, { entity_ref: co.ref, outcome: "done", message }, date);
      return {
        status: "COMPLETED",
        message: `Content object ${co.ref}: generation ${generation} is now active`,
      };
    })();
  } catch (err) {
    if (err instanceof QuotaExceeded) return fail(err.message);
    throw err;
  }
  return (
    outcome ??
    fail(`Content object ${p.coRef} was deleted before its content could be replaced; nothing was changed`)
  );
}

export const replaceContentAction: ActionKind = {
  kind: REPLACE_CONTENT_KIND,
  path: "content-replacements",
  title: "Replace the content of a content object with a new generation",
  run,
};
