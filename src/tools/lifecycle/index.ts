import type { AnyTool } from "../define.js";
import addRepresentation from "./add-representation.js";
import deleteEntity from "./delete-entity.js";
import finalDelete from "./final-delete.js";
import recoverEntity from "./recover-entity.js";
import recycleBin from "./recycle-bin.js";
import replaceContent from "./replace-content.js";
import reviewDeletion from "./review-deletion.js";

/** The lifecycle toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const LIFECYCLE_TOOLS: readonly AnyTool[] = [
  deleteEntity,
  reviewDeletion,
  recycleBin,
  recoverEntity,
  finalDelete,
  replaceContent,
  addRepresentation,
];
