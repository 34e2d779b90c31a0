import type { Readable } from "node:stream";
import type { Logger } from "pino";
import type { Dispatcher, Pool } from "undici";
import { silentLogger } from "../log.js";
import {
  BodyCutOff,
  type BufferedReply,
  isErrorStatus,
  ReplyTooLarge,
  requestBuffered,
} from "./buffered-reply.js";
import { ForeignUrlError, ServiceError, serviceMessageFrom, UnexpectedResponseError } from "./errors.js";
import { Exchange, type Where } from "./exchange.js";
import { isMissingEndpointReply } from "./missing-endpoint.js";
import { LeanPool, poolRequest } from "./undici-lean.js";
import { parseXml, XmlParseError } from "./xml.js";

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
  /** Largest reply read into memory and parsed; defaults to the client's (MAX_PARSED_BODY). Not for "stream". */
  maxBodyBytes?: number;
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
  /** The headers themselves while they are at hand (a fresh token), else a promise of them. */
  headers(attempt: AuthAttempt): Record<string, string> | Promise<Record<string, string>>;
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
  /** Largest XML, JSON or text reply read and parsed (default MAX_PARSED_BODY); streams are not limited. */
  maxBodyBytes?: number;
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
/** Failures while a reply's body arrives that another attempt may not meet (the connection dropped). */
const RETRYABLE_BODY_CODES = new Set([
  ...RETRYABLE_CODES,
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  "ERR_STREAM_PREMATURE_CLOSE",
]);
const MAX_ERROR_BODY = 64 * 1024;
/**
 * The largest XML, JSON or text reply read into memory and parsed: 8 MiB. Parsing is synchronous, and an
 * 8.8 MB listing held the event loop for seconds; a page of a listing is far smaller than this. Beyond
 * it the request fails with a clear error. Streamed bodies (downloads) are not limited.
 */
export const MAX_PARSED_BODY = 8 * 1024 * 1024;
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

function formatBytes(n: number): string {
  return n >= 1024 * 1024 && n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

function tooLargeDetail(limit: number): string {
  return `the reply is larger than ${formatBytes(limit)}, more than this client reads at once; ask for less (a smaller page or a narrower query)`;
}

function cutOffDetail(cut: BodyCutOff, bodyTimeoutMs: number): string {
  const cause = cut.cause as { code?: string; message?: string } | undefined;
  if (cause?.code === "UND_ERR_BODY_TIMEOUT")
    return `the reply stopped arriving after ${cut.received} bytes (nothing for ${Math.round(bodyTimeoutMs / 1000)} s)`;
  return `the reply was cut off after ${cut.received} bytes: the connection closed (${cause?.code || cause?.message || "unknown error"})`;
}

const HTML_START = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b/i;

/** What an HTML page answered with 2xx is, for the message: its title, if any. */
function htmlDetail(text: string, expected: string): string {
  const title = text
    .match(/<title[^>]*>([^<]{1,120})<\/title>/i)?.[1]
    ?.replace(/\s+/g, " ")
    .trim();
  return (
    `the reply was not ${expected} but an HTML page${title ? ` ("${title}")` : ""}: ` +
    "is PRESERVATION_URL the API's base URL (not a sign-in or web page)?"
  );
}

/** Why an XML document did not parse: cut off (no end tag for the root) or otherwise broken. */
function xmlDetail(text: string, err: unknown): string {
  if (!text.trim()) return "the reply was empty where an XML document was expected";
  const body = text.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/gi, "").trim();
  const root = body.match(/^<([A-Za-z_][\w.:-]*)/)?.[1];
  const closed =
    root !== undefined &&
    (new RegExp(`</${root.replace(/[.]/g, "\\.")}\\s*>$`).test(body) || /^<[^>]*\/>$/.test(body));
  if (root && !closed)
    return `the reply was cut off: the XML document ends before its root element <${root}> closes (${Buffer.byteLength(text)} bytes)`;
  const why = err instanceof XmlParseError ? err.message : "parse error";
  return `the reply is not readable XML (${why})`;
}

function isXmlType(type: string) {
  return /[/+]xml\b/.test(type);
}
function isJsonType(type: string) {
  return /[/+]json\b/.test(type);
}

