import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpBindings, serve } from "@hono/node-server";
import { hostHeaderValidation, originValidation } from "@modelcontextprotocol/hono";
import {
  type AuthInfo,
  createMcpHandler,
  isJsonContentType,
  isLegacyRequest,
  type McpServer,
} from "@modelcontextprotocol/server";
import { type Context, Hono, type Next } from "hono";
import type { Logger } from "pino";
import { type HttpRate, isLoopback } from "../config.js";
import { LegacySessions } from "../live/legacy-sessions.js";
import { ListenStreams } from "../live/listen-streams.js";
import type { LiveResources } from "../live/live-resources.js";
import type { Watching } from "../server/server.js";
import type { SharedState } from "../state/types.js";
import { MAX_BODY_BYTES, readBounded, topLevelId } from "./body.js";
import {
  hasAnyScope,
  InvalidToken,
  KeysUnavailable,
  metadataUrlFor,
  type OAuthSettings,
  protectedResourceMetadata,
  READ_SCOPE,
  TokenVerifier,
} from "./oauth/resource-server.js";
import { limiterFor } from "./rate-limit.js";

/** MCP over Streamable HTTP, fed by one era-agnostic server factory (2026-07-28 and 2025-11-25 clients). */

export interface HttpServing {
  url: string;
  /**
   * Graceful: stops accepting connections, answers requests that arrive on open connections 503, waits for
   * the requests in flight (at most `drainMs`), then closes every connection.
   */
  close(): Promise<void>;
}

/** Whether the server can serve tool calls now (`/readyz`); the reason is for an operator, and holds no secret. */
export type Readiness =
  /** `degraded`: serving, but something is refused (the shared state store away: reads go on, writes do not). */
  { ready: true; degraded?: string } | { ready: false; reason: string };

export interface HttpOptions {
  host: string;
  port: number;
  token?: string;
  /** Requests per client (token bucket per bearer token, else per remote address); null or absent = none. */
  rate?: HttpRate | null;
  /** Where budgets are counted when several instances share a store; absent or in-process = per instance. */
  state?: SharedState;
  /** Asked by `/readyz`; absent = always ready. */
  readiness?: () => Readiness;
  /** How long `close()` waits for requests in flight (default 10 s). */
  drainMs?: number;
  /** The largest request body accepted on /mcp (default 4 MiB). */
  maxBodyBytes?: number;
  /** OAuth 2.1 resource server: JWT access tokens from this issuer (the static token, if set, still works). */
  oauth?: OAuthSettings;
  /**
   * Live resources: the webhook receiver at /webhook, resource subscriptions in both eras (2025 sessions,
   * 2026 listen streams), and the updates. Started once the socket listens; stopped by `close()`.
   */
  live?: LiveResources;
  /** More pages served beside /mcp (person mode: the sign-in page), behind the same Host/Origin checks. */
  pages?: Hono;
}

/**
 * What the MCP server factory learns of the request: the verified OAuth token, when there is one, and the
 * resource subscriptions the instance is to offer (live resources on).
 */
export type HttpServerFactory = (ctx: {
  authInfo?: AuthInfo;
  watching?: Watching;
}) => McpServer | Promise<McpServer>;

type Env = { Bindings: HttpBindings; Variables: { parsedBody: unknown; authInfo?: AuthInfo } };

/**
 * Streamable HTTP at /mcp, stateless. Host and Origin are validated for loopback binds (DNS rebinding);
 * a bearer token is required whenever one is configured (and config refuses non-loopback binds without one).
 * Around /mcp: `/healthz` and `/readyz` for load balancers and orchestrators (no token needed, no
 * configuration shown), a body size limit, a per-client rate limit, and a graceful close.
 */
