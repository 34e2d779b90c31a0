import type { AnyTool } from "../define.js";
import assignRetention from "./assign-retention.js";
import getRetention from "./get-retention.js";
import listRetentionPolicies from "./list-retention-policies.js";
import manageRetentionPolicy from "./manage-retention-policy.js";
import removeRetention from "./remove-retention.js";

/** The retention toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const RETENTION_TOOLS: readonly AnyTool[] = [
  listRetentionPolicies,
  getRetention,
  assignRetention,
  removeRetention,
  manageRetentionPolicy,
];
