import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { startTestRepository } from "../helpers/repository.js";
import {
  childEnv,
  connectHttp,
  killStragglers,
  LEGACY,
  remoteEnv,
  type SpawnedCli,
  spawnCli,
  startHttp,
} from "./helpers.js";

afterAll(killStragglers);

/**
 * The HTTP server as an OAuth 2.1 resource server (MCP authorization): RFC 9728 metadata, 401 challenges
 * that point at it, JWT access tokens checked against the issuer's published keys (signature, issuer,
 * audience, lifetime), and scopes that decide the tool list. The authorization server is this test: it
 * publishes a JWKS on loopback and signs tokens with node:crypto.
 */

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
/** Another RSA key, published nowhere: its signatures must not verify. */
const impostor = generateKeyPairSync("rsa", { modulusLength: 2048 });

function publicJwk(key: KeyObject, kid: string, alg: string) {
  return { ...key.export({ format: "jwk" }), kid, alg, use: "sig" };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

interface SignOptions {
  alg?: "RS256" | "ES256";
  kid?: string;
  key?: KeyObject;
  header?: Record<string, unknown>;
}

function jwt(claims: Record<string, unknown>, o: SignOptions = {}): string {
  const alg = o.alg ?? "RS256";
  const header = o.header ?? { alg, typ: "at+jwt", kid: o.kid ?? (alg === "RS256" ? "rsa-1" : "ec-1") };
  const input = `${b64(header)}.${b64(claims)}`;
  const key = o.key ?? (alg === "RS256" ? rsa.privateKey : ec.privateKey);
  const sig =
    alg === "ES256"
      ? sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" })
      : sign("sha256", Buffer.from(input), key);
  return `${input}.${sig.toString("base64url")}`;
}

let jwks: Server;
let issuer: string;
let jwksHits = 0;
let repo: RunningRepository;
let server: SpawnedCli & { url: string };

const now = () => Math.floor(Date.now() / 1000);
/** A token this server must accept, with the scope given. */
function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: issuer,
    aud: server.url,
    sub: "alice",
    client_id: "test-client",
    iat: now(),
    exp: now() + 600,
    scope: "preservation:write",
    ...extra,
  };
}

beforeAll(async () => {
  jwks = createServer((req, res) => {
    jwksHits++;
    if (req.url !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        keys: [publicJwk(rsa.publicKey, "rsa-1", "RS256"), publicJwk(ec.publicKey, "ec-1", "ES256")],
      }),
    );
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
  repo = await startTestRepository({ seed: "demo" });
  server = await startHttp(
    [],
    childEnv({
      ...remoteEnv(repo.url),
      PRESERVATION_OAUTH_ISSUER: issuer,
      PRESERVATION_OAUTH_JWKS_URL: `${issuer}/jwks.json`,
    }),
  );
});

afterAll(async () => {
  await server?.stop();
  await repo?.close();
  await new Promise((resolve) => jwks?.close(resolve));
});

const INITIALIZE = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

async function post(headers: Record<string, string>, id = 41) {
  const res = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(INITIALIZE(id)),
  });
  return { status: res.status, challenge: res.headers.get("www-authenticate") ?? "", body: await res.text() };
}

const metadataUrl = () => `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`;

describe("protected-resource metadata (RFC 9728)", () => {
  it.each(["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])(
    "%s names this resource, the issuer and the scopes, without a token",
    async (path) => {
      const res = await fetch(new URL(path, server.url));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: server.url,
        authorization_servers: [issuer],
        scopes_supported: ["preservation:read", "preservation:write"],
        bearer_methods_supported: ["header"],
      });
    },
  );
});

describe("refused tokens: 401, a challenge naming the metadata, the request's id echoed", () => {
  it("no token: Bearer resource_metadata=… (no error code, as RFC 6750 says)", async () => {
    const res = await post({}, 7);
    expect(res.status).toBe(401);
    expect(res.challenge).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -401 } });
  });

  const refused: [string, () => string, RegExp][] = [
    ["expired", () => jwt(claims({ exp: now() - 3600 })), /expired/],
    ["not yet valid", () => jwt(claims({ nbf: now() + 3600 })), /not valid yet/],
    [
      "for another resource",
      () => jwt(claims({ aud: "https://other.example/mcp" })),
      /not meant for this server/,
    ],
    [
      "from another issuer",
      () => jwt(claims({ iss: "https://evil.example" })),
      /another authorization server/,
    ],
    ["with a bad signature", () => jwt(claims(), { key: impostor.privateKey }), /signature does not verify/],
    [
      "signed by an unpublished key id",
      () => jwt(claims(), { kid: "elsewhere", key: impostor.privateKey }),
      /does not publish/,
    ],
    ["alg none", () => `${b64({ alg: "none" })}.${b64(claims())}.`, /only RS256 and ES256/],
    ["without an expiry", () => jwt(claims({ exp: undefined })), /no expiry/],
    ["not a JWT", () => "opaque-token-0123456789", /not a JWT/],
  ];
  it.each(refused)("%s", async (_what, token, reason) => {
    const res = await post({ authorization: `Bearer ${token()}` }, 12);
    expect(res.status).toBe(401);
    expect(res.challenge).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="/,
    );
    expect(res.challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 12, error: { code: -401 } });
    expect(body.error.message).toMatch(reason);
  });

  it("a valid token with neither scope: 403 insufficient_scope naming the scope to ask for", async () => {
    const res = await post({ authorization: `Bearer ${jwt(claims({ scope: "openid profile" }))}` }, 13);
    expect(res.status).toBe(403);
    expect(res.challenge).toContain('error="insufficient_scope"');
    expect(res.challenge).toContain('scope="preservation:read"');
    expect(res.challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(JSON.parse(res.body)).toMatchObject({ id: 13, error: { code: -403 } });
  });

  it("the keys were fetched once, not per request (an unknown key id refetches at most once a minute)", () => {
    expect(jwksHits).toBeGreaterThanOrEqual(1);
    expect(jwksHits).toBeLessThanOrEqual(2);
  });
});

