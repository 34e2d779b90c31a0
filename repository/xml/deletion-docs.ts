import type { BinItem } from "../store/recycle-bin/read.js";
import { ENTITY_PATH, type ListMeta, openDocument, type RenderContext, writeListTail } from "./common.js";

/**
 * RecycleBinResponse: the top entity of each deletion in the recycle bin, newest first, with the
 * deletion action that put it there (its progress token, the id recovery and final deletion take).
 */
export function recycleBinDocument(ctx: RenderContext, items: BinItem[], meta: ListMeta): string {
  const w = openDocument(ctx, "RecycleBinResponse").open("DeletedEntities");
  for (const it of items) {
    w.open("DeletedEntity", { ref: it.ref, type: it.type, title: it.title })
      .leaf("Ref", it.ref)
      .leaf("Type", it.type)
      .leaf("Path", ENTITY_PATH[it.type])
      .leaf("Title", it.title)
      .leaf("SecurityTag", it.security_tag)
      .opt("Parent", it.parent_ref)
      .leaf("DeletionAction", it.deletion_id)
      .leaf("DeletedAt", it.deleted_at)
      .opt("DeletedBy", it.deleted_by)
      .leaf("Entities", it.entities)
      .leaf("Action", `${ctx.base}/actions/deletions/${it.deletion_id}`)
      .close("DeletedEntity");
  }
  w.close("DeletedEntities");
  return writeListTail(w, meta).close("RecycleBinResponse").toString();
}
