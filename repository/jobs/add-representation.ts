import { characteriseStoredBlob } from "../characterise/characterise.js";
import { handledRefs } from "../store/actions/read.js";
import { recordItem } from "../store/actions/write.js";
import type { StoredBlob } from "../store/content-store.js";
import { getEntity } from "../store/entities/read.js";
import { EventType, recordChange } from "../store/events/write.js";
import { addAccessRepresentation } from "../store/files/write.js";
import { checkQuota, QuotaExceeded, quotaMessage } from "../store/storage/quota.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";

/**
 * Adding an access representation to an asset: a new content object holding the uploaded file
 * (already in the content store) in its first generation, in Access representation N+1. One
 * transaction makes all of it, the event and the action's item, so a resumed action that finds its
 * item recorded does nothing twice.
 */

export const ADD_REPRESENTATION_KIND = "add-representation";

export interface AddRepresentationParams {
  ioRef: string;
  name: string;
  filename: string;
  blob: StoredBlob;
}

async function run(r: ActionRun): Promise<ActionOutcome | undefined> {
  const { db, content } = r.svc;
  const p = r.params as AddRepresentationParams;
  if (handledRefs(db, r.action.id).has(p.ioRef)) return undefined;
  const fail = (message: string): ActionOutcome => {
    db.transaction(() =>
      recordItem(db, r.action.id, { entity_ref: p.ioRef, outcome: "failed", message }, r.now()),
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
      const io = getEntity(db, p.ioRef);
      if (io?.type !== "IO") return undefined;
      // Checked again under the write lock: the route checked before storing the file, but another write
      // may have used the room since. The file stays on disk unnamed (not counted), as after a crash.
      const quota = checkQuota(db, [p.blob]);
      if (!quota.fits)
        throw new QuotaExceeded(
          quota,
          quotaMessage(quota, `the representation file ${p.filename}`, "nothing was changed"),
        );
      const date = r.now();
      const { co, representation } = addAccessRepresentation(
        db,
        io,
        p.name,
        { filename: p.filename, format, properties, blob: p.blob },
        date,
      );
      recordChange(db, {
        username: r.action.username,
        date,
        type: EventType.MODIFIED,
        commandType: "AddRepresentation",
        entityRefs: [io.ref, co.ref],
        detail: `Access representation ${representation} "${p.name}" holds content object ${co.ref} (${p.filename}, ${p.blob.size} bytes)`,
      });
      const message = `Access representation ${representation} added with content object ${co.ref}`;
      recordItem(db, r.action.id, { entity_ref: io.ref, outcome: "done", message }, date);
      return { status: "COMPLETED", message: `Asset ${io.ref}: ${message}` };
    })();
  } catch (err) {
    if (err instanceof QuotaExceeded) return fail(err.message);
    throw err;
  }
  return (
    outcome ??
    fail(`Asset ${p.ioRef} was deleted before the representation could be added; nothing was changed`)
  );
}

export const addRepresentationAction: ActionKind = {
  kind: ADD_REPRESENTATION_KIND,
  path: "representations",
  title: "Add an access representation to an asset",
  run,
};
