import { z } from "zod";
import { isServiceError } from "../api/errors.js";
import type { ToolContext } from "./context.js";
import { type AnyTool, defineTool, UserInputError } from "./define.js";

const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The signed-in user of the repository: username, full name, tenant, roles, and when the access token and the session expire. Use it to explain what the user may do.",
  toolset: "session",
  inputSchema: z.object({}),
  outputSchema: z.object({
    user: z.string(),
    fullName: z.string().optional(),
    email: z.string().optional(),
    tenant: z.string().optional(),
    roles: z.array(z.string()),
    tokenExpiresAt: z.string().describe("ISO 8601; the token is refreshed automatically before this"),
    sessionEndsAt: z.string().describe("ISO 8601; a fresh sign-in happens automatically after this"),
    service: z.string().describe("Base URL of the repository service"),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_args, ctx: ToolContext) {
    const me = await ctx.session.whoAmI(ctx.signal);
    const { sessionStartedAt: _started, ...rest } = me;
    // The display form: a URL may carry credentials or a query string that no answer should repeat.
    const service = ctx.session.displayUrl;
    const structured = { ...rest, service };
    const text = `${me.fullName ? `${me.fullName} (${me.user})` : me.user}${me.tenant ? `, tenant ${me.tenant}` : ""}; roles: ${me.roles.join(", ") || "none"}; token valid until ${me.tokenExpiresAt}; service ${service}`;
    return { structured, text };
  },
});

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
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
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
      text: `Signed in as ${me.user}. Restart the conversation's tool list if role-specific tools are missing.`,
    };
  },
});

export const SESSION_TOOLS: readonly AnyTool[] = [whoami, completeSignIn];
