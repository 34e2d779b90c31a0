import { createHash, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createMcpHonoApp } from "@modelcontextprotocol/hono";
import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Context, Next } from "hono";
import type { Logger } from "pino";
import { isLoopback } from "./config.js";

/** The two transports, both fed by one era-agnostic server factory (2026-07-28 and 2025-11-25 clients). */

export function serveOverStdio(factory: () => McpServer, log: Logger): { close(): Promise<void> } {
  return serveStdio(factory, { onerror: (err) => log.error({ err: err.message }, "stdio transport error") });
}

export interface HttpServing {
  url: string;
  close(): Promise<void>;
}

/**
 * Streamable HTTP at /mcp, stateless. Host and Origin are validated for loopback binds (DNS rebinding);
 * a bearer token is required whenever one is configured (and config refuses non-loopback binds without one).
 */
export async function serveOverHttp(
  factory: () => McpServer,
  opts: { host: string; port: number; token?: string },
  log: Logger,
): Promise<HttpServing> {
  const handler = createMcpHandler(factory, {
    onerror: (err) => log.warn({ err: err.message }, "mcp http error"),
  });
  // `--host [::1]` is the URL spelling; the socket wants the bare address (and the SDK only recognises `::1`).
  const bindHost = opts.host.replace(/^\[(.*)\]$/, "$1");
  // On a loopback bind every loopback name is the same server, whichever address the socket has: a client
  // may say localhost, 127.0.0.1 or [::1] (URL hostnames keep IPv6 brackets). Explicit lists, so the check
  // cannot silently fall away for a spelling the SDK does not recognise as loopback.
  const app = createMcpHonoApp(
    isLoopback(bindHost)
      ? { host: bindHost, allowedHosts: LOOPBACK_NAMES, allowedOrigins: LOOPBACK_NAMES }
      : { host: bindHost },
  );
  if (opts.token) app.use("/mcp", bearerAuth(opts.token));
  app.all("/mcp", (c: Context) => handler.fetch(c.req.raw, { parsedBody: c.get("parsedBody") }));
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
  const { port } = server.address() as AddressInfo;
  const host = bindHost.includes(":") ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
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

function bearerAuth(expected: string) {
  const want = digest(expected);
  return async (c: Context, next: Next) => {
    const sent = c.req.header("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1] ?? "";
    if (!timingSafeEqual(digest(sent), want)) {
      return c.json(
        {
          jsonrpc: "2.0",
          error: {
            code: UNAUTHORIZED_CODE,
            message: "Unauthorized: send Authorization: Bearer <PRESERVATION_HTTP_TOKEN>",
          },
          id: requestId(c.get("parsedBody")),
        },
        401,
        { "WWW-Authenticate": "Bearer" },
      );
    }
    await next();
  };
}
