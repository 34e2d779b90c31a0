import type { StoredBlob } from "../store/content-store.js";
import { EventType, recordChange } from "../store/events/write.js";
import { addAccessRepresentation } from "../store/files/write.js";
import type { ActionKind, ActionOutcome, ActionRun } from "./action-kind.js";
import { addUploadedFile } from "./uploaded-file.js";

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

function run(r: ActionRun): Promise<ActionOutcome | undefined> {
  const p = r.params as AddRepresentationParams;
  return addUploadedFile(r, {
    ref: p.ioRef,
    upload: p,
    fileWhat: `the representation file ${p.filename}`,
    type: "IO",
    apply: (db, io, date, file) => {
      const { co, representation } = addAccessRepresentation(db, io, p.name, file, date);
      recordChange(db, {
        username: r.action.username,
        date,
        type: EventType.MODIFIED,
        commandType: "AddRepresentation",
        entityRefs: [io.ref, co.ref],
        detail: `Access representation ${representation} "${p.name}" holds content object ${co.ref} (${p.filename}, ${p.blob.size} bytes)`,
      });
      const message = `Access representation ${representation} added with content object ${co.ref}`;
      return { item: message, outcome: `Asset ${io.ref}: ${message}` };
    },
    gone: `Asset ${p.ioRef} was deleted before the representation could be added; nothing was changed`,
  });
}

export const addRepresentationAction: ActionKind = {
  kind: ADD_REPRESENTATION_KIND,
  path: "representations",
  title: "Add an access representation to an asset",
  run,
};
