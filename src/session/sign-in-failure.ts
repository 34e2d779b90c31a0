import type { ServiceError } from "../api/errors.js";

/**
 * Why signing in to the repository service failed, said so that a person knows what to change: the service
 * (by its display URL) and the configuration variable to fix. Made by the session, shown as is by the tool
 * error boundary (every tool call and `whoami` while sign-in fails) and on stderr at start-up.
 */

export type SignInProblem =
  /** No answer: nothing listening, DNS, TLS, a firewall, or no reply in time. Tried again on the next call. */
  | "unreachable"
  /** The service refused the username/password (401/403 from the login itself). */
  | "credentials-refused"
  /** The service answered, but not as a sign-in endpoint does (404, 5xx, an unreadable reply). */
  | "service-failed";

export class SignInFailed extends Error {
  override readonly name = "SignInFailed";
  constructor(
    readonly problem: SignInProblem,
    /** Display form of the service URL (no credentials or query string). */
    readonly serviceUrl: string,
    message: string,
    /** The ServiceError behind it (redacted already: safe to log). */
    override readonly cause: ServiceError,
  ) {
    super(message, { cause });
  }
  toJSON() {
    return { name: this.name, problem: this.problem, message: this.message, cause: this.cause.toJSON() };
  }
}

/** Statuses a proxy in front of a (re)starting service answers: worth another sign-in attempt. */
const TRANSIENT_STATUS = new Set([0, 502, 503, 504]);

/**
 * A sign-in attempt worth repeating after a pause: no answer at all, or a gateway's "try later". Never a
 * refusal (a wrong password is not retried; that could lock the account). A cancelled request has status 0
 * too: the session checks its own signal before retrying.
 */
export function signInMayRetry(err: ServiceError): boolean {
  return TRANSIENT_STATUS.has(err.status);
}

/**
 * A URL as people may see it (whoami, the start-up banner, error messages): no user:password, query string
 * or fragment, which may carry secrets. Unparseable input gives a placeholder, never the raw text.
 */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "(an invalid URL)";
  }
}

export function signInFailure(
  err: ServiceError,
  who: { url: string; username: string; tenant?: string },
): SignInFailed {
  const at = `the repository service at ${who.url}`;
  if (err.status === 0) {
    const why = err.cause ? describeCause(err) : "no answer";
    return new SignInFailed(
      "unreachable",
      who.url,
      `Cannot sign in: ${at} cannot be reached (${why}). Check PRESERVATION_URL and that the service is running and reachable from this machine; each tool call tries again, so no restart is needed once it is.`,
      err,
    );
  }
  if (err.status === 401 || err.status === 403) {
    const said = err.serviceMessage ? ` (it said: "${err.serviceMessage}")` : "";
    const tenant = who.tenant ? ` with tenant ${who.tenant}` : "";
    return new SignInFailed(
      "credentials-refused",
      who.url,
      `Cannot sign in: ${at} refused the username "${who.username}"${tenant} and its password${said}. Fix PRESERVATION_USERNAME or PRESERVATION_PASSWORD${who.tenant ? " (or PRESERVATION_TENANT)" : ""} in the MCP server's configuration and restart it.`,
      err,
    );
  }
  const what =
    err.status === 404
      ? "has no sign-in endpoint there (HTTP 404): PRESERVATION_URL is probably not the service's base URL"
      : err.status >= 500
        ? `failed the sign-in (HTTP ${err.status}); try again shortly, or check PRESERVATION_URL`
        : `answered the sign-in with something else than a sign-in reply (HTTP ${err.status}): check that PRESERVATION_URL is the service's base URL`;
  return new SignInFailed("service-failed", who.url, `Cannot sign in: ${at} ${what}.`, err);
}

/** "connection refused" and friends, from the transport's error code; never the raw message (it may hold URLs). */
function describeCause(err: ServiceError): string {
  const cause = err.cause as { code?: unknown; name?: unknown } | undefined;
  // A deadline (AbortSignal.timeout) or a cancelled call: the service did not answer in time.
  if (cause?.name === "TimeoutError" || cause?.name === "AbortError") return "no reply in time";
  const code = cause?.code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused: nothing is listening there";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve";
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "the connection timed out";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "the connection was dropped";
    case "UND_ERR_HEADERS_TIMEOUT":
      return "no reply in time";
    default:
      return typeof code === "string" ? code : "no answer";
  }
}
