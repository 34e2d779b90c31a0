/**
 * The one error of the API layer. Everything in it is safe to log and to show: the method and path are
 * redacted at construction (token, password and similar query parameters), the service's message is parsed
 * defensively from whatever body came back, and no request body or header is kept.
 */

/** Query parameters whose values never leave this module. Matched case-insensitively. */
const SECRET_PARAMS = new Set([
  "token",
  "accesstoken",
  "access_token",
  "refreshtoken",
  "refresh-token",
  "refresh_token",
  "password",
  "pass",
  "secret",
  "apikey",
  "api_key",
  "key",
  "hash",
  "code",
  "continuationtoken",
  "twofactortoken",
  "challengetoken",
  "x-amz-security-token",
  "x-amz-signature",
  "signature",
  "sig",
]);

/** Returns `path` (a path with query, or an absolute URL) with secret query values and userinfo replaced. */
export function redactPath(path: string): string {
  let out = path;
  // user:password@host in an absolute URL
  out = out.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1[redacted]@");
  const q = out.indexOf("?");
  if (q < 0) return out;
  const hashAt = out.indexOf("#", q);
  const query = out.slice(q + 1, hashAt < 0 ? undefined : hashAt);
  const redacted = query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, " "));
      } catch {
        // keep the raw name; a malformed name is still matched as written
      }
      return eq >= 0 && SECRET_PARAMS.has(name.toLowerCase()) ? `${rawName}=[redacted]` : pair;
    })
    .join("&");
  return `${out.slice(0, q)}?${redacted}`;
}

const MAX_MESSAGE = 300;

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
}

/**
 * The service's own explanation from an error body: JSON `{message}` (or `error`, `errorMessage`), an XML
 * element named `message`/`Message`/`error`, or plain text. HTML pages and empty bodies give undefined, and
 * anything long is clipped, so a proxy's error page cannot flood a log or a model's context.
 */
export function serviceMessageFrom(body: string | undefined, contentType = ""): string | undefined {
  if (!body) return undefined;
  const text = body.trim();
  if (!text) return undefined;
  const type = contentType.toLowerCase();
  if (type.includes("json") || /^[{[]/.test(text)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object") {
        const o = parsed as Record<string, unknown>;
        for (const key of ["message", "errorMessage", "error_description", "error", "detail", "title"]) {
          const v = o[key];
          if (typeof v === "string" && v.trim()) return clip(v);
          if (v && typeof v === "object" && typeof (v as { message?: unknown }).message === "string") {
            return clip((v as { message: string }).message);
          }
        }
        return undefined;
      }
      if (typeof parsed === "string") return clip(parsed);
    } catch {
      // not JSON after all; fall through to text handling
    }
  }
  if (/^<!doctype html|^<html/i.test(text) || type.includes("html")) {
    const title = text.match(/<title[^>]*>([^<]*)<\/title>/i)?.[1];
    return title ? clip(title) : undefined;
  }
  if (text.startsWith("<")) {
    const m = text.match(/<(?:[\w.-]+:)?(?:message|Message|error|Error|Reason)\b[^>]*>([^<]+)</);
    return m?.[1] ? clip(m[1]) : undefined;
  }
  return clip(text);
}

export interface ServiceErrorInit {
  /** HTTP status, or 0 when no response arrived (network failure, timeout, abort). */
  status: number;
  /** What the caller was doing, e.g. "entity.get". */
  operation: string;
  method: string;
  /** Path with query, or an absolute URL; redacted here. */
  path: string;
  serviceMessage?: string;
  /** Explanation when there is no service message (network failures, unparseable replies). */
  detail?: string;
  cause?: unknown;
  /** From Retry-After, when the service sent one. */
  retryAfterMs?: number;
  attempts?: number;
  /** The connection failed after a reply began (cut off mid-body): a network failure with a status. */
  network?: boolean;
  /** A 404 for the endpoint itself, not for an item (see missing-endpoint.ts). */
  missingEndpoint?: boolean;
}

export class ServiceError extends Error {
  override readonly name: string = "ServiceError";
  readonly status: number;
  readonly operation: string;
  readonly method: string;
  /** Redacted: safe to log. */
  readonly path: string;
  readonly serviceMessage: string | undefined;
  /** What was wrong when the service gave no message of its own ("the reply was cut off"). */
  readonly detail: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** Attempts made, including the first: 1 means the request was not retried. */
  readonly attempts: number;
  readonly #network: boolean;
  readonly #missingEndpoint: boolean;

