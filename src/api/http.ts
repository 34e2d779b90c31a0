import type { Readable } from "node:stream";
import type { Logger } from "pino";
import { type Dispatcher, Pool } from "undici";
import { silentLogger } from "../log.js";
import { ForeignUrlError, ServiceError, serviceMessageFrom, UnexpectedResponseError } from "./errors.js";
import { parseXml, type XmlElement, XmlParseError } from "./xml.js";

/**
 * The only transport of the API layer: one undici pool per service origin with keep-alive and timeouts,
 * replies parsed by content type, bounded retries for idempotent requests, one error type, and a hook
 * through which the session authenticates every attempt.
 */

export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "DELETE" | "PATCH" | "OPTIONS";

export type ParamValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly (string | number | boolean)[];
export type Params = Record<string, ParamValue> | URLSearchParams;

export type ResponseType = "auto" | "text" | "buffer" | "stream";

export interface RequestOptions {
  method?: HttpMethod;
  /** A path under the service base ("/api/entity/..."), or an absolute URL on the service's own origin. */
  path: string;
  query?: Params;
  /** Form fields, sent as application/x-www-form-urlencoded. */
  form?: Params;
  /** Raw body; a stream cannot be replayed, so a request with one is never retried. */
  body?: string | Uint8Array | Readable;
  headers?: Record<string, string>;
  /** Accept header; defaults to one that prefers XML, then JSON. */
  accept?: string;
  /** What the caller is doing, for errors and logs: "entity.get". */
  operation: string;
  /** May be sent again after a failure. Defaults to true for GET/HEAD/PUT/DELETE/OPTIONS. */
  idempotent?: boolean;
  /** "auto" parses by content type; "stream" hands back the body unread (downloads). */
  responseType?: ResponseType;
  signal?: AbortSignal;
  /** Set false for requests that carry no access token (login, refresh). */
  auth?: boolean;
  /** Error statuses handed back as responses instead of thrown (e.g. 401 from login, read for its body). */
  passStatus?: readonly number[];
}

export interface HttpResponse<T = unknown> {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** XML → parsed element tree (see xml.ts); JSON → value; text → string; "stream" → Readable. */
  data: T;
  /** The body text for textual replies (XML, JSON, text), e.g. to show a metadata document verbatim. */
  text?: string;
}

/** Context handed to the auth hook for one attempt. */
export interface AuthAttempt {
  operation: string;
  idempotent: boolean;
  signal?: AbortSignal;
}

/**
 * How the session authenticates requests (octokit's `hook.wrap("request", auth.hook)`, split into the two
 * moments that matter). `headers` runs before **every** attempt, so a retry after a back-off carries a
 * token that is still fresh; `release` runs when that attempt's response head arrived or it failed;
 * `unauthorized` runs at most once per request, on a 401.
 */
export interface AuthHook {
  headers(attempt: AuthAttempt): Promise<Record<string, string>>;
  release?(sent: Record<string, string>): void;
  /** Resolve true when one retry with fresh headers may succeed (e.g. the session logged in again). */
  unauthorized(attempt: AuthAttempt & { sent: Record<string, string> }): Promise<boolean>;
}

export interface RetryOptions {
  /** Attempts in total, including the first. Default 3. */
  attempts?: number;
  /** First back-off; doubled per attempt, with jitter. Default 250 ms. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error is raised with `retryAfterMs`. */
  maxRetryAfterMs?: number;
}

export interface HttpClientOptions {
  /** Service base URL, e.g. https://eu.preservica.com or http://127.0.0.1:8080 (a path prefix is kept). */
  baseUrl: string;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  connections?: number;
  keepAliveTimeoutMs?: number;
  retry?: RetryOptions;
  userAgent?: string;
  logger?: Pick<Logger, "debug" | "info" | "warn" | "error">;
  /** Injectable for tests of the back-off itself; defaults to setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_CODES = new Set([
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
]);
const IDEMPOTENT_METHODS = new Set<HttpMethod>(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const MAX_ERROR_BODY = 64 * 1024;
const DEFAULT_ACCEPT = "application/xml, application/json;q=0.9, text/plain;q=0.8, */*;q=0.5";
export const USER_AGENT = "preservation-mcp/0.1";

function appendParams(target: URLSearchParams, params: Params | undefined) {
  if (!params) return;
  if (params instanceof URLSearchParams) {
    for (const [k, v] of params) target.append(k, v);
    return;
  }
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) target.append(k, String(item));
    else target.append(k, String(v));
  }
}

