import { createHash, randomUUID } from "node:crypto";
import {
  type AuthInfo,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import { followStream } from "./followed-stream.js";
import type { LiveResources } from "./live-resources.js";
import type { SubscriptionSink } from "./subscribe-handlers.js";

/**
 * 2025-era sessions over Streamable HTTP, kept only when live resources are on.
 *
 * A 2025 client hears of resource updates on a session's GET stream after `resources/subscribe`; the
 * stateless serving used otherwise has neither (GET is 405 there). So with live resources on, a 2025
 * `initialize` opens a session (Mcp-Session-Id), and that session's server instance, transport and
 * subscriptions live here until the client ends it (DELETE), it idles out, or the server stops. Requests
 * without a session id that are not an initialize are still served statelessly by the caller.
 *
 * Sessions are this process's memory: behind a load balancer, 2025 clients with live resources need
 * sticky routing by the Mcp-Session-Id header (2026 clients need nothing: each listen stream is one request).
 */

/** Resources one session may watch at once. */
const MAX_WATCHED_PER_SESSION = 1000;

export type LegacyFactory = (ctx: {
  authInfo?: AuthInfo;
  subscriptions: SubscriptionSink;
}) => McpServer | Promise<McpServer>;

interface Entry {
  id: string;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Who opened it: later requests must come from the same caller (token or OAuth subject). */
  owner: string;
  watched: Set<string>;
  lastSeen: number;
  /** Open GET streams: a session quietly holding its stream is waiting for updates, not idle. */
  streams: number;
  unsubscribeBus: () => void;
}

export interface LegacySessionOptions {
  /** Sessions kept at once; an initialize beyond it is served statelessly (no subscriptions). */
  maxSessions?: number;
  /** A session with no request and no open stream for this long is closed. */
  idleMs?: number;
}

export class LegacySessions {
  private readonly sessions = new Map<string, Entry>();
  private readonly openStreams = new Set<() => void>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxSessions: number;
  private readonly idleMs: number;

  constructor(
    private readonly factory: LegacyFactory,
    private readonly live: LiveResources,
    private readonly log: Logger,
    opts: LegacySessionOptions = {},
  ) {
    this.maxSessions = opts.maxSessions ?? 1000;
    this.idleMs = opts.idleMs ?? 30 * 60_000;
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, this.idleMs)).unref();
  }

  /** Whether this request belongs here: it names a session, or it is a 2025 initialize that may open one. */
  claims(request: Request, parsedBody: unknown): boolean {
    if (request.headers.get("mcp-session-id")) return true;
    return request.method === "POST" && isInitialize(parsedBody) && this.sessions.size < this.maxSessions;
  }

  async handle(
    request: Request,
    parsedBody: unknown,
    authInfo: AuthInfo | undefined,
    caller: string,
  ): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (!id) return this.open(request, parsedBody, authInfo, caller);
    const entry = this.sessions.get(id);
    // The spec's answer to an unknown or ended session: 404, and the client starts a new one.
    if (!entry || entry.owner !== ownerKey(caller)) {
      return jsonRpcError(404, "Session not found: it ended or was never opened here; send initialize again");
    }
    entry.lastSeen = Date.now();
    const response = await entry.transport.handleRequest(request, {
      parsedBody,
      ...(authInfo ? { authInfo } : {}),
    });
    return request.method === "GET" ? this.counted(entry, response) : response;
  }

  /** Ends every open GET stream (shutdown: they never end by themselves); calls in flight go on. */
  endStreams(): void {
    for (const stop of [...this.openStreams]) stop();
  }

  /** Closes every session (server shutdown, once the calls in flight are answered). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.sessions.values()].map((e) => this.end(e)));
  }

  private async open(
    request: Request,
    parsedBody: unknown,
    authInfo: AuthInfo | undefined,
    caller: string,
  ): Promise<Response> {
    let entry: Entry | undefined;
    const watched = new Set<string>();
    const sink: SubscriptionSink = {
      subscribe: (uri) => {
        if (watched.has(uri)) return;
        if (watched.size >= MAX_WATCHED_PER_SESSION) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `this session already watches ${MAX_WATCHED_PER_SESSION} resources, the most one session may; unsubscribe from some first (a folder's subscription covers what arrives in it and leaves it)`,
          );
        }
        watched.add(uri);
        this.live.watch([uri]);
      },
      unsubscribe: (uri) => {
        if (!watched.delete(uri)) return;
        this.live.unwatch([uri]);
      },
    };
    const server = await this.factory({ ...(authInfo ? { authInfo } : {}), subscriptions: sink });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        const unsubscribeBus = this.live.bus.subscribe((event) => {
          if (event.kind === "resource_updated" && watched.has(event.uri)) {
            server.server.sendResourceUpdated({ uri: event.uri }).catch(() => {});
          }
        });
        entry = {
          id: sid,
          server,
          transport,
          owner: ownerKey(caller),
          watched,
          lastSeen: Date.now(),
          streams: 0,
          unsubscribeBus,
        };
        this.sessions.set(sid, entry);
        this.log.debug({ sessions: this.sessions.size }, "2025 session opened");
      },
      onsessionclosed: (sid) => {
        const e = this.sessions.get(sid);
        if (e) void this.end(e);
      },
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request, {
      parsedBody,
      ...(authInfo ? { authInfo } : {}),
    });
    // An initialize that failed opened nothing: let its instance go.
    if (!entry) {
      await transport.close().catch(() => {});
      await server.close().catch(() => {});
    }
    return response;
  }

  /** Counts an open GET stream while its body is being read, so the sweep leaves the session alone. */
  private counted(entry: Entry, response: Response): Response {
    if (!response.body) return response;
    entry.streams++;
    const followed = followStream(response, () => {
      entry.streams--;
      entry.lastSeen = Date.now();
      this.openStreams.delete(followed.stop);
    });
    this.openStreams.add(followed.stop);
    return followed.response;
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const e of this.sessions.values()) if (e.streams === 0 && e.lastSeen < cutoff) void this.end(e);
  }

  private async end(e: Entry): Promise<void> {
    if (!this.sessions.delete(e.id)) return;
    e.unsubscribeBus();
    this.live.unwatch([...e.watched]);
    e.watched.clear();
    await e.transport.close().catch(() => {});
    await e.server.close().catch(() => {});
  }
}

function isInitialize(body: unknown): boolean {
  return (body as { method?: unknown } | null)?.method === "initialize";
}

/** Compared, never kept: a digest of the caller's credential or subject. */
function ownerKey(caller: string): string {
  return createHash("sha256").update(caller).digest("hex");
}

function jsonRpcError(status: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message } }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