  constructor(init: ServiceErrorInit) {
    const path = redactPath(init.path);
    const what = init.status === 0 ? "no response" : `HTTP ${init.status}`;
    const why = init.serviceMessage ?? init.detail;
    super(`${init.operation} failed: ${what}${why ? `: ${why}` : ""} (${init.method} ${path})`, {
      cause: init.cause,
    });
    this.status = init.status;
    this.operation = init.operation;
    this.method = init.method;
    this.path = path;
    this.serviceMessage = init.serviceMessage;
    this.detail = init.detail;
    this.#network = init.network ?? false;
    this.#missingEndpoint = init.status === 404 && (init.missingEndpoint ?? false);
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts ?? 1;
  }

  /** No reply, or a reply cut off by the connection. */
  get isNetworkError(): boolean {
    return this.status === 0 || this.#network;
  }
  /** The service has no such item (a 404 that is not for a missing endpoint). */
  get isNotFound(): boolean {
    return this.status === 404 && !this.#missingEndpoint;
  }
  /** The service has no such endpoint: an older release, a proxy that blocks it, an unlicensed module. */
  get isMissingEndpoint(): boolean {
    return this.#missingEndpoint;
  }
  get isUnauthorized(): boolean {
    return this.status === 401;
  }
  get isForbidden(): boolean {
    return this.status === 403;
  }

  /**
   * Structured form for logs and structured tool errors; carries no body, header or secret. pino treats
   * any object with a `message` as an error and logs `stack: ""` when there is none, so the stack (whose
   * first line is the already-redacted message) is kept, and the cause gets a one-line stack of its own.
   */
  toJSON() {
    const cause = this.cause as { code?: unknown; message?: unknown; name?: unknown } | undefined;
    const causeMessage = typeof cause?.message === "string" ? redactPath(cause.message) : undefined;
    const causeName = typeof cause?.name === "string" ? cause.name : "Error";
    return {
      name: this.name,
      message: this.message,
      ...(this.stack ? { stack: this.stack } : {}),
      status: this.status,
      operation: this.operation,
      method: this.method,
      path: this.path,
      ...(this.serviceMessage ? { serviceMessage: this.serviceMessage } : {}),
      ...(this.detail ? { detail: this.detail } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      attempts: this.attempts,
      ...(this.#missingEndpoint ? { missingEndpoint: true } : {}),
      ...(cause
        ? {
            cause: {
              ...(typeof cause.code === "string" ? { code: cause.code } : {}),
              ...(causeMessage !== undefined
                ? { message: causeMessage, stack: `${causeName}: ${causeMessage}` }
                : {}),
            },
          }
        : {}),
    };
  }
}

/**
 * A URL (e.g. a reply's Paging/Next) that points outside the configured service's API: never requested,
 * since every request carries the access token.
 */
export class ForeignUrlError extends Error {
  override readonly name = "ForeignUrlError";
  constructor(
    readonly url: string,
    /** Where followed URLs must lead, e.g. "https://host/preservica/api/". */
    readonly expected: string,
    /** Why it was refused, e.g. "another host", "outside the API's path". */
    readonly reason = "not on the configured service",
  ) {
    super(
      `Refusing to follow ${redactPath(url)}: ${reason}; only URLs under ${expected} are requested ` +
        "(they carry the access token)",
    );
  }
}

/** A reply the client cannot read as what the operation promised (e.g. an entity with no Ref). */
export class UnexpectedResponseError extends ServiceError {
  override readonly name: string = "UnexpectedResponseError";
}

function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 90 ? `${min} min` : `${Math.round(min / 60)} h`;
}

/**
 * When to try a failed request again, saying only what happened: "after 3 attempts" only when the client
 * did retry, and the service's own Retry-After (when it was too long to wait for, or retries ran out) as a
 * time. Starts with "; " or is empty, for the end of a sentence.
 */
export function retryAdvice(err: ServiceError, now = Date.now()): string {
  const tried = err.attempts > 1 ? ` after ${err.attempts} attempts` : "";
  if (err.retryAfterMs !== undefined && err.retryAfterMs > 0) {
    const at = new Date(now + err.retryAfterMs).toISOString().slice(11, 16);
    return `${tried}; the service asks to wait: try again in ${duration(err.retryAfterMs)} (after ${at} UTC)`;
  }
  return `${tried}; try again shortly`;
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

/**
 * A ServiceError for a 404 about an item: the service has no such thing (or hides it from this user). A
 * 404 for a missing endpoint is not one: callers that turn "not found" into "no such item" must let it
 * through to the error boundary, which names the missing endpoint.
 */
export function isNotFound(e: unknown): e is ServiceError {
  return isServiceError(e) && e.isNotFound;
}

/** Thrown when a document the service sent (or stored) is not well-formed XML; tools catch it by type. */
export { XmlParseError } from "./xml.js";