export async function serveOverHttp(
  factory: HttpServerFactory,
  opts: HttpOptions,
  log: Logger,
): Promise<HttpServing> {
  const live = opts.live;
  const handler = createMcpHandler(
    // A 2026-07-28 instance may offer `subscriptions/listen` resource updates once the service sends changes.
    (ctx) =>
      factory({
        ...(ctx.authInfo ? { authInfo: ctx.authInfo } : {}),
        ...(live?.active && ctx.era === "modern" ? { watching: { listen: true } } : {}),
      }),
    {
      onerror: (err) => log.warn({ err: err.message }, "mcp http error"),
      ...(live ? { bus: live.bus } : {}),
    },
  );
  const sessions = live
    ? new LegacySessions(
        (ctx) =>
          factory({
            ...(ctx.authInfo ? { authInfo: ctx.authInfo } : {}),
            watching: { sink: ctx.subscriptions },
          }),
        live,
        log,
      )
    : undefined;
  const listens = new ListenStreams(live);
  // `--host [::1]` is the URL spelling; the socket wants the bare address (and the SDK only recognises `::1`).
  const bindHost = opts.host.replace(/^\[(.*)\]$/, "$1");
  let draining = false;
  // Our own Hono app rather than createMcpHonoApp: that one parses the body before any middleware added to it
  // can run, so its 413 cannot name the request's id, and it reads a body whose declared length is too large.
  const app = new Hono<Env>();
  // On a loopback bind every loopback name is the same server, whichever address the socket has: a client
  // may say localhost, 127.0.0.1 or [::1] (URL hostnames keep IPv6 brackets). Explicit lists, so the check
  // cannot silently fall away for a spelling the SDK does not recognise as loopback.
  if (isLoopback(bindHost)) app.use("*", hostHeaderValidation(LOOPBACK_NAMES));
  // Before the Origin check: the sign-in page sends no referrer, so its form posts carry `Origin: null`; it
  // guards itself against cross-site posts (a SameSite=Strict cookie and a keyed form token).
  if (opts.pages) app.route("/", opts.pages);
  if (isLoopback(bindHost)) app.use("*", originValidation(LOOPBACK_NAMES));
  // Probes carry no token; the answers say up/ready and, when not ready, why in words holding no configuration.
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => {
    const r: Readiness = draining
      ? { ready: false, reason: "shutting down" }
      : (opts.readiness?.() ?? { ready: true });
    if (!r.ready) return c.json({ status: "not ready", reason: r.reason }, 503);
    return c.json({ status: "ready", ...(r.degraded ? { degraded: r.degraded } : {}) });
  });
  app.use("/mcp", async (c, next) => {
    if (!draining) return next();
    c.header("Connection", "close");
    return jsonRpcError(c, 503, SHUTTING_DOWN_CODE, SHUTTING_DOWN, null, { "Retry-After": "1" });
  });
  // The resource identifier tokens must be issued for: the configured audience, else this server's own
  // /mcp URL, known once the socket is bound (no request arrives before that).
  let resource = opts.oauth?.audience ?? "";
  if (opts.oauth) {
    const { issuer } = opts.oauth;
    // RFC 9728: at the well-known path, and with the resource's path appended (where clients look first).
    const metadata = (c: Context<Env>) =>
      c.json(protectedResourceMetadata(resource, issuer), 200, { "Cache-Control": "max-age=300" });
    app.get("/.well-known/oauth-protected-resource", metadata);
    app.get("/.well-known/oauth-protected-resource/*", metadata);
  }
  // The repository service's webhook deliveries: no bearer token (the service cannot send one); each is
  // verified by its HMAC signature instead (live/receiver.ts).
  if (live) app.post("/webhook", (c) => live.receive(c.req.raw));
  app.use("/mcp", jsonBody(opts.maxBodyBytes ?? MAX_BODY_BYTES));
  if (opts.oauth) {
    const verifier = new TokenVerifier(opts.oauth, () => resource);
    app.use(
      "/mcp",
      oauthAuth(verifier, opts.token, () => resource, log),
    );
  } else if (opts.token) app.use("/mcp", bearerAuth(opts.token));
  if (opts.rate) app.use("/mcp", rateLimit(opts.rate, opts.state));
  app.all("/mcp", async (c) => {
    const authInfo = c.get("authInfo");
    const parsedBody = c.get("parsedBody");
    const request = c.req.raw;
    if (
      sessions &&
      live?.active &&
      sessions.claims(request, parsedBody) &&
      (await isLegacyRequest(request, parsedBody))
    ) {
      return sessions.handle(request, parsedBody, authInfo, callerOf(c));
    }
    const response = handler.fetch(request, { parsedBody, ...(authInfo ? { authInfo } : {}) });
    return live ? listens.follow(parsedBody, response) : response;
  });

  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: bindHost }, () => resolve(s));
    s.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `port ${opts.port} on ${opts.host} is already in use; choose another with --port (0 picks a free one)`,
            )
          : err,
      ),
    );
  });
  const inFlight = trackInFlight(server as Server, () => draining);
  const { port } = server.address() as AddressInfo;
  const host = bindHost.includes(":") ? `[${bindHost}]` : bindHost;
  const url = `http://${host}:${port}/mcp`;
  resource ||= url;
  // The service challenges the receiver while it subscribes: only now that the socket listens.
  live?.start();
  return {
    url,
    async close() {
      draining = true;
      // Subscription streams never end by themselves: end them first, so the drain waits only for calls;
      // webhook subscriptions are removed meanwhile, and 2025 sessions closed once their calls are answered.
      listens.endAll();
      sessions?.endStreams();
      const unsubscribed = live?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const pending = inFlight.count();
      if (pending > 0) log.info({ requests: pending }, "finishing requests in flight before stopping");
      if (!(await inFlight.settled(opts.drainMs ?? DEFAULT_DRAIN_MS))) {
        log.warn({ requests: inFlight.count() }, "stopping with requests still in flight (drain time over)");
      }
      await sessions?.close();
      await unsubscribed;
      (server as Server).closeAllConnections();
      await closed;
    },
  };
}

