import { generateKeyPairSync, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in OAuth authorization server for tests: it publishes a JWKS on loopback and signs RS256 access
 * tokens with node:crypto, as test/e2e/http-oauth.test.ts does, so a test can be any caller it likes.
 */
export interface TestIssuer {
  issuer: string;
  jwksUrl: string;
  /** An access token for `sub`, for the resource `aud`, with the scope given (default preservation:write). */
  token(sub: string, aud: string, scope?: string, claims?: Record<string, unknown>): string;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<TestIssuer> {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...rsa.publicKey.export({ format: "jwk" }), kid: "k1", alg: "RS256", use: "sig" };
  const server = createServer((req, res) => {
    if (req.url !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return {
    issuer,
    jwksUrl: `${issuer}/jwks.json`,
    token(sub, aud, scope = "preservation:write", more = {}) {
      const now = Math.floor(Date.now() / 1000);
      const claims = {
        iss: issuer,
        aud,
        sub,
        client_id: "test-client",
        iat: now,
        exp: now + 3600,
        scope,
        ...more,
      };
      const input = `${b64({ alg: "RS256", typ: "at+jwt", kid: "k1" })}.${b64(claims)}`;
      return `${input}.${sign("sha256", Buffer.from(input), rsa.privateKey).toString("base64url")}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
