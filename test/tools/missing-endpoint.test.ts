import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { type McpHarness, startMcp, textOf } from "../helpers/mcp.js";
import { startTestRepository } from "../helpers/repository.js";
import { DEMO } from "./discovery/demo-facts.js";

/**
 * A service without an endpoint (an older release, a proxy that blocks a path, an unlicensed module) is
 * not a missing item. The real repository service sits behind a small loopback proxy that, for the paths
 * it is told to, either answers as a proxy would (an HTML "404 Not Found" page) or forwards the request to
 * a path the service does not have, so the service itself answers its own 404 for an unknown endpoint.
 */
type Mode = "proxy-page" | "service-404" | "strip-roles";

interface Blocking {
  path: string;
  mode: Mode;
}

async function startProxy(target: string, blocked: Blocking[]): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    const rule = blocked.find((b) => b.path === path);
    if (rule?.mode === "proxy-page") {
      req.resume();
      res.writeHead(404, { "content-type": "text/html" });
      res.end(
        "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
      );
      return;
    }
    const url = rule?.mode === "service-404" ? `${req.url?.replace(path ?? "", `${path}-absent`)}` : req.url;
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
  return server;
}

describe("a 404 for an endpoint the service lacks reads as a missing endpoint, not a missing item", () => {
  let repo: RunningRepository;
  let proxy: Server;
  let mcp: McpHarness;
  const blocked: Blocking[] = [];

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    proxy = await startProxy(repo.url, blocked);
    const { port } = proxy.address() as AddressInfo;
    mcp = await startMcp({
      repo: { ...repo, url: `http://127.0.0.1:${port}`, close: async () => {} },
    });
  });
  afterAll(async () => {
    await mcp.close();
    await new Promise((resolve) => proxy.close(resolve));
    await repo.close();
  });
  beforeEach(() => {
    blocked.length = 0;
  });

  async function failure(tool: string, args: Record<string, unknown>): Promise<string> {
    const res = await mcp.raw(tool, args);
    expect(res.isError, textOf(res)).toBe(true);
    return textOf(res);
  }

  const cases: { tool: string; args: Record<string, unknown>; path: string; since?: string }[] = [
    { tool: "search", args: { query: "harbour" }, path: "/api/content/search" },
    { tool: "list_events", args: { limit: 5 }, path: "/api/entity/events", since: "6.0" },
    {
      tool: "find_by_identifier",
      args: { value: "anything" },
      path: "/api/entity/entities/by-identifier",
      since: "6.0",
    },
  ];

  for (const c of cases) {
    for (const mode of ["proxy-page", "service-404"] as const) {
      it(`${c.tool}: names ${c.path} as missing (${mode})`, async () => {
        blocked.push({ path: c.path, mode });
        const text = await failure(c.tool, c.args);
        expect(text).toContain(`This service has no ${c.path} endpoint`);
        expect(text).toContain("a proxy in front of it blocks the path");
        if (c.since) expect(text).toContain(`older than release ${c.since}`);
        expect(text).not.toMatch(/check the reference/i);
      });
    }
  }

  it("whoami, on a service whose sign-in reply has no roles, names /api/user/details as missing", async () => {
    const rules: Blocking[] = [{ path: "/api/accesstoken/login", mode: "strip-roles" }];
    const oldService = await startProxy(repo.url, rules);
    const { port } = oldService.address() as AddressInfo;
    const who = await startMcp({
      repo: { ...repo, url: `http://127.0.0.1:${port}`, close: async () => {} },
      roles: ["ROLE_SDB_ACCESS_USER"],
    });
    try {
      for (const mode of ["proxy-page", "service-404"] as const) {
        rules[1] = { path: "/api/user/details", mode };
        const res = await who.raw("whoami", {});
        expect(res.isError, mode).toBe(true);
        expect(textOf(res)).toContain("This service has no /api/user/details endpoint");
      }
    } finally {
      await who.close();
      await new Promise((resolve) => oldService.close(resolve));
    }
  });

  it("an entity's own events behind a blocked endpoint name the endpoint with {ref} for the ref", async () => {
    blocked.push({
      path: `/api/entity/information-objects/${DEMO.refs.pngAsset}/event-actions`,
      mode: "service-404",
    });
    const text = await failure("list_events", { ref: DEMO.refs.pngAsset });
    expect(text).toContain(
      "This service has no /api/entity/information-objects/{ref}/event-actions endpoint",
    );
  });

  it("a ref that does not exist still reads as not found, with nothing blocked", async () => {
    const text = await failure("list_events", { ref: "00000000-0000-4000-8000-000000000000" });
    expect(text).not.toContain("endpoint");
    expect(text).toMatch(/not found|nothing with ref .* exists/i);
  });
});
