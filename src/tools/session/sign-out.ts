import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { ARRANGE } from "../support/hints.js";

const signOut = defineTool({
  name: "sign_out",
  title: "Sign out",
  description:
    "End your own repository session on this team server (every instance of it). The next tool call asks you to sign in again, as anyone you like. Offered only where each person signs in as themselves (identity person).",
  toolset: "session",
  requires: "person-sessions",
  inputSchema: z.object({}),
  outputSchema: z.object({ signedOut: z.boolean(), user: z.string().optional() }),
  // Changes this server's sessions, not the repository: read-only mode keeps it.
  localOnly: true,
  // Signing out must not first ask the person to sign in.
  withoutSession: true,
  annotations: ARRANGE,
  async handler(_args, ctx: ToolContext) {
    if (!ctx.signOut)
      throw new UserInputError(
        "This server has one repository account for everyone: there is nothing to sign out of.",
      );
    // Signed in on another instance is signed in too: the session takes the kept grant if there is one.
    const user = await ctx.session.whoAmI(ctx.signal).then(
      (me) => me.user,
      () => undefined,
    );
    await ctx.signOut();
    const text = user
      ? `Signed out: the repository session of ${user} on this server has ended (its access token lapses unused within the service's token lifetime). The next tool call asks you to sign in again.`
      : "You were not signed in to the repository on this server; nothing to end. The next tool call asks you to sign in.";
    return { structured: { signedOut: true, ...(user ? { user } : {}) }, text };
  },
});

export default signOut;
