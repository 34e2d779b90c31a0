import type { AuthInfo } from "@modelcontextprotocol/server";
import { JwksCache, KeysUnavailable } from "./jwks.js";
import {
  checkClaims,
  decodeJwt,
  InvalidToken,
  type JwtAlg,
  keyFor,
  scopesOf,
  signatureValid,
} from "./jwt.js";

/**
 * This server as an OAuth 2.1 resource server (MCP authorization): it publishes RFC 9728 metadata naming
 * the authorization server, and accepts JWT access tokens that server issued for this resource. The tokens
 * only admit the client: the repository is reached with the server's own credentials, and a token is never
 * sent anywhere (it is not even handed to the MCP layer).
 */

/** Lists tools that only read. */
export const READ_SCOPE = "preservation:read";
/** Lists the configured toolsets, writes included. */
export const WRITE_SCOPE = "preservation:write";
export const SCOPES = [READ_SCOPE, WRITE_SCOPE];

export interface OAuthSettings {
  /** The authorization server's issuer identifier, compared exactly with the token's `iss`. */
  issuer: string;
  /** Where its signing keys are published (JWKS). */
  jwksUrl: string;
  /** The `aud` tokens must carry; unset = this server's own /mcp URL. */
  audience?: string;
}

/** Clock difference tolerated between this server and the authorization server. */
const LEEWAY_SECS = 60;

export class TokenVerifier {
  private readonly jwks: JwksCache;

  constructor(
    private readonly settings: { issuer: string; jwksUrl: string },
    private readonly audience: () => string,
  ) {
    this.jwks = new JwksCache({ url: settings.jwksUrl });
  }

  /** The verified token as the SDK's AuthInfo; throws InvalidToken (401) or KeysUnavailable (503). */
  async verify(token: string): Promise<AuthInfo> {
    const jwt = decodeJwt(token);
    let keys = await this.jwks.current();
    if (jwt.header.kid !== undefined && !keys.some((k) => k.kid === jwt.header.kid)) {
      keys = await this.jwks.afterUnknownKid();
    }
    const candidates = keys.filter((k) => jwt.header.kid === undefined || k.kid === jwt.header.kid);
    if (candidates.length === 0) {
      throw new InvalidToken(
        "the access token is signed with a key the authorization server does not publish",
      );
    }
    const alg: JwtAlg = jwt.header.alg;
    const verified = candidates.some((jwk) => {
      const key = keyFor(jwk, alg);
      return key !== undefined && signatureValid(jwt, key);
    });
    if (!verified) throw new InvalidToken("the access token's signature does not verify");
    const resource = this.audience();
    const { exp } = checkClaims(jwt.claims, {
      issuer: this.settings.issuer,
      audience: resource,
      now: Math.floor(Date.now() / 1000),
      leewaySecs: LEEWAY_SECS,
    });
    const c = jwt.claims;
    const clientId = [c.client_id, c.azp, c.sub].find((v): v is string => typeof v === "string") ?? "";
    // A name a person recognises (a subject is often an opaque id): the sign-in page shows whom it signs in.
    const label = [c.preferred_username, c.email, c.name].find(
      (v): v is string => typeof v === "string" && v.trim() !== "",
    );
    return {
      // The raw token stays here: nothing past the HTTP gate needs it, so nothing can pass it on.
      token: "",
      clientId,
      scopes: scopesOf(c),
      expiresAt: exp,
      resource: new URL(resource),
      ...(typeof c.sub === "string"
        ? { extra: { sub: c.sub, ...(label ? { label: label.slice(0, 200) } : {}) } }
        : {}),
    };
  }
}

/** Whether a verified token may see the configured toolsets; otherwise it gets the read-only list. */
export function canWrite(auth: AuthInfo): boolean {
  return auth.scopes.includes(WRITE_SCOPE);
}

/** Whether a verified token carries either of this server's scopes (neither = 403 insufficient_scope). */
export function hasAnyScope(auth: AuthInfo): boolean {
  return auth.scopes.some((s) => SCOPES.includes(s));
}

/** RFC 9728 §3.1: the metadata URL is the resource's, with the well-known segment inserted before its path. */
export function metadataUrlFor(resource: string): string {
  const u = new URL(resource);
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
  return `${u.origin}/.well-known/oauth-protected-resource${path}`;
}

/** The RFC 9728 document: which authorization server issues tokens for this resource, and its scopes. */
export function protectedResourceMetadata(resource: string, issuer: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "preservation-mcp",
  };
}

export { InvalidToken, KeysUnavailable };