function headerRecord(h: Dispatcher.ResponseData["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : String(v);
  }
  return out;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function readLimited(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const b = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      chunks.push(b);
      size += b.length;
      if (size >= limit) break;
    }
  } catch {
    // a broken error body still leaves us the status
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

function isXmlType(type: string) {
  return /[/+]xml\b/.test(type);
}
function isJsonType(type: string) {
  return /[/+]json\b/.test(type);
}

export class HttpClient {
  readonly origin: string;
  /** Path prefix of the base URL ("" or e.g. "/preservica"), without a trailing slash. */
  readonly basePath: string;
  private readonly pool: Pool;
  private readonly opts: Required<Pick<HttpClientOptions, "headersTimeoutMs" | "bodyTimeoutMs">> &
    HttpClientOptions;
  private readonly retry: Required<RetryOptions>;
  private readonly log: Pick<Logger, "debug" | "info" | "warn" | "error">;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private authHook: AuthHook | undefined;

  constructor(opts: HttpClientOptions) {
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new TypeError(
        `The service URL "${opts.baseUrl}" is not a valid URL (e.g. https://eu.preservica.com)`,
      );
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new TypeError(`The service URL must be http or https, got ${base.protocol}`);
    }
    if (base.username || base.password) {
      throw new TypeError("Put credentials in the configuration, not in the service URL");
    }
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, "");
    this.opts = { headersTimeoutMs: 60_000, bodyTimeoutMs: 120_000, ...opts };
    this.retry = {
      attempts: Math.max(1, opts.retry?.attempts ?? 3),
      baseDelayMs: opts.retry?.baseDelayMs ?? 250,
      maxDelayMs: opts.retry?.maxDelayMs ?? 5_000,
      maxRetryAfterMs: opts.retry?.maxRetryAfterMs ?? 30_000,
    };
    this.log = opts.logger ?? silentLogger;
    this.sleep = opts.sleep ?? defaultSleep;
    this.random = opts.random ?? Math.random;
    this.pool = new Pool(this.origin, {
      connections: opts.connections ?? 8,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? 10_000,
      keepAliveMaxTimeout: 60_000,
      connect: { timeout: opts.connectTimeoutMs ?? 10_000 },
      headersTimeout: this.opts.headersTimeoutMs,
      bodyTimeout: this.opts.bodyTimeoutMs,
    });
  }

  /** Installs the authentication hook (the session). One at a time. */
  useAuth(hook: AuthHook | undefined): void {
    this.authHook = hook;
  }

  /**
   * Resolves a path or a URL from a reply to a request target on this service. Absolute URLs (Paging/Next,
   * fragment links) must be on the configured origin: a crafted reply cannot send our token elsewhere.
   */
  resolve(pathOrUrl: string): { path: string; url: string } {
    if (/^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) || pathOrUrl.startsWith("//")) {
      let u: URL;
      try {
        u = new URL(pathOrUrl, this.origin);
      } catch {
        throw new ForeignUrlError(pathOrUrl, this.origin);
      }
      if (u.origin !== this.origin || u.username || u.password)
        throw new ForeignUrlError(pathOrUrl, this.origin);
      return { path: u.pathname + u.search, url: u.origin + u.pathname + u.search };
    }
    if (!pathOrUrl.startsWith("/")) throw new TypeError(`Request paths start with "/": ${pathOrUrl}`);
    const path = this.basePath + pathOrUrl;
    return { path, url: this.origin + path };
  }

  async request<T = unknown>(req: RequestOptions): Promise<HttpResponse<T>> {
    const method = req.method ?? "GET";
    const target = this.resolve(req.path);
    let path = target.path;
    if (req.query) {
      const q = new URLSearchParams();
      appendParams(q, req.query);
      const qs = q.toString();
      if (qs) path += (path.includes("?") ? "&" : "?") + qs;
    }
    let body: string | Uint8Array | Readable | undefined = req.body;
    const headers: Record<string, string> = {
      "user-agent": this.opts.userAgent ?? USER_AGENT,
      accept: req.accept ?? DEFAULT_ACCEPT,
    };
    if (req.form) {
      const f = new URLSearchParams();
      appendParams(f, req.form);
      body = f.toString();
      headers["content-type"] = "application/x-www-form-urlencoded;charset=UTF-8";
    }
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    const replayable = !(body && typeof body === "object" && "pipe" in body);
    const idempotent = req.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const mayRetry = idempotent && replayable;
    const useAuth = req.auth !== false && this.authHook !== undefined;
    const attemptCtx: AuthAttempt = { operation: req.operation, idempotent, signal: req.signal };
    const fail = (
      init: Omit<ConstructorParameters<typeof ServiceError>[0], "operation" | "method" | "path">,
    ) => new ServiceError({ operation: req.operation, method, path, ...init });

    let authRetried = false;
    let attempt = 0;
    for (;;) {
      attempt++;
      const sent = useAuth && this.authHook ? await this.authHook.headers(attemptCtx) : {};
      const started = Date.now();
      let res: Dispatcher.ResponseData;
      try {
        res = await this.pool.request({
          method,
          path,
          headers: { ...headers, ...sent },
          body: body ?? null,
          signal: req.signal ?? null,
          idempotent,
          headersTimeout: this.opts.headersTimeoutMs,
          bodyTimeout: this.opts.bodyTimeoutMs,
        });
      } catch (err) {
        if (useAuth) this.authHook?.release?.(sent);
        if (req.signal?.aborted)
          throw fail({ status: 0, detail: "request cancelled", cause: err, attempts: attempt });
        const code = (err as { code?: string }).code ?? "";
        if (mayRetry && RETRYABLE_CODES.has(code) && attempt < this.retry.attempts) {
          const delay = this.backoff(attempt);
          this.log.warn(
            { operation: req.operation, method, code, attempt, delayMs: delay },
            "connection failed; retrying",
          );
          await this.pause(delay, req.signal, fail, attempt);
          continue;
        }
        throw fail({
          status: 0,
          detail: `could not reach the service (${code || (err as Error).message})`,
          cause: err,
          attempts: attempt,
        });
      }
      if (useAuth) this.authHook?.release?.(sent);
      const status = res.statusCode;
      const resHeaders = headerRecord(res.headers);
      this.log.debug(
        { operation: req.operation, method, status, ms: Date.now() - started, attempt },
        "service request",
      );

      if (status === 401 && useAuth && !authRetried && this.authHook && !req.passStatus?.includes(401)) {
        const text = await readLimited(res.body, MAX_ERROR_BODY);
        authRetried = true;
        const retryOk = await this.authHook.unauthorized({ ...attemptCtx, sent });
        if (retryOk && mayRetry) {
          attempt--; // a re-authentication is not one of the bounded transport retries
          continue;
        }
        throw fail({
          status,
          serviceMessage: serviceMessageFrom(text, resHeaders["content-type"]),
          detail: "the service refused the access token",
          attempts: attempt,
        });
      }

      if (RETRYABLE_STATUS.has(status) && mayRetry && attempt < this.retry.attempts) {
        const retryAfter = parseRetryAfter(resHeaders["retry-after"]);
        if (retryAfter === undefined || retryAfter <= this.retry.maxRetryAfterMs) {
          await res.body.dump().catch(() => {});
          const delay = retryAfter ?? this.backoff(attempt);
          this.log.warn(
            { operation: req.operation, method, status, attempt, delayMs: delay },
            "service busy or unavailable; retrying",
          );
          await this.pause(delay, req.signal, fail, attempt);
          continue;
        }
      }

      if ((status >= 400 || (status >= 300 && status !== 304)) && !req.passStatus?.includes(status)) {
        const text = await readLimited(res.body, MAX_ERROR_BODY);
        throw fail({
          status,
          serviceMessage: serviceMessageFrom(text, resHeaders["content-type"]),
          retryAfterMs: parseRetryAfter(resHeaders["retry-after"]),
          attempts: attempt,
        });
      }

      return (await this.readBody<T>(res, resHeaders, req, fail, attempt)) as HttpResponse<T>;
    }
  }

  /** Exponential back-off with jitter: base·2^(n-1), capped, scaled by a random 50–100 %. */
  private backoff(attempt: number): number {
    const exp = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(exp * (0.5 + this.random() * 0.5));
  }

  private async pause(
    ms: number,
    signal: AbortSignal | undefined,
    fail: (init: { status: number; detail: string; cause?: unknown; attempts: number }) => ServiceError,
    attempt: number,
  ) {
    try {
      await this.sleep(ms, signal);
    } catch (err) {
      throw fail({ status: 0, detail: "request cancelled", cause: err, attempts: attempt });
    }
  }

  private async readBody<T>(
    res: Dispatcher.ResponseData,
    headers: Record<string, string>,
    req: RequestOptions,
    fail: (init: { status: number; detail: string; cause?: unknown; attempts: number }) => ServiceError,
    attempt: number,
  ): Promise<HttpResponse<T | XmlElement | string | Buffer | Readable | undefined>> {
    const status = res.statusCode;
    const type = (headers["content-type"] ?? "").toLowerCase();
    const responseType = req.responseType ?? "auto";
    if (responseType === "stream") return { status, headers, data: res.body };
    if (status === 204 || status === 205 || status === 304 || req.method === "HEAD") {
      await res.body.dump().catch(() => {});
      return { status, headers, data: undefined };
    }
    let buf: Buffer;
    try {
      buf = Buffer.from(await res.body.arrayBuffer());
    } catch (err) {
      throw fail({ status: 0, detail: "the reply was cut off", cause: err, attempts: attempt });
    }
    if (responseType === "buffer") return { status, headers, data: buf };
    const text = buf.toString("utf8");
    if (responseType === "text") return { status, headers, data: text, text };
    const unreadable = (detail: string, cause: unknown) =>
      new UnexpectedResponseError({
        status,
        operation: req.operation,
        method: req.method ?? "GET",
        path: req.path,
        detail,
        cause,
      });
    if (isXmlType(type) || (!type && text.trimStart().startsWith("<"))) {
      try {
        return { status, headers, data: parseXml(text), text };
      } catch (err) {
        const why = err instanceof XmlParseError ? err.message : "parse error";
        throw unreadable(`the reply is not readable XML (${why})`, err);
      }
    }
    if (isJsonType(type)) {
      if (!text.trim()) return { status, headers, data: undefined, text };
      try {
        return { status, headers, data: JSON.parse(text) as T, text };
      } catch (err) {
        throw unreadable("the reply is not readable JSON", err);
      }
    }
    if (type.startsWith("text/") || !type) return { status, headers, data: text, text };
    return { status, headers, data: buf };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
