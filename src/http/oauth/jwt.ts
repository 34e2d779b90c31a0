import { createPublicKey, type JsonWebKey, type KeyObject, constants as rsa, verify } from "node:crypto";

/**
 * JWT access tokens (RFC 9068) checked with node:crypto alone: RS256 and ES256, the two algorithms
 * authorization servers sign access tokens with, and nothing else (no `none`, no HMAC: a public key must
 * never be usable as a shared secret). Pure: the keys come from the caller (jwks.ts fetches them).
 */

export type JwtAlg = "RS256" | "ES256";

export interface JwtHeader {
  alg: JwtAlg;
  kid?: string;
}

export interface JwtClaims {
  iss?: unknown;
  aud?: unknown;
  exp?: unknown;
  nbf?: unknown;
  sub?: unknown;
  scope?: unknown;
  scp?: unknown;
  client_id?: unknown;
  azp?: unknown;
  [claim: string]: unknown;
}

/** Why a token is refused, in words a person fixing the client (or the authorization server) can act on. */
export class InvalidToken extends Error {
  override readonly name = "InvalidToken";
}

export interface DecodedJwt {
  header: JwtHeader;
  claims: JwtClaims;
  /** The bytes the signature covers (`header.payload`, as sent). */
  signingInput: Buffer;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function jsonPart(part: string, what: string): Record<string, unknown> {
  if (!B64URL.test(part)) throw new InvalidToken(`the access token's ${what} is not base64url`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new InvalidToken(`the access token's ${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidToken(`the access token's ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Splits a compact JWS; refuses anything but RS256/ES256 before any key is looked at. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.split(".");
  if (parts.length !== 3) throw new InvalidToken("the access token is not a JWT (three dot-separated parts)");
  const [h, p, s] = parts as [string, string, string];
  const header = jsonPart(h, "header");
  const claims = jsonPart(p, "payload") as JwtClaims;
  if (header.alg !== "RS256" && header.alg !== "ES256") {
    throw new InvalidToken(
      `the access token is signed with ${String(header.alg)}; only RS256 and ES256 are accepted`,
    );
  }
  if (header.crit !== undefined) throw new InvalidToken("the access token has critical header parameters");
  if (!B64URL.test(s)) throw new InvalidToken("the access token's signature is not base64url");
  return {
    header: { alg: header.alg, ...(typeof header.kid === "string" ? { kid: header.kid } : {}) },
    claims,
    signingInput: Buffer.from(`${h}.${p}`, "ascii"),
    signature: Buffer.from(s, "base64url"),
  };
}

/** A verification key from a JWK, or undefined when the JWK cannot verify `alg` (wrong type, curve, use, size). */
export function keyFor(
  jwk: JsonWebKey & { kid?: string; use?: string; alg?: string },
  alg: JwtAlg,
): KeyObject | undefined {
  if (jwk.use !== undefined && jwk.use !== "sig") return undefined;
  if (jwk.alg !== undefined && jwk.alg !== alg) return undefined;
  if (alg === "RS256" && jwk.kty !== "RSA") return undefined;
  if (alg === "ES256" && (jwk.kty !== "EC" || jwk.crv !== "P-256")) return undefined;
  try {
    // Only the public members: a JWKS that (wrongly) publishes a private key still yields a public key.
    const pub =
      jwk.kty === "RSA"
        ? { kty: "RSA", n: jwk.n, e: jwk.e }
        : { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y };
    const key = createPublicKey({ key: pub as JsonWebKey, format: "jwk" });
    // RSA keys under 2048 bits are refused (RFC 7518 §3.3).
    if (alg === "RS256" && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) return undefined;
    return key;
  } catch {
    return undefined;
  }
}

export function signatureValid(jwt: DecodedJwt, key: KeyObject): boolean {
  if (jwt.header.alg === "ES256") {
    // JWS carries ES256 signatures as r||s (64 bytes), not DER.
    if (jwt.signature.length !== 64) return false;
    return verify("sha256", jwt.signingInput, { key, dsaEncoding: "ieee-p1363" }, jwt.signature);
  }
  return verify("sha256", jwt.signingInput, { key, padding: rsa.RSA_PKCS1_PADDING }, jwt.signature);
}

export interface ClaimRules {
  issuer: string;
  audience: string;
  /** Seconds since the epoch. */
  now: number;
  /** Clock difference tolerated between this server and the authorization server, in seconds. */
  leewaySecs: number;
}

/** A resource identifier compared as RFC 8707 suggests: without a fragment, one trailing slash ignored. */
export function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/#.*$/, "").replace(/\/$/, "");
  return norm(a) === norm(b);
}

/** Issuer, audience and lifetime; throws InvalidToken naming the first claim that fails. */
export function checkClaims(claims: JwtClaims, rules: ClaimRules): { exp: number } {
  if (claims.iss !== rules.issuer) {
    throw new InvalidToken("the access token was issued by another authorization server (iss)");
  }
  const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!auds.some((a) => typeof a === "string" && sameResource(a, rules.audience))) {
    throw new InvalidToken(
      `the access token is not meant for this server (aud); ask the authorization server for a token for ${rules.audience}`,
    );
  }
  if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) {
    throw new InvalidToken("the access token has no expiry (exp)");
  }
  if (rules.now >= claims.exp + rules.leewaySecs) {
    throw new InvalidToken("the access token has expired; get a new one from the authorization server");
  }
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== "number" || rules.now < claims.nbf - rules.leewaySecs) {
      throw new InvalidToken("the access token is not valid yet (nbf)");
    }
  }
  return { exp: claims.exp };
}

/** The token's scopes: `scope` (RFC 9068, space-separated) or `scp` (an array, as some servers send). */
export function scopesOf(claims: JwtClaims): string[] {
  if (typeof claims.scope === "string") return claims.scope.split(" ").filter(Boolean);
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === "string");
  if (typeof claims.scp === "string") return claims.scp.split(" ").filter(Boolean);
  return [];
}