/** Tools a read-only list never has, and that the curator's write list does. */
const CURATION = ["update_metadata", "update_entity", "edit_identifiers"];

describe("scopes decide the tool list", () => {
  it.each(["v2", "v1"] as const)("%s client, read scope: only tools that read", async (era) => {
    const token = jwt(claims({ scope: "preservation:read" }));
    const client = await connectHttp(era, server.url, { authorization: `Bearer ${token}` });
    try {
      const tools = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain("search");
      for (const name of CURATION) expect(names).not.toContain(name);
      expect((await client.call("search", { query: "minutes" })).isError).toBe(false);
    } finally {
      await client.close();
    }
  });

  it.each([
    ["RS256", "v2"],
    ["ES256", "v1"],
  ] as const)("%s token, write scope (%s client): the curation tools too", async (alg, era) => {
    const token = jwt(claims({ scope: "preservation:read preservation:write" }), { alg });
    const client = await connectHttp(era, server.url, { authorization: `Bearer ${token}` });
    try {
      const names = await client.listToolNames();
      for (const name of [...CURATION, "search"]) expect(names).toContain(name);
      // The repository is reached as the server's own user, whatever the token's subject.
      expect((await client.call("whoami")).structured).toMatchObject({ user: "curator" });
    } finally {
      await client.close();
    }
  });

  it("scp as an array (as some authorization servers send it) counts too", async () => {
    const token = jwt(claims({ scope: undefined, scp: ["preservation:read"] }));
    const client = await connectHttp("v2", server.url, { authorization: `Bearer ${token}` });
    try {
      expect(await client.listToolNames()).not.toContain("update_metadata");
    } finally {
      await client.close();
    }
  });

  it("no token ever appears in the server's logs", () => {
    expect(server.stderr()).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
  });
});

describe("configuration", () => {
  it("a non-loopback bind starts with OAuth alone (no static token), given the audience", async () => {
    const other = await startHttp(
      ["--host", "0.0.0.0"],
      childEnv({
        ...remoteEnv(repo.url),
        PRESERVATION_OAUTH_ISSUER: issuer,
        PRESERVATION_OAUTH_JWKS_URL: `${issuer}/jwks.json`,
        PRESERVATION_OAUTH_AUDIENCE: "https://mcp.example.org/mcp",
      }),
    );
    try {
      const port = new URL(other.url).port;
      const meta = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource`);
      expect(((await meta.json()) as { resource: string }).resource).toBe("https://mcp.example.org/mcp");
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST" });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(
        'Bearer resource_metadata="https://mcp.example.org/.well-known/oauth-protected-resource/mcp"',
      );
    } finally {
      expect(await other.stop()).toBe(0);
    }
  });

  it.each([
    [
      "plain-http keys on another host",
      { PRESERVATION_OAUTH_JWKS_URL: "http://login.example.org/jwks.json" },
      /PRESERVATION_OAUTH_JWKS_URL must .*https/,
    ],
    [
      "an issuer without keys",
      { PRESERVATION_OAUTH_JWKS_URL: undefined },
      /PRESERVATION_OAUTH_JWKS_URL is required/,
    ],
  ] as [string, Record<string, string | undefined>, RegExp][])(
    "refuses %s, in plain words (exit 2)",
    async (_what, extra, message) => {
      const cli = spawnCli(
        ["--http", "--port", "0"],
        childEnv({
          ...remoteEnv(repo.url),
          PRESERVATION_OAUTH_ISSUER: "https://login.example.org",
          PRESERVATION_OAUTH_JWKS_URL: "https://login.example.org/jwks.json",
          ...extra,
        }),
      );
      expect(await cli.exitedWithin(10_000)).toBe(2);
      expect(cli.stderr()).toMatch(message);
    },
  );
});

describe("rate limits follow the OAuth subject, not the token", () => {
  it("a client that gets a new access token keeps its budget; another subject has its own", async () => {
    const limited = await startHttp(
      [],
      childEnv({
        ...remoteEnv(repo.url),
        PRESERVATION_OAUTH_ISSUER: issuer,
        PRESERVATION_OAUTH_JWKS_URL: `${issuer}/jwks.json`,
        PRESERVATION_HTTP_RATE: "3/min",
      }),
    );
    try {
      const send = (token: string) =>
        fetch(limited.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify(INITIALIZE(1)),
        }).then((r) => r.status);
      // Three different tokens for bob (as refreshing gives): one budget of three.
      const bob = (n: number) => jwt({ ...claims({ sub: "bob", jti: `bob-${n}` }), aud: limited.url });
      expect([await send(bob(1)), await send(bob(2)), await send(bob(3))]).toEqual([200, 200, 200]);
      expect(await send(bob(4))).toBe(429);
      expect(
        await send(jwt({ ...claims({ sub: "carol", client_id: "other-client" }), aud: limited.url })),
      ).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});
