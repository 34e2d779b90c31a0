import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type McpHarness, startMcp } from "./mcp.js";
import { startTestRepository } from "./repository.js";

/**
 * A small loopback proxy in front of a real repository service, for what a real installation may do that
 * ours does not: lack an endpoint (a proxy's HTML 404 page, or the request forwarded to a path the service
 * does not have, so the service answers its own 404), fail one sub-request (the service's JSON 404 for an
 * item it listed a moment ago), or sign in without user details. Rules are matched on the path alone and
 * can be changed while the proxy runs (`rules` is read on every request).
 */
export type ProxyMode = "proxy-page" | "service-404" | "item-404" | "strip-roles";

export interface ProxyRule {
  path: string;
  mode: ProxyMode;
}

export interface BlockingProxy {
  url: string;
  rules: ProxyRule[];
  close(): Promise<void>;
}

const NGINX_404 =
  "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

export async function startBlockingProxy(target: string, rules: ProxyRule[] = []): Promise<BlockingProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0] ?? "/";
    const rule = rules.find((b) => b.path === path);
    if (rule?.mode === "proxy-page" || rule?.mode === "item-404") {
      req.resume();
      const page = rule.mode === "proxy-page";
      res.writeHead(404, { "content-type": page ? "text/html" : "application/json" });
      res.end(page ? NGINX_404 : JSON.stringify({ success: false, message: `${path} not found` }));
      return;
    }
    const url = rule?.mode === "service-404" ? `${req.url?.replace(path, `${path}-absent`)}` : req.url;
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: url, headers: req.headers },
      (up) => {
        if (rule?.mode !== "strip-roles") {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
          return;
        }
        // A service that ignores includeUserDetails: the sign-in reply has no roles.
        const chunks: Buffer[] = [];
        up.on("data", (c: Buffer) => chunks.push(c));
        up.on("end", () => {
          const { roles: _roles, ...rest } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          const body = JSON.stringify(rest);
          const { "content-length": _length, ...headers } = up.headers;
          res.writeHead(up.statusCode ?? 502, { ...headers, "content-length": Buffer.byteLength(body) });
          res.end(body);
        });
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    rules,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The demo repository behind a blocking proxy, and an MCP harness that reaches it only through the proxy. */
export async function startProxiedMcp(): Promise<{
  proxy: BlockingProxy;
  mcp: McpHarness;
  close(): Promise<void>;
}> {
  const repo = await startTestRepository({ seed: "demo" });
  const proxy = await startBlockingProxy(repo.url);
  const mcp = await startMcp({ repo: { ...repo, url: proxy.url, close: () => repo.close() } });
  return {
    proxy,
    mcp,
    async close() {
      await mcp.close();
      await proxy.close();
    },
  };
}
