import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createMcpHonoApp } from "@modelcontextprotocol/hono";
import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Context, Next } from "hono";
import type { Logger } from "pino";

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
  const app = createMcpHonoApp({ host: opts.host });
  if (opts.token) app.use("/mcp", bearerAuth(opts.token));
  app.all("/mcp", (c: Context) => handler.fetch(c.req.raw, { parsedBody: c.get("parsedBody") }));
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host }, () => resolve(s));
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
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

function bearerAuth(expected: string) {
  const want = Buffer.from(expected);
  return async (c: Context, next: Next) => {
    const got = Buffer.from(c.req.header("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1] ?? "");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      return c.json(
        {
          jsonrpc: "2.0",
          error: {
            code: -32001,
            message: "Unauthorized: send Authorization: Bearer <PRESERVATION_HTTP_TOKEN>",
          },
          id: null,
        },
        401,
        { "WWW-Authenticate": "Bearer" },
      );
    }
    await next();
  };
}
