import { z } from "zod";
import {
  ForeignUrlError,
  isServiceError,
  retryAdvice,
  type ServiceError,
  UnexpectedResponseError,
} from "../api/errors.js";
import { endpointOf, whyEndpointMissing } from "../api/missing-endpoint.js";
import { LocalPathError } from "../local/roots.js";
import { ChallengeRequired } from "../session/session.js";
import { SignInFailed } from "../session/sign-in-failure.js";
import { StateUnavailableError } from "../state/types.js";
import { UserInputError } from "../tools/define.js";

/** The overall deadline of one tool call (PRESERVATION_TOOL_TIMEOUT_SECS) passed; see server/call-boundary.ts. */
export class ToolDeadlineExceeded extends Error {
  override readonly name = "ToolDeadlineExceeded";
  constructor(
    readonly seconds: number,
    /** Display URL of the service when the call was still waiting for a sign-in. */
    readonly signingInTo?: string,
  ) {
    super(
      signingInTo
        ? `Signing in to the repository service at ${signingInTo} did not finish within ${seconds} s (PRESERVATION_TOOL_TIMEOUT_SECS); check PRESERVATION_URL and that the service is reachable, then try again.`
        : `The repository service did not answer within ${seconds} s (PRESERVATION_TOOL_TIMEOUT_SECS); try again or narrow the request.`,
    );
  }
}

/**
 * What a failed tool call was, for the log and the audit trail:
 * - "refused": the request itself was refused, so nothing was done: arguments or a local path the tool
 *   rejected, the service's 400, 403, 404, 409 or 422, or the shared state away (writes are refused then);
 * - "failed": an expected failure all the same (the service down or erring, signing in, the deadline): logged
 *   as a warning;
 * - "bug": anything else: logged as an error with its stack.
 */
export type FailureKind = "refused" | "failed" | "bug";

const REFUSED_STATUSES = new Set([400, 403, 404, 409, 422]);

export function classify(err: unknown): FailureKind {
  if (
    err instanceof StateUnavailableError ||
    err instanceof UserInputError ||
    err instanceof LocalPathError
  ) {
    return "refused";
  }
  if (isServiceError(err)) return REFUSED_STATUSES.has(err.status) ? "refused" : "failed";
  if (
    err instanceof ChallengeRequired ||
    err instanceof SignInFailed ||
    err instanceof ToolDeadlineExceeded
  ) {
    return "failed";
  }
  return "bug";
}

/**
 * The one place a thrown error becomes what the model reads: one short, actionable sentence, never a stack
 * trace, raw XML or secret. Status and the service's own message go to the log and the structured error.
 */
export function toUserMessage(err: unknown, tool: string): string {
  // The shared state's own message says what is away and that writes wait for it.
  if (
    err instanceof UserInputError ||
    err instanceof LocalPathError ||
    err instanceof StateUnavailableError
  ) {
    return err.message;
  }
  // Both are written for the person already: the service, the variable to fix, what happens next.
  if (err instanceof SignInFailed || err instanceof ToolDeadlineExceeded) return err.message;
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
      case err instanceof UnexpectedResponseError && err.detail !== undefined:
        return `The service's reply could not be read (${err.operation}): ${err.detail}.`;
      case err.status === 0:
        return `The repository service did not answer (${err.operation}); check that it is running and reachable, then retry.`;
      case err.status === 400:
        return `The service rejected the request.${said} Check the arguments.`;
      case err.status === 401:
        return "The service refused the session even after signing in again; check the configured credentials.";
      case err.status === 403:
        return `You do not have permission for this: your roles do not allow it on this item's security tag.${said} Nothing was changed. Carry on without it, or ask a repository administrator for access (\`whoami\` lists your roles).`;
      case err.isMissingEndpoint:
        return missingEndpointMessage(err);
      case err.status === 404:
        return `Not found: check the reference; find items with \`search\` or \`browse\`.`;
      case err.status === 409 || err.status === 422:
        return `The service refused this as it stands (HTTP ${err.status}).${said} Nothing was changed.`;
      case err.status === 429 || err.status >= 500:
        return `The service is busy or failing (HTTP ${err.status}, ${err.operation})${retryAdvice(err)}.${said}`;
      default:
        return `The service answered HTTP ${err.status} (${err.operation}).${said}`;
    }
  }
  return `${tool} failed unexpectedly; the details are in the server log.`;
}

/**
 * A 404 for the endpoint, not for an item: which call the service lacks and what that means, so the
 * person stops checking refs and asks whoever runs the service (or uses another tool).
 */
function missingEndpointMessage(err: ServiceError): string {
  const endpoint = endpointOf(err.path);
  // The service's own words stay in the structured error: ours lists every API, too long for here.
  return `This service has no ${endpoint} endpoint: ${err.method} ${endpoint} answered HTTP 404. It may be ${whyEndpointMissing(endpoint)}. This is not about the item you asked for: retrying or another ref will not help; ask whoever runs the service to make that endpoint available, or carry on without it.`;
}
