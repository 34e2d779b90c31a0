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
}

export class ServiceError extends Error {
  override readonly name: string = "ServiceError";
  readonly status: number;
  readonly operation: string;
  readonly method: string;
  /** Redacted: safe to log. */
  readonly path: string;
  readonly serviceMessage: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly attempts: number;

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
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts ?? 1;
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }
  get isNotFound(): boolean {
    return this.status === 404;
  }
  get isUnauthorized(): boolean {
    return this.status === 401;
  }
  get isForbidden(): boolean {
    return this.status === 403;
  }

  /** Structured form for logs and structured tool errors; carries no body, header or secret. */
  toJSON() {
    const cause = this.cause as { code?: unknown; message?: unknown } | undefined;
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      operation: this.operation,
      method: this.method,
      path: this.path,
      ...(this.serviceMessage ? { serviceMessage: this.serviceMessage } : {}),
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      attempts: this.attempts,
      ...(cause
        ? {
            cause: {
              ...(typeof cause.code === "string" ? { code: cause.code } : {}),
              ...(typeof cause.message === "string" ? { message: redactPath(cause.message) } : {}),
            },
          }
        : {}),
    };
  }
}

/** A URL from a reply (e.g. Paging/Next) that points away from the configured service: never followed. */
export class ForeignUrlError extends Error {
  override readonly name = "ForeignUrlError";
  constructor(
    readonly url: string,
    readonly expectedOrigin: string,
  ) {
    super(
      `Refusing to follow ${redactPath(url)}: it is not on the configured service (${expectedOrigin}); ` +
        "only links back to the same service are followed",
    );
  }
}

/** A reply the client cannot read as what the operation promised (e.g. an entity with no Ref). */
export class UnexpectedResponseError extends ServiceError {
  override readonly name: string = "UnexpectedResponseError";
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}

/** A ServiceError for a 404: the service has no such thing (or hides it from this user). */
export function isNotFound(e: unknown): e is ServiceError {
  return isServiceError(e) && e.isNotFound;
}

/** Thrown when a document the service sent (or stored) is not well-formed XML; tools catch it by type. */
export { XmlParseError } from "./xml.js";
