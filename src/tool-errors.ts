import { z } from "zod";
import { ForeignUrlError, isServiceError } from "./api/errors.js";
import { ChallengeRequired } from "./session.js";
import { UserInputError } from "./tools/define.js";

/**
 * The one place a thrown error becomes what the model reads: one short, actionable sentence, never a stack
 * trace, raw XML or secret. Status and the service's own message go to the log and the structured error.
 */
export function toUserMessage(err: unknown, tool: string): string {
  if (err instanceof UserInputError) return err.message;
  if (err instanceof ChallengeRequired) {
    return `Sign-in is not complete: ${err.prompt} Then call \`complete_sign_in\` with the code.`;
  }
  if (err instanceof ForeignUrlError)
    return "The service returned a link to another site; it was not followed.";
  if (err instanceof z.ZodError) {
    const issue = err.issues[0];
    return `Invalid input${issue?.path.length ? ` for ${issue.path.join(".")}` : ""}: ${issue?.message ?? "check the arguments"}.`;
  }
  if (isServiceError(err)) {
    const said = err.serviceMessage ? ` The service said: "${err.serviceMessage}".` : "";
    switch (true) {
      case err.status === 0:
        return `The repository service did not answer (${err.operation}); check that it is running and reachable, then retry.`;
      case err.status === 400:
        return `The service rejected the request.${said} Check the arguments.`;
      case err.status === 401:
        return "The service refused the session even after signing in again; check the configured credentials.";
      case err.status === 403:
        return `You do not have permission for this: your roles do not allow it on this item's security tag. Carry on without it, or ask a repository administrator for access (\`whoami\` lists your roles).`;
      case err.status === 404:
        return `Not found: check the reference; find items with \`search\` or \`browse\`.`;
      case err.status === 429 || err.status >= 500:
        return `The service is busy or failing (HTTP ${err.status}, ${err.operation}) even after retries; try again shortly.${said}`;
      default:
        return `The service answered HTTP ${err.status} (${err.operation}).${said}`;
    }
  }
  return `${tool} failed unexpectedly; the details are in the server log.`;
}