const DEFAULT_DRAIN_MS = 10_000;
const SHUTTING_DOWN =
  "The server is shutting down: send the request again (to another instance, if there is one)";

/**
 * Counts requests from arrival until their response is finished or abandoned: a streamed (SSE) answer
 * counts until its last byte, which a Hono middleware, done once the Response object exists, would not see.
 */
function trackInFlight(server: Server, draining: () => boolean) {
  let count = 0;
  let idle: (() => void) | undefined;
  server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
    count++;
    // Once draining, no connection is kept open for another request.
    if (draining()) res.shouldKeepAlive = false;
    res.once("close", () => {
      count--;
      if (count === 0) idle?.();
    });
  });
  return {
    count: () => count,
    /** Resolves true once nothing is in flight, false when `ms` pass first. */
    settled(ms: number): Promise<boolean> {
      if (count === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * JSON-RPC error code of the bearer check's 401. JSON-RPC reserves -32768…-32000; MCP assigns codes from that
 * block (2026-07-28: -32020…-32099) and the SDK already answers -32001 for "Session not found". Neither the
 * MCP spec nor the SDK defines a JSON-RPC code for "unauthorized" (the SDK's own bearer gate answers an OAuth
 * error body, not JSON-RPC), so this is an application code outside the reserved block: the HTTP status,
 * negated. Clients act on the 401 status and WWW-Authenticate; the code only keeps the body well-formed.
 */
export const UNAUTHORIZED_CODE = -401;
/** The other refusals before the MCP server is reached follow the same rule: the HTTP status, negated. */
export const TOO_LARGE_CODE = -413;
export const RATE_LIMITED_CODE = -429;
export const FORBIDDEN_CODE = -403;
export const SHUTTING_DOWN_CODE = -503;

/** A JSON-RPC error answered at the HTTP layer, with the refused request's id when it is known. */
function jsonRpcError(
  c: Context,
  status: 400 | 401 | 403 | 413 | 429 | 503,
  code: number,
  message: string,
  id: string | number | null,
  headers: Record<string, string> = {},
) {
  return c.json({ jsonrpc: "2.0", error: { code, message }, id }, status, headers);
}

/** Fixed-length digests, so comparing takes the same time whatever the length of the token sent. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** The request's id when the body is a single JSON-RPC request (a batch or a notification answers null). */
function requestId(body: unknown): string | number | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** What a client without the static token is told, in the body and in the challenge (RFC 6750 §3). */
export const STATIC_TOKEN_REFUSAL =
  "send Authorization: Bearer <PRESERVATION_HTTP_TOKEN>; this server takes the token its operator set, not OAuth";

/**
 * The static token's gate. A missing or wrong token gets **403**, not RFC 6750's 401: every MCP client answers
 * a 401 by starting OAuth discovery (the MCP authorization specification tells it to), which can never succeed
 * against a static token, so the person saw "Interactive OAuth requires a TTY" or an empty sign-in window and
 * never this message. A 403 without `insufficient_scope` is shown as it is (checked with the MCP SDK client and
 * the MCP Inspector CLI). The challenge still says what RFC 6750 would: `invalid_token` and how to fix it.
 */
function bearerAuth(expected: string) {
  const want = digest(expected);
  return async (c: Context<Env>, next: Next) => {
    if (!timingSafeEqual(digest(bearerOf(c)), want)) {
      return jsonRpcError(
        c,
        403,
        FORBIDDEN_CODE,
        `Forbidden: ${STATIC_TOKEN_REFUSAL}`,
        requestId(c.get("parsedBody")),
        {
          "WWW-Authenticate": `Bearer realm="preservation-mcp", error="invalid_token", error_description="${STATIC_TOKEN_REFUSAL}"`,
        },
      );
    }
    await next();
  };
}

/**
 * OAuth: a JWT access token from the configured issuer, for this resource, with one of this server's scopes
 * (the static token, when also configured, is accepted as well). Every refusal carries the challenge RFC 9728
 * and the MCP authorization specification ask for: `WWW-Authenticate: Bearer resource_metadata="…"`, from
 * which a client finds the authorization server. The verified token reaches the MCP handler as `authInfo`,
 * without the token itself.
 */
function oauthAuth(
  verifier: TokenVerifier,
  staticToken: string | undefined,
  resource: () => string,
  log: Logger,
) {
  const want = staticToken ? digest(staticToken) : undefined;
  return async (c: Context<Env>, next: Next) => {
    const id = requestId(c.get("parsedBody"));
    const challenge = (params: Record<string, string>) =>
      `Bearer ${Object.entries({ ...params, resource_metadata: metadataUrlFor(resource()) })
        .map(([k, v]) => `${k}="${headerSafe(v)}"`)
        .join(", ")}`;
    const bearer = bearerOf(c);
    if (!bearer) {
      return jsonRpcError(
        c,
        401,
        UNAUTHORIZED_CODE,
        "Unauthorized: send Authorization: Bearer <access token> from the authorization server named in this server's OAuth metadata",
        id,
        { "WWW-Authenticate": challenge({}) },
      );
    }
    if (want && timingSafeEqual(digest(bearer), want)) return next();
    try {
      const auth = await verifier.verify(bearer);
      if (!hasAnyScope(auth)) {
        const reason = `the access token has neither ${READ_SCOPE} nor preservation:write scope`;
        return jsonRpcError(c, 403, FORBIDDEN_CODE, `Forbidden: ${reason}`, id, {
          "WWW-Authenticate": challenge({
            error: "insufficient_scope",
            scope: READ_SCOPE,
            error_description: reason,
          }),
        });
      }
      c.set("authInfo", auth);
      return next();
    } catch (err) {
      if (err instanceof InvalidToken) {
        return jsonRpcError(c, 401, UNAUTHORIZED_CODE, `Unauthorized: ${err.message}`, id, {
          "WWW-Authenticate": challenge({ error: "invalid_token", error_description: err.message }),
        });
      }
      if (err instanceof KeysUnavailable) {
        log.warn({ err: err.message }, "cannot verify access tokens");
        return jsonRpcError(
          c,
          503,
          SHUTTING_DOWN_CODE,
          "Access tokens cannot be checked now: the authorization server's signing keys could not be fetched; try again shortly",
          id,
          { "Retry-After": "5" },
        );
      }
      throw err;
    }
  };
}

/** A quoted-string value of WWW-Authenticate as RFC 6750 allows it (printable ASCII, no quote or backslash). */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]|["\\]/g, "'");
}

function bearerOf(c: Context): string {
  return c.req.header("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1] ?? "";
}

/**
 * Reads a JSON POST body within the limit and hands it on parsed (as `parsedBody`, which the MCP handler
 * takes instead of reading the body again). Other requests go on untouched: the handler refuses them itself.
 */
function jsonBody(limit: number) {
  return async (c: Context<Env>, next: Next) => {
    if (c.req.method !== "POST" || !isJsonContentType(c.req.header("content-type"))) return next();
    const body = await readBounded(c.req.raw, limit);
    if (body.tooLarge) {
      c.header("Connection", "close");
      return jsonRpcError(
        c,
        413,
        TOO_LARGE_CODE,
        `Request too large: this server accepts request bodies up to ${limit} bytes (${(limit / 1048576).toFixed(0)} MiB)`,
        topLevelId(body.prefix),
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return jsonRpcError(c, 400, -32700, "Parse error: the request body is not valid JSON", null);
    }
    c.set("parsedBody", parsed);
    return next();
  };
}

/** A token bucket per client (callerOf: the OAuth subject, else the bearer token, else the address). */
function rateLimit(rate: HttpRate, state: SharedState | undefined) {
  const limiter = limiterFor(rate, state);
  const budget = `${rate.requests} requests a ${describePeriod(rate.perMs)}`;
  return async (c: Context<Env>, next: Next) => {
    const verdict = await limiter.take(callerOf(c));
    if (verdict.ok) return next();
    return jsonRpcError(
      c,
      429,
      RATE_LIMITED_CODE,
      `Too many requests: each client may make ${budget}; try again in ${verdict.retryAfterSecs} s`,
      requestId(c.get("parsedBody")),
      { "Retry-After": String(verdict.retryAfterSecs) },
    );
  };
}

/**
 * Who is calling, for budgets and session ownership: the OAuth subject when a verified access token names
 * one (so a client that refreshes its token keeps one budget), else the bearer token's digest, else the
 * remote address. X-Forwarded-For is not trusted: any client could set it.
 */
function callerOf(c: Context<Env>): string {
  const auth = c.get("authInfo");
  const subject = auth?.extra?.sub ?? auth?.clientId;
  if (typeof subject === "string" && subject) return `subject:${subject}`;
  const bearer = bearerOf(c);
  if (bearer) return `token:${digest(bearer).toString("base64")}`;
  return `addr:${c.env?.incoming?.socket?.remoteAddress ?? "unknown"}`;
}

function describePeriod(ms: number): string {
  return ms === 1000 ? "second" : ms === 60_000 ? "minute" : ms === 3_600_000 ? "hour" : `${ms / 1000} s`;
}
