#!/usr/bin/env node
import { pathToFileURL } from "node:url";
// The floor for bench/mcp.mjs: an MCP server made of the SDK alone, served the way ours is (serveStdio, or
// createMcpHandler behind @hono/node-server, one server instance per HTTP request as ours), so what a tool call
// costs the SDK and the transport can be told apart from what our code adds. Two tools, both with zod input and
// output schemas like ours:
//  - `hello`: answers at once (the bare MCP round trip);
//  - `get_raw`: the one GET get_entity makes, sent with undici's Pool (keep-alive), answered with the same text
//    and structured content as get_entity (same size), picked out of the XML with regular expressions: about
//    the least any MCP server that wraps that GET and gives that answer can cost.
// Usage: node bench/sdk-floor.mjs [--http]; or imported for its build()   (env FLOOR_URL = the service's base URL, FLOOR_TOKEN = an access token)
// Over HTTP the first stderr line is `listening on http://127.0.0.1:PORT/mcp`.
import { serve } from "@hono/node-server";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Pool } from "undici";
import { z } from "zod";

const base = new URL(process.env.FLOOR_URL ?? "http://127.0.0.1:1");
const token = process.env.FLOOR_TOKEN ?? "";
const pool = new Pool(base.origin, { connections: 8, keepAliveTimeout: 10_000 });

/** One server instance (bench/boundary.mjs serves it in process). */
export function build() {
  const server = new McpServer({ name: "sdk-floor", version: "1" }, { capabilities: { tools: {} } });
  server.registerTool(
    "hello",
    {
      description: "Says hello",
      inputSchema: z.object({ name: z.string().optional() }).strict(),
      outputSchema: z.object({ greeting: z.string() }),
    },
    async ({ name }) => {
      const greeting = `Hello, ${name ?? "world"}`;
      return { content: [{ type: "text", text: greeting }], structuredContent: { greeting } };
    },
  );
  server.registerTool(
    "get_raw",
    {
      description: "GET one asset; answer as get_entity does, without an XML parser",
      inputSchema: z.object({ ref: z.string() }).strict(),
      outputSchema: z.object({
        entity: z.object({
          ref: z.string(),
          type: z.string(),
          title: z.string(),
          description: z.string().optional(),
          securityTag: z.string(),
          parentRef: z.string().optional(),
          uri: z.string(),
        }),
      }),
    },
    async ({ ref }) => {
      const res = await pool.request({
        method: "GET",
        path: `${base.pathname.replace(/\/$/, "")}/api/entity/information-objects/${ref}`,
        headers: { "Preservica-Access-Token": token, accept: "application/xml" },
      });
      const xml = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      // The same facts get_entity answers with, so the answer is the same size (what the SDK serialises,
      // checks and writes grows with it), picked out with regular expressions instead of parsed.
      const field = (name) => xml.match(new RegExp(`<xip:${name}>([^<]*)</xip:${name}>`))?.[1];
      const entity = {
        ref,
        type: "asset",
        title: field("Title") ?? "",
        description: field("Description"),
        securityTag: field("SecurityTag") ?? "",
        parentRef: field("Parent"),
        uri: `preservation://asset/${ref}`,
      };
      const text = `asset "${entity.title}" ${ref}\nDescription: ${entity.description}\nSecurity tag: ${entity.securityTag}; in folder ${entity.parentRef}`;
      return { content: [{ type: "text", text }], structuredContent: { entity } };
    },
  );
  return server;
}

const runAsScript = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
// Imported (bench/boundary.mjs), it serves nothing itself: the importer serves build().
if (runAsScript && process.argv.includes("--http")) {
  const handler = createMcpHandler(() => build());
  const s = serve({ fetch: (req) => handler.fetch(req), port: 0, hostname: "127.0.0.1" }, (info) => {
    process.stderr.write(`listening on http://127.0.0.1:${info.port}/mcp\n`);
  });
  process.on("SIGTERM", () => s.close(() => process.exit(0)));
} else if (runAsScript) {
  serveStdio(() => build());
}
