import { createHmac, generateKeyPairSync, sign } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { JwksCache } from "../../src/http/oauth/jwks.js";
import {
  checkClaims,
  decodeJwt,
  InvalidToken,
  keyFor,
  sameResource,
  signatureValid,
} from "../../src/http/oauth/jwt.js";

/** The pure checks behind the OAuth gate: algorithms, key types, claims; and the key cache's fetch budget. */

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rsaJwk = rsa.publicKey.export({ format: "jwk" });

describe("signatures", () => {
  it("HS256 signed with the public key as a shared secret is refused before any key is used", () => {
    const input = `${b64({ alg: "HS256" })}.${b64({ sub: "x" })}`;
    const mac = createHmac("sha256", JSON.stringify(rsaJwk)).update(input).digest("base64url");
    expect(() => decodeJwt(`${input}.${mac}`)).toThrow(InvalidToken);
  });

  it("an RS256 header cannot be checked with an EC key, nor ES256 with an RSA key", () => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" });
    expect(keyFor(ec, "RS256")).toBeUndefined();
    expect(keyFor(rsaJwk, "ES256")).toBeUndefined();
    expect(keyFor({ ...rsaJwk, use: "enc" }, "RS256")).toBeUndefined();
    expect(keyFor({ ...rsaJwk, alg: "RS512" }, "RS256")).toBeUndefined();
    expect(keyFor(rsaJwk, "RS256")).toBeDefined();
  });

  it("RSA keys under 2048 bits are not used", () => {
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "jwk" });
    expect(keyFor(small, "RS256")).toBeUndefined();
  });

  it("ES256 wants r||s (64 bytes): a DER signature does not verify", () => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const input = `${b64({ alg: "ES256" })}.${b64({ sub: "x" })}`;
    const der = sign("sha256", Buffer.from(input), ec.privateKey).toString("base64url");
    const raw = sign("sha256", Buffer.from(input), { key: ec.privateKey, dsaEncoding: "ieee-p1363" });
    const key = keyFor(ec.publicKey.export({ format: "jwk" }), "ES256");
    expect(key).toBeDefined();
    if (!key) return;
    expect(signatureValid(decodeJwt(`${input}.${der}`), key)).toBe(false);
    expect(signatureValid(decodeJwt(`${input}.${raw.toString("base64url")}`), key)).toBe(true);
  });
});

describe("claims", () => {
  const rules = {
    issuer: "https://as.example",
    audience: "https://mcp.example/mcp",
    now: 1000,
    leewaySecs: 60,
  };
  const ok = { iss: "https://as.example", aud: "https://mcp.example/mcp", exp: 2000 };

  it("accepts an audience among several, and one trailing slash or fragment of difference", () => {
    expect(checkClaims({ ...ok, aud: ["https://other", "https://mcp.example/mcp/"] }, rules)).toEqual({
      exp: 2000,
    });
    expect(sameResource("https://mcp.example/mcp#x", "https://mcp.example/mcp")).toBe(true);
    expect(sameResource("https://mcp.example/mcp2", "https://mcp.example/mcp")).toBe(false);
  });

  it("tolerates a minute of clock difference, not more", () => {
    expect(() => checkClaims({ ...ok, exp: 950 }, rules)).not.toThrow();
    expect(() => checkClaims({ ...ok, exp: 940 }, rules)).toThrow(/expired/);
    expect(() => checkClaims({ ...ok, nbf: 1050 }, rules)).not.toThrow();
    expect(() => checkClaims({ ...ok, nbf: 1061 }, rules)).toThrow(/not valid yet/);
  });

  it("an issuer differing only by a trailing slash is another issuer (compared exactly)", () => {
    expect(() => checkClaims({ ...ok, iss: "https://as.example/" }, rules)).toThrow(/iss/);
  });
});

describe("the key cache", () => {
  it("fetches once; unknown key ids refetch at most once per interval", async () => {
    let hits = 0;
    const s = createServer((_req, res) => {
      hits++;
      res.end(JSON.stringify({ keys: [{ ...rsaJwk, kid: "a" }] }));
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    let clock = 0;
    const cache = new JwksCache({
      url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
      now: () => clock,
      refetchAfterMs: 60_000,
    });
    try {
      await Promise.all([cache.current(), cache.current(), cache.current()]);
      expect(hits).toBe(1);
      await cache.afterUnknownKid();
      await cache.afterUnknownKid();
      expect(hits).toBe(1);
      clock = 60_000;
      await cache.afterUnknownKid();
      expect(hits).toBe(2);
    } finally {
      await new Promise((r) => s.close(r));
    }
  });
});
