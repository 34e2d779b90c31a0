import type { StoredBlob } from "../store/content-store.js";
import { EventType, recordChange } from "../store/events/write.js";
import { addReplacementGeneration } from "../store/files/write.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";
import { addUploadedFile } from "./uploaded-file.js";

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

function run(r: ActionRun): Promise<ActionOutcome | undefined> {
  const p = r.params as ReplaceContentParams;
  return addUploadedFile(r, {
    ref: p.coRef,
    upload: p,
    fileWhat: `the new content ${p.filename}`,
    type: "CO",
    apply: (db, co, date, file) => {
      const generation = addReplacementGeneration(db, co.ref, file, date);
      recordChange(db, {
        username: r.action.username,
        date,
        type: EventType.CONTENT_REPLACED,
        commandType: "ReplaceContent",
        entityRefs: co.parent_ref ? [co.ref, co.parent_ref] : [co.ref],
        detail: `Generation ${generation} (${p.filename}, ${p.blob.size} bytes, SHA256 ${p.blob.sha256}) replaces the previous active generation`,
      });
      return {
        item: `Generation ${generation} added`,
        outcome: `Content object ${co.ref}: generation ${generation} is now active`,
      };
    },
    gone: `Content object ${p.coRef} was deleted before its content could be replaced; nothing was changed`,
  });
}

export const replaceContentAction: ActionKind = {
  kind: REPLACE_CONTENT_KIND,
  path: "content-replacements",
  title: "Replace the content of a content object with a new generation",
  run,
};