/** What the caller asked for, for messages: "XML", "JSON" or "XML or JSON". */
function expectedFormat(accept: string | undefined): string {
  const a = (accept ?? DEFAULT_ACCEPT).toLowerCase();
  const xml = /[/+]xml/.test(a);
  const json = /[/+]json/.test(a);
  return xml && json ? "XML or JSON" : json ? "JSON" : xml ? "XML" : "what was asked for";
}

/** Why a complete reply cannot be used; HttpClient.request turns it into an UnexpectedResponseError. */
class Unreadable extends Error {}

/**
 * Turns a complete body into the reply the caller asked for: XML parsed, JSON parsed, text, or bytes.
 * Anything unreadable is refused with what was wrong (an HTML page, a cut-off document, broken JSON).
 */
function decodeReply<T>(
  buf: Buffer,
  status: number,
  headers: Record<string, string>,
  req: RequestOptions,
): HttpResponse<T> {
  const type = (headers["content-type"] ?? "").toLowerCase();
  const responseType = req.responseType ?? "auto";
  const reply = (data: unknown, text?: string) =>
    (text !== undefined ? { status, headers, data, text } : { status, headers, data }) as HttpResponse<T>;
  if (responseType === "buffer") return reply(buf);
  const text = buf.toString("utf8");
  if (responseType === "text") return reply(text, text);
  const wantsHtml = /html/i.test(req.accept ?? "");
  if (!wantsHtml && (type.includes("html") || (!isJsonType(type) && HTML_START.test(text.slice(0, 1024)))))
    throw new Unreadable(htmlDetail(text, expectedFormat(req.accept)));
  if (isXmlType(type) || (!type && text.trimStart().startsWith("<"))) {
    try {
      return reply(parseXml(text), text);
    } catch (err) {
      throw new Unreadable(xmlDetail(text, err), { cause: err });
    }
  }
  if (isJsonType(type)) {
    if (!text.trim()) return reply(undefined, text);
    try {
      return reply(JSON.parse(text), text);
    } catch (err) {
      const cut = /end of (?:JSON )?input|Unterminated/i.test((err as Error).message);
      throw new Unreadable(
        cut
          ? `the reply was cut off: the JSON document ends early (${buf.length} bytes)`
          : `the reply is not readable JSON (${(err as Error).message.slice(0, 120)})`,
        { cause: err },
      );
    }
  }
  if (type.startsWith("text/") || !type) return reply(text, text);
  return reply(buf);
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** A path under /api/ with nothing URL normalisation could rewrite: see HttpClient.resolve. */
const SIMPLE_API_PATH = /^\/api(?:\/[A-Za-z0-9_-]+)+$/;
/** Encoded slashes and backslashes (also double-encoded, and double-encoded dots), which some servers and
 * proxies decode before routing: a path holding one could lead elsewhere than it reads. */
const ENCODED_SEPARATOR = /%(?:2f|5c)|%25(?:2e|2f|5c)/i;

/**
 * Where a request may go: a path ("/api/entity/...", under the base URL's path) or an absolute URL from a
 * reply (Paging/Next, fragment links). Every request carries the access token, so the target must be on
 * the configured service *and* under its API: same scheme, host and port, and after normalisation (dot
 * segments resolved, percent-encoded dots included, backslashes read as slashes, as servers do) a path
 * under `{basePath}/api/`. A base URL with a path (https://host/preservica) shares its host with other
 * applications; `/preservica/../other-app/` or `http:/host/...` must not reach them. Throws ForeignUrlError.
 */
export function resolveServiceTarget(
  base: { origin: string; basePath: string },
  pathOrUrl: string,
): { path: string; url: string } {
  const apiRoot = `${base.basePath}/api/`;
  const refuse = (reason: string) => new ForeignUrlError(pathOrUrl, base.origin + apiRoot, reason);
  let u: URL;
  if (SCHEME.test(pathOrUrl)) {
    // "http:/host/x" and "http:host/x" are read relative to the base by URL parsers: refuse, do not guess
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(pathOrUrl)) throw refuse("not a full URL (scheme://host/path)");
    try {
      u = new URL(pathOrUrl);
    } catch {
      throw refuse("not a valid URL");
    }
  } else if (pathOrUrl.startsWith("/")) {
    const networkPath = /^[/\\]{2}/.test(pathOrUrl); // "//host/x": another host
    try {
      u = new URL(networkPath ? pathOrUrl : base.origin + base.basePath + pathOrUrl, base.origin);
    } catch {
      throw refuse("not a valid path");
    }
  } else {
    throw new TypeError(`Request paths start with "/": ${pathOrUrl}`);
  }
  if (u.origin !== base.origin) throw refuse("another scheme, host or port");
  if (u.username || u.password) throw refuse("it carries credentials");
  if (ENCODED_SEPARATOR.test(u.pathname)) throw refuse("its path holds an encoded slash or dot");
  // The Workflow API lives at {basePath}/sdb/rest/ on the real service (pyPreservica's workflow client).
  if (!u.pathname.startsWith(apiRoot) && !u.pathname.startsWith(`${base.basePath}/sdb/rest/`))
    throw refuse("outside the service's API");
  const path = u.pathname + u.search;
  return { path, url: u.origin + path };
}

