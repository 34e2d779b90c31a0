import type { AnyTool } from "../define.js";
import csvMetadataEdit from "./csv-metadata-edit.js";
import listMetadataGroups from "./list-metadata-groups.js";
import manageMetadataGroup from "./manage-metadata-group.js";

/** The bulk toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const BULK_TOOLS: readonly AnyTool[] = [listMetadataGroups, csvMetadataEdit, manageMetadataGroup];
