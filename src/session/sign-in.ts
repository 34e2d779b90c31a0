import {
  acceptedContent,
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { isServiceError } from "../api/errors.js";
import type { ChallengeRequired, Session } from "./session.js";

/**
 * Finishing a sign-in that needs a person (e-mail challenge for temporary users, two-factor code) by asking
 * them directly, where the client can show a form: the tool call that hit the challenge returns an
 * input-required result (the SDK turns it into an elicitation for 2025-era clients), and on re-entry the code
 * completes the sign-in before the tool runs. Clients without elicitation get the `complete_sign_in` tool.
 * The code is a one-time value the service sent the person; no password is ever asked for this way.
 */

const SIGN_IN_KEY = "sign_in_code";
const CodeSchema = z.object({
  code: z
    .string()
    .min(4)
    .max(64)
    .meta({ title: "Sign-in code", description: "The one-time code you received" }),
});

export function clientCanElicit(server: McpServer): boolean {
  const caps = server.server.getClientCapabilities();
  // A bare `elicitation: {}` (2025-06-18 clients) means form mode.
  return (
    caps?.elicitation !== undefined &&
    (caps.elicitation.form !== undefined || caps.elicitation.url === undefined)
  );
}

export function askForSignInCode(challenge: ChallengeRequired): InputRequiredResult {
  return inputRequired({
    inputRequests: {
      [SIGN_IN_KEY]: inputRequired.elicit({
        message: `The repository needs one more step to sign in as ${challenge.user}. ${challenge.prompt}`,
        requestedSchema: CodeSchema,
      }),
    },
  });
}

/** Whether this call carries the person's answer to askForSignInCode (nearly every call does not). */
export function hasSignInAnswer(ctx: ServerContext): boolean {
  return (
    ctx.mcpReq.inputResponses !== undefined &&
    inputResponse(ctx.mcpReq.inputResponses, SIGN_IN_KEY).kind === "elicit"
  );
}

/**
 * On re-entry after askForSignInCode: completes the sign-in with the person's code. Returns undefined when
 * there was nothing to complete (or it succeeded), or an error result to return instead of running the tool.
 */
export async function completeSignInFromAnswer(
  ctx: ServerContext,
  session: Session,
  onSignedIn: () => Promise<void>,
): Promise<CallToolResult | undefined> {
  const view = inputResponse(ctx.mcpReq.inputResponses, SIGN_IN_KEY);
  if (view.kind !== "elicit") return undefined;
  const answer = acceptedContent(ctx.mcpReq.inputResponses, SIGN_IN_KEY, CodeSchema);
  if (!answer) {
    return {
      isError: true,
      content: [{ type: "text", text: "Sign-in was not completed (the person declined); nothing was done." }],
    };
  }
  const state = session.state;
  if (state.kind !== "challenge-required") return undefined;
  try {
    if (state.challenge.kind === "email-challenge")
      await session.completeChallenge(answer.code, ctx.mcpReq.signal);
    else await session.complete2fa(answer.code, ctx.mcpReq.signal);
  } catch (err) {
    const why = isServiceError(err) && err.serviceMessage ? ` (${err.serviceMessage})` : "";
    return {
      isError: true,
      content: [
        {
          type: "text",
          text: `The sign-in code was not accepted${why}; nothing was done. Call the tool again to be asked for a new code.`,
        },
      ],
    };
  }
  await onSignedIn();
  return undefined;
}
