import type { AnyTool } from "../define.js";
import applyMigrationPolicy from "./apply-migration-policy.js";
import authenticationSettings from "./authentication-settings.js";
import changeStorage from "./change-storage.js";
import configurationHistory from "./configuration-history.js";
import formatRegistry from "./format-registry.js";
import manageUser from "./manage-user.js";
import migrationPolicy from "./migration-policy.js";
import storageAndLimits from "./storage-and-limits.js";
import usersAndAccess from "./users-and-access.js";

/** The admin toolset (see ../toolsets.ts), in the order tools/list shows it. */
export const ADMIN_TOOLS: readonly AnyTool[] = [
  usersAndAccess,
  manageUser,
  storageAndLimits,
  changeStorage,
  configurationHistory,
  authenticationSettings,
  migrationPolicy,
  applyMigrationPolicy,
  formatRegistry,
];
