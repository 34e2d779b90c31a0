import type { AnyTool } from "../define.js";
import browse from "./browse.js";
import downloadFile from "./download-file.js";
import findByIdentifier from "./find-by-identifier.js";
import getEntity from "./get-entity.js";
import getFile from "./get-file.js";
import listChanges from "./list-changes.js";
import listEvents from "./list-events.js";
import readMetadata from "./read-metadata.js";
import search from "./search.js";

/** The discovery toolset, in the order tools/list shows it: find, look inside, then history. */
export const DISCOVERY_TOOLS: readonly AnyTool[] = [
  search,
  browse,
  getEntity,
  readMetadata,
  getFile,
  downloadFile,
  findByIdentifier,
  listEvents,
  listChanges,
];
