import type { AnyTool } from "../define.js";
import completeSignIn from "./complete-sign-in.js";
import whoami from "./whoami.js";

/** The session toolset: who am I, and finishing a sign-in that needs a person. */
export const SESSION_TOOLS: readonly AnyTool[] = [whoami, completeSignIn];
