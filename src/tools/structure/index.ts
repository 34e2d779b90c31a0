import type { AnyTool } from "../define.js";
import createFolder from "./create-folder.js";
import moveEntity from "./move-entity.js";
import setSecurityTag from "./set-security-tag.js";

/** The structure toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const STRUCTURE_TOOLS: readonly AnyTool[] = [createFolder, moveEntity, setSecurityTag];
