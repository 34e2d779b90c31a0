import type { AnyTool } from "../define.js";
import completeSignIn from "./complete-sign-in.js";
import signOut from "./sign-out.js";
import whoami from "./whoami.js";

/** The session toolset: who am I, finishing a sign-in that needs a person, and (person mode) signing out. */
export const SESSION_TOOLS: readonly AnyTool[] = [whoami, completeSignIn, signOut];
