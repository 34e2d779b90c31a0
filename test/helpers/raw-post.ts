import { request } from "node:http";

/** A JSON-RPC initialize request as a 2025-11-25 client sends it. */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/**
 * A raw POST to an MCP endpoint with chosen headers (node:http, so Host can be set too; the URL's IPv6
 * brackets are not part of the address). A string body is sent as it is, anything else as JSON.
 */
export function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown = INITIALIZE,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}
