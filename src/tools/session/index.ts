import type { AnyTool } from "../define.js";
import auditLog from "./audit-log.js";
import completeSignIn from "./complete-sign-in.js";
import signOut from "./sign-out.js";
import whoami from "./whoami.js";

/**
 * The session toolset: who am I, finishing a sign-in that needs a person, (person mode) signing out, and what
 * was changed through us.
 */
export const SESSION_TOOLS: readonly AnyTool[] = [whoami, completeSignIn, signOut, auditLog];