/** A reply as the request loop sees it: read whole, or (a download) its head with the body as a stream. */
interface Reply extends BufferedReply {
  stream?: Dispatcher.ResponseData["body"];
}

const EMPTY = Buffer.alloc(0);

/** The message of an error reply: read already, or the first MAX_ERROR_BODY bytes of a download's body. */
async function errorText(reply: Reply): Promise<string> {
  return reply.stream ? readLimited(reply.stream, MAX_ERROR_BODY) : reply.body.toString("utf8");
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
  private readonly maxBodyBytes: number;

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
    this.maxBodyBytes = opts.maxBodyBytes ?? MAX_PARSED_BODY;
    this.pool = new LeanPool(this.origin, {
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
   * Resolves a path or a URL from a reply to a request target under this service's API: see
   * resolveServiceTarget. A crafted reply cannot send our token to another host or application.
   */
  resolve(pathOrUrl: string): { path: string; url: string } {
    const path = this.targetPath(pathOrUrl);
    return { path, url: this.origin + path };
  }

  /** resolve's path alone (what a request needs). */
  private targetPath(pathOrUrl: string): string {
    // The paths the API layer builds itself ("/api/entity/information-objects/<uuid>") are already in
    // normal form: letters, digits, "-", "_" and "/" only, so no dot segment, percent-encoding, backslash,
    // empty segment or query that URL parsing could change. Those skip the parse (it is run per request);
    // everything else, including every link from a reply, takes the full check.
    if (SIMPLE_API_PATH.test(pathOrUrl)) return this.basePath + pathOrUrl;
    return resolveServiceTarget({ origin: this.origin, basePath: this.basePath }, pathOrUrl).path;
  }

  /** Whether debug lines are written: a request gathers their fields (and the time) only then. */
  private debugOn(): boolean {
    const log = this.log as Partial<Pick<Logger, "isLevelEnabled">>;
    return typeof log.isLevelEnabled === "function" ? log.isLevelEnabled("debug") : true;
  }

  /**
   * Sends a request: authenticated through the hook before every attempt, retried within bounds when it is
   * idempotent and the failure may pass, its reply decoded by content type; every failure one ServiceError or
   * UnexpectedResponseError. The async function itself stays small (V8 saves its whole frame on the heap at
   * each await, and this runs for every request): what is rare lives in afterFailedSend and afterReply.
   */
  async request<T = unknown>(req: RequestOptions): Promise<HttpResponse<T>> {
    const ex = this.prepare(req);
    for (;;) {
      ex.attempt++;
      const hook = ex.hook;
      if (hook) {
        // The session answers at once while its token is fresh: awaiting only a promise saves a microtask
        // turn on every request.
        const h = hook.headers(ex);
        ex.useHeaders(h instanceof Promise ? await h : h);
      }
      if (ex.debug) ex.started = Date.now();
      let reply: Reply;
      try {
        reply = await (ex.streamed
          ? this.open(ex.dispatch, ex.signal, hook, ex.sent)
          : requestBuffered(this.pool, ex.dispatch, ex));
      } catch (err) {
        await this.afterFailedSend(ex, err); // throws, or waits out the back-off before the next attempt
        continue;
      }
      if (ex.debug) this.logRequest(ex, reply.status);
      // A success (nearly every reply): decoded here, with no further async step.
      if (reply.status >= 200 && reply.status < 300) return this.decoded<T>(ex, reply);
      const res = await this.afterReply<T>(ex, reply);
      if (res !== undefined) return res;
    }
  }

  /** The request as sent: target, query, body and headers, and what its attempts share. */
  private prepare(req: RequestOptions): Exchange {
    const method = req.method ?? "GET";
    let path = this.targetPath(req.path);
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
    if (req.headers) for (const k in req.headers) headers[k.toLowerCase()] = req.headers[k] as string;
    const idempotent = req.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const replayable = !(body && typeof body === "object" && "pipe" in body);
    // headersTimeout and bodyTimeout are the pool's (set in the constructor), so not repeated here
    const dispatch = { method, path, headers, body: body ?? null, idempotent };
    return new Exchange(
      req,
      method,
      path,
      dispatch,
      req.auth !== false ? this.authHook : undefined,
      idempotent && replayable,
      req.maxBodyBytes ?? this.maxBodyBytes,
      MAX_ERROR_BODY,
      this.debugOn(),
    );
  }

  /**
   * An attempt that failed before its reply was read whole. Throws the error to give, or resolves after the
   * back-off when another attempt may succeed.
   */
  private async afterFailedSend(ex: Exchange, err: unknown): Promise<void> {
    const { req, method, attempt } = ex;
    // The head arrived, then the reply could not be read whole.
    const headArrived = err instanceof ReplyTooLarge || err instanceof BodyCutOff;
    if (headArrived && ex.debug) this.logRequest(ex, err.status);
    if (err instanceof ReplyTooLarge)
      throw this.unreadable(ex, err.status, attempt, tooLargeDetail(ex.limit));
    if (req.signal?.aborted) throw this.cancelled(ex, err, attempt);
    if (err instanceof BodyCutOff) {
      // Retried like a connection that fails before the head.
      const code = (err.cause as { code?: string } | undefined)?.code ?? "";
      if (ex.mayRetry && RETRYABLE_BODY_CODES.has(code) && attempt < this.retry.attempts) {
        const delay = this.backoff(attempt);
        this.log.warn(
          {
            operation: req.operation,
            method,
            status: err.status,
            code,
            received: err.received,
            attempt,
            delayMs: delay,
          },
          "reply cut off; retrying",
        );
        await this.pause(delay, ex, attempt);
        return;
      }
      throw this.unreadable(
        ex,
        err.status,
        attempt,
        cutOffDetail(err, this.opts.bodyTimeoutMs),
        err.cause,
        true,
      );
    }
    const code = (err as { code?: string }).code ?? "";
    if (ex.mayRetry && RETRYABLE_CODES.has(code) && attempt < this.retry.attempts) {
      const delay = this.backoff(attempt);
      this.log.warn(
        { operation: req.operation, method, code, attempt, delayMs: delay },
        "connection failed; retrying",
      );
      await this.pause(delay, ex, attempt);
      return;
    }
    throw this.failure(ex, {
      status: 0,
      detail: `could not reach the service (${code || (err as Error).message})`,
      cause: err,
      attempts: attempt,
    });
  }

  /**
   * A reply other than a success: the response to give, undefined to try again (after a fresh sign-in or the
   * service's back-off), or a thrown error.
   */
  private async afterReply<T>(ex: Exchange, reply: Reply): Promise<HttpResponse<T> | undefined> {
    const { req, method, path, attempt, hook } = ex;
    const { status, headers: resHeaders } = reply;
    if (status === 401 && hook && !ex.authRetried && !req.passStatus?.includes(401)) {
      const text = await errorText(reply);
      ex.authRetried = true;
      const retryOk = await hook.unauthorized(ex);
      if (retryOk && ex.mayRetry) {
        ex.attempt--; // a re-authentication is not one of the bounded transport retries
        return undefined;
      }
      throw this.failure(ex, {
        status,
        serviceMessage: serviceMessageFrom(text, resHeaders["content-type"]),
        detail: "the service refused the access token",
        attempts: attempt,
      });
    }

    if (RETRYABLE_STATUS.has(status) && ex.mayRetry && attempt < this.retry.attempts) {
      const retryAfter = parseRetryAfter(resHeaders["retry-after"]);
      if (retryAfter === undefined || retryAfter <= this.retry.maxRetryAfterMs) {
        await reply.stream?.dump().catch(() => {});
        const delay = retryAfter ?? this.backoff(attempt);
        this.log.warn(
          { operation: req.operation, method, status, attempt, delayMs: delay },
          "service busy or unavailable; retrying",
        );
        await this.pause(delay, ex, attempt);
        return undefined;
      }
    }

    if (isErrorStatus(status, req.passStatus)) {
      const text = await errorText(reply);
      const serviceMessage = serviceMessageFrom(text, resHeaders["content-type"]);
      throw this.failure(ex, {
        status,
        serviceMessage,
        missingEndpoint:
          status === 404 && isMissingEndpointReply(path, text, resHeaders["content-type"], serviceMessage),
        retryAfterMs: parseRetryAfter(resHeaders["retry-after"]),
        attempts: attempt,
      });
    }
    return this.decoded<T>(ex, reply);
  }

  /** A reply the caller takes: its stream, nothing (no body), or the body decoded by content type. */
  private decoded<T>(ex: Exchange, reply: Reply): HttpResponse<T> {
    const { status, headers } = reply;
    if (reply.stream) return { status, headers, data: reply.stream as T };
    if (status === 204 || status === 205 || status === 304 || ex.method === "HEAD") {
      return { status, headers, data: undefined as T };
    }
    try {
      return decodeReply<T>(reply.body, status, headers, ex.req);
    } catch (err) {
      if (!(err instanceof Unreadable)) throw err;
      throw this.unreadable(ex, status, ex.attempt, err.message, err.cause);
    }
  }

  /** A download: the head, with the body left as a stream for the caller (or read here if it is an error). */
  private async open(
    dispatch: Dispatcher.DispatchOptions,
    signal: AbortSignal | undefined,
    hook: AuthHook | undefined,
    sent: Record<string, string>,
  ): Promise<Reply> {
    let res: Dispatcher.ResponseData;
    try {
      res = await poolRequest(this.pool, { ...dispatch, signal: signal ?? null });
    } finally {
      hook?.release?.(sent);
    }
    return { status: res.statusCode, headers: headerRecord(res.headers), body: EMPTY, stream: res.body };
  }

  private logRequest(ex: Exchange, status: number): void {
    // ms: until the reply was read (a download: until its head arrived)
    this.log.debug(
      {
        operation: ex.req.operation,
        method: ex.method,
        status,
        ms: Date.now() - ex.started,
        attempt: ex.attempt,
      },
      "service request",
    );
  }

  private failure(
    where: Where,
    init: Omit<ConstructorParameters<typeof ServiceError>[0], "operation" | "method" | "path">,
  ): ServiceError {
    return new ServiceError({
      operation: where.req.operation,
      method: where.method,
      path: where.path,
      ...init,
    });
  }

  private cancelled(where: Where, cause: unknown, attempt: number): ServiceError {
    return this.failure(where, { status: 0, detail: "request cancelled", cause, attempts: attempt });
  }

  /** A reply that arrived but cannot be used (too large, cut off, not what was asked for). */
  private unreadable(
    where: Where,
    status: number,
    attempt: number,
    detail: string,
    cause?: unknown,
    network = false,
  ): UnexpectedResponseError {
    return new UnexpectedResponseError({
      status,
      operation: where.req.operation,
      method: where.method,
      path: where.path,
      detail,
      cause,
      attempts: attempt,
      network,
    });
  }

  /** Exponential back-off with jitter: base·2^(n-1), capped, scaled by a random 50–100 %. */
  private backoff(attempt: number): number {
    const exp = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(exp * (0.5 + this.random() * 0.5));
  }

  private async pause(ms: number, where: Where, attempt: number) {
    try {
      await this.sleep(ms, where.req.signal);
    } catch (err) {
      throw this.cancelled(where, err, attempt);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
