import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { type BlockingProxy, type ProxyRule, startBlockingProxy } from "../helpers/blocking-proxy.js";
import { type McpHarness, startMcp, textOf } from "../helpers/mcp.js";
import { startTestRepository } from "../helpers/repository.js";
import { DEMO } from "./discovery/demo-facts.js";

/**
 * A service without an endpoint (an older release, a proxy that blocks a path, an unlicensed module) is
 * not a missing item. The real repository service sits behind a small loopback proxy that, for the paths
 * it is told to, either answers as a proxy would (an HTML "404 Not Found" page) or forwards the request to
 * a path the service does not have, so the service itself answers its own 404 for an unknown endpoint.
 */
describe("a 404 for an endpoint the service lacks reads as a missing endpoint, not a missing item", () => {
  let repo: RunningRepository;
  let proxy: BlockingProxy;
  let mcp: McpHarness;
  const blocked: ProxyRule[] = [];

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo" });
    proxy = await startBlockingProxy(repo.url, blocked);
    mcp = await startMcp({ repo: { ...repo, url: proxy.url, close: async () => {} } });
  });
  afterAll(async () => {
    await mcp.close();
    await proxy.close();
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
    const rules: ProxyRule[] = [{ path: "/api/accesstoken/login", mode: "strip-roles" }];
    const oldService = await startBlockingProxy(repo.url, rules);
    const who = await startMcp({
      repo: { ...repo, url: oldService.url, close: async () => {} },
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
      await oldService.close();
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
