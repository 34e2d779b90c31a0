import { z } from "zod";
import { isServiceError } from "../../api/errors.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { ADDITIVE } from "../support/hints.js";

const completeSignIn = defineTool({
  name: "complete_sign_in",
  title: "Complete sign-in",
  description:
    "Finish a sign-in that needs a person: the code from the challenge e-mail (temporary users) or the current code from the authenticator app (two-factor). Only needed when another tool says sign-in is not complete.",
  toolset: "session",
  inputSchema: z.object({
    code: z
      .string()
      .trim()
      .min(4)
      .max(64)
      .describe("The code the person read from the e-mail or authenticator app"),
  }),
  outputSchema: z.object({ user: z.string(), roles: z.array(z.string()), tokenExpiresAt: z.string() }),
  // Changes the session, not the repository: read-only mode keeps it, or two-factor and temporary users
  // could never finish signing in there.
  localOnly: true,
  annotations: ADDITIVE,
  async handler({ code }, ctx: ToolContext) {
    const state = ctx.session.state;
    if (state.kind !== "challenge-required") {
      throw new UserInputError("No sign-in challenge is pending; the session is already signed in.");
    }
    try {
      if (state.challenge.kind === "email-challenge") await ctx.session.completeChallenge(code, ctx.signal);
      else await ctx.session.complete2fa(code, ctx.signal);
    } catch (err) {
      // A refused code is the person's to fix, not the configured credentials' (what a bare 401 would say).
      if (!isServiceError(err) || err.status < 400 || err.status >= 500) throw err;
      const said = err.serviceMessage ? ` (the service said: "${err.serviceMessage}")` : "";
      const fresh =
        state.challenge.kind === "email-challenge"
          ? "the code from the newest challenge e-mail"
          : "the code the authenticator app shows now";
      throw new UserInputError(
        `The code was not accepted${said}; sign-in is still pending. Ask the person for ${fresh} and call \`complete_sign_in\` again.`,
      );
    }
    await ctx.signedIn();
    const me = await ctx.session.whoAmI(ctx.signal);
    return {
      structured: { user: me.user, roles: me.roles, tokenExpiresAt: me.tokenExpiresAt },
      text: `Signed in as ${me.user}. The tool list now shows what your roles allow.`,
    };
  },
});

export default completeSignIn;
