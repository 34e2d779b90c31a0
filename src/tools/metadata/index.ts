import type { AnyTool } from "../define.js";
import editIdentifiers from "./edit-identifiers.js";
import editLinks from "./edit-links.js";
import undoMetadataChange from "./undo-metadata-change.js";
import updateEntity from "./update-entity.js";
import updateMetadata from "./update-metadata.js";

/** The metadata toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const METADATA_TOOLS: readonly AnyTool[] = [
  updateEntity,
  updateMetadata,
  editIdentifiers,
  editLinks,
  undoMetadataChange,
];
