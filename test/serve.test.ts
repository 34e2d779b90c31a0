import { createServer } from "node:net";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FORBIDDEN_CODE, type HttpServing, serveOverHttp } from "../src/http/serve.js";
import { createLogger } from "../src/log.js";
import { INITIALIZE, rawPost } from "./helpers/raw-post.js";

/**
 * The Streamable HTTP transport's own guards, in process over real loopback HTTP: the bearer check (constant
 * time, JSON-RPC-shaped refusals) and the Host/Origin check for every loopback spelling. The MCP server behind
 * them is an empty one: these requests are decided before it is reached, or only need it to answer initialize.
 */

// Every token comparison, to show that none is skipped (a length check that returns early leaks the length).
const compared = vi.hoisted(() => [] as [number, number][]);
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return real.timingSafeEqual(a, b);
    },
  };
});

const log = createLogger({ level: "silent" });
const factory = () => new McpServer({ name: "guards-test", version: "1.0.0" });

const post = rawPost;

/** Whether this machine can listen on the IPv6 loopback (containers without IPv6 cannot). */
function canListenOn(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(0, host, () => s.close(() => resolve(true)));
  });
}
const ipv6 = await canListenOn("::1");

describe("the bearer check", () => {
  const token = "serve-test-token-0123456789";
  let http: HttpServing;
  beforeAll(async () => {
    http = await serveOverHttp(factory, { host: "127.0.0.1", port: 0, token }, log);
  });
  afterAll(() => http?.close());

  it("compares fixed-length digests, whatever the length of the token sent", async () => {
    compared.length = 0;
    for (const sent of ["x", token.slice(0, -1), `${token}-and-more`, token.replace(/.$/, "x")]) {
      expect((await post(http.url, { authorization: `Bearer ${sent}` })).status).toBe(403);
    }
    expect((await post(http.url, {})).status).toBe(403);
    expect(compared).toEqual(Array(5).fill([32, 32]));
    expect((await post(http.url, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("answers the request's own id, with an error code outside JSON-RPC's reserved block", async () => {
    for (const id of [7, "req-abc"]) {
      const res = await post(http.url, {}, { ...INITIALIZE, id });
      expect(res.status).toBe(403);
      const body = JSON.parse(res.body);
      expect(body).toMatchObject({ jsonrpc: "2.0", id, error: { code: FORBIDDEN_CODE } });
      expect(body.error.message).toMatch(/Authorization: Bearer <PRESERVATION_HTTP_TOKEN>/);
    }
    expect(FORBIDDEN_CODE < -32768 || FORBIDDEN_CODE > -32000).toBe(true);
  });

  it("answers id null when there is no single request to answer (a notification, a batch, no JSON)", async () => {
    const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
    for (const body of [notification, [INITIALIZE]]) {
      const res = await post(http.url, {}, body);
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).id).toBeNull();
    }
  });
});

describe("a client without the static token is told why, not sent into OAuth", () => {
  const token = "static-token-0123456789abcdef";
  let http: HttpServing;
  beforeAll(async () => {
    http = await serveOverHttp(factory, { host: "127.0.0.1", port: 0, token }, log);
  });
  afterAll(() => http?.close());

  it("an SDK client with an OAuth provider (as the MCP Inspector and IDE clients have) shows the message and never starts OAuth", async () => {
    const requested: string[] = [];
    const oauthSteps: string[] = [];
    const step = (name: string) => () => {
      oauthSteps.push(name);
    };
    const authProvider = {
      redirectUrl: "http://127.0.0.1:1/callback",
      clientMetadata: { redirect_uris: ["http://127.0.0.1:1/callback"], client_name: "test" },
      clientInformation: () => {
        oauthSteps.push("clientInformation");
        return undefined;
      },
      saveClientInformation: step("saveClientInformation"),
      tokens: () => undefined,
      saveTokens: step("saveTokens"),
      redirectToAuthorization: step("redirectToAuthorization"),
      saveCodeVerifier: step("saveCodeVerifier"),
      codeVerifier: () => "",
    };
    const transport = new V1HttpTransport(new URL(http.url), {
      authProvider,
      fetch: (input, init) => {
        requested.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
        return fetch(input, init);
      },
    });
    const client = new V1Client({ name: "no-token", version: "1" });
    const failure = await client.connect(transport).then(
      () => undefined,
      (err: Error) => err,
    );
    await client.close().catch(() => {});
    expect(failure?.message).toMatch(/send Authorization: Bearer <PRESERVATION_HTTP_TOKEN>/);
    expect(oauthSteps).toEqual([]);
    // No discovery of protected-resource or authorization-server metadata, no client registration.
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.every((p) => p === "/mcp")).toBe(true);
  });

  it("403 with an RFC 6750 challenge: invalid_token and a description saying what to send", async () => {
    const res = await fetch(http.url, {
      method: "POST",
      headers: {
        authorization: "Bearer wrong",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(INITIALIZE),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer realm="preservation-mcp", error="invalid_token", error_description="send Authorization: Bearer <PRESERVATION_HTTP_TOKEN>; this server takes the token its operator set, not OAuth"',
    );
  });
});

describe("Host and Origin on a loopback bind", () => {
  const spellings = [
    { bind: "127.0.0.1", ipv6: false },
    { bind: "localhost", ipv6: false },
    { bind: "::1", ipv6: true },
    { bind: "[::1]", ipv6: true },
  ];

  for (const { bind, ipv6: needsIpv6 } of spellings) {
    it.skipIf(needsIpv6 && !ipv6)(
      `bound to ${bind}: accepts localhost, 127.0.0.1 and [::1] as Host and Origin, refuses others`,
      async () => {
        const http = await serveOverHttp(factory, { host: bind, port: 0 }, log);
        try {
          const { port } = new URL(http.url);
          if (needsIpv6) expect(http.url).toBe(`http://[::1]:${port}/mcp`);
          for (const name of ["localhost", "127.0.0.1", "[::1]"]) {
            const res = await post(http.url, { host: `${name}:${port}`, origin: `http://${name}:${port}` });
            expect(res.status, `Host ${name}`).toBe(200);
          }
          expect((await post(http.url, { host: `evil.example:${port}` })).status).toBe(403);
          expect((await post(http.url, { origin: "http://evil.example" })).status).toBe(403);
        } finally {
          await http.close();
        }
      },
    );
  }

  it.runIf(!ipv6)("skips the IPv6 binds: this machine cannot listen on ::1", () => {});
});
