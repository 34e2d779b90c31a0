import { ServiceError, UnexpectedResponseError } from "./errors.js";
import type { HttpClient, HttpResponse } from "./http.js";

/**
 * The Access Token API (`/api/accesstoken/...`): login, refresh, temporary users and their e-mail
 * challenge, two-factor completion. Outcomes that need a person (`needs.email.challenge`, `needs.2fa`) are
 * typed results, not errors, so the session can ask for the code. Secrets live in private fields: a grant
 * serialised, logged or inspected shows no token.
 */

const BASE = "/api/accesstoken";

/** A granted access token and what the service said about the user. */
export class TokenGrant {
  readonly #token: string;
  readonly #refreshToken: string | undefined;
  readonly user: string;
  readonly fullName: string | undefined;
  readonly email: string | undefined;
  readonly tenant: string | undefined;
  readonly roles: readonly string[] | undefined;
  readonly lastSuccessfulLogin: string | undefined;
  /** Lifetime the service announced (`validFor`, minutes of any precision), in milliseconds. */
  readonly validForMs: number;

  constructor(body: Record<string, unknown>) {
    this.#token = String(body.token);
    const refresh = body["refresh-token"] ?? body.refreshToken;
    this.#refreshToken = typeof refresh === "string" && refresh ? refresh : undefined;
    this.user = typeof body.user === "string" ? body.user : "";
    this.fullName = typeof body.fullName === "string" ? body.fullName : undefined;
    this.email = typeof body.email === "string" ? body.email : undefined;
    this.tenant = typeof body.tenant === "string" ? body.tenant : undefined;
    this.roles = Array.isArray(body.roles) ? body.roles.filter((r) => typeof r === "string") : undefined;
    this.lastSuccessfulLogin =
      typeof body.lastSuccessfulLogin === "string" ? body.lastSuccessfulLogin : undefined;
    const minutes = Number(body.validFor);
    // Real services report whole minutes (15); the local service reports fractions for short test TTLs.
    this.validForMs = Number.isFinite(minutes) && minutes > 0 ? minutes * 60_000 : 15 * 60_000;
  }

  /** The access token, for the request header only. */
  accessToken(): string {
    return this.#token;
  }
  refreshToken(): string | undefined {
    return this.#refreshToken;
  }

  /**
   * Everything a grant is made from, the tokens included: only for sealing a person's session into the shared
   * state (encrypted), from which `new TokenGrant(fields)` restores it on any instance. Never logged or shown.
   */
  sealableFields(): Record<string, unknown> {
    return {
      token: this.#token,
      ...(this.#refreshToken ? { "refresh-token": this.#refreshToken } : {}),
      user: this.user,
      ...(this.fullName ? { fullName: this.fullName } : {}),
      ...(this.email ? { email: this.email } : {}),
      ...(this.tenant ? { tenant: this.tenant } : {}),
      ...(this.roles ? { roles: [...this.roles] } : {}),
      validFor: this.validForMs / 60_000,
    };
  }

  toJSON() {
    return {
      user: this.user,
      fullName: this.fullName,
      tenant: this.tenant,
      roles: this.roles,
      validForMs: this.validForMs,
      token: "[redacted]",
    };
  }
  toString() {
    return `TokenGrant(${this.user})`;
  }
  [Symbol.for("nodejs.util.inspect.custom")]() {
    return this.toString();
  }
}

/** The service sent a challenge code by e-mail; the person must read it and give it back. */
export interface EmailChallengeOutcome {
  kind: "email-challenge";
  tenant?: string;
}

/** Two-factor authentication: the person must give the current code from their authenticator. */
export class TwoFactorOutcome {
  readonly kind = "two-factor" as const;
  readonly #continuationToken: string;
  readonly tenant: string | undefined;
  constructor(continuationToken: string, tenant: string | undefined) {
    this.#continuationToken = continuationToken;
    this.tenant = tenant;
  }
  continuationToken(): string {
    return this.#continuationToken;
  }
  toJSON() {
    return { kind: this.kind, tenant: this.tenant };
  }
}

/** Two-factor is switched on for the account but not set up yet: only the person can fix that, in the UI. */
export interface TwoFactorSetupOutcome {
  kind: "two-factor-setup";
}

export type LoginOutcome =
  | { kind: "token"; grant: TokenGrant }
  | EmailChallengeOutcome
  | TwoFactorOutcome
  | TwoFactorSetupOutcome;

export interface LoginParams {
  username: string;
  password: string;
  tenant?: string;
  /** Ask for roles, tenant and full name with the token (default true). */
  includeUserDetails?: boolean;
  signal?: AbortSignal;
}

type Json = Record<string, unknown>;

function body(res: HttpResponse): Json {
  return res.data && typeof res.data === "object" && !Array.isArray(res.data) ? (res.data as Json) : {};
}

/** The form of a password login (login and acquire-temp-user take the same). */
function credentials(p: LoginParams): Record<string, string | undefined> {
  return {
    username: p.username,
    password: p.password,
    tenant: p.tenant,
    includeUserDetails: p.includeUserDetails === false ? undefined : "true",
  };
}

export class AuthApi {
  constructor(private readonly http: HttpClient) {}

  /** Turns a login-like reply into an outcome; a 401 with any other message is a ServiceError. */
  private outcome(res: HttpResponse, operation: string, path: string): LoginOutcome {
    const b = body(res);
    const message = typeof b.message === "string" ? b.message : undefined;
    const tenant = typeof b.tenant === "string" ? b.tenant : undefined;
    if (res.status === 200 && typeof b.token === "string" && b.token) {
      return { kind: "token", grant: new TokenGrant(b) };
    }
    if (res.status === 401 && message === "needs.email.challenge") return { kind: "email-challenge", tenant };
    if (res.status === 401 && message === "needs.2fa" && typeof b.continuationToken === "string") {
      return new TwoFactorOutcome(b.continuationToken, tenant);
    }
    if (res.status === 401 && message === "needs.2fa.setup") return { kind: "two-factor-setup" };
    if (res.status === 200) {
      throw new UnexpectedResponseError({
        status: 200,
        operation,
        method: "POST",
        path,
        detail: "the reply has no token",
      });
    }
    throw new ServiceError({
      status: res.status,
      operation,
      method: "POST",
      path,
      serviceMessage: message,
      detail: "authentication failed",
    });
  }

  private async post(
    operation: string,
    path: string,
    form: Record<string, string | undefined>,
    opts: { signal?: AbortSignal; headers?: Record<string, string> } = {},
  ): Promise<LoginOutcome> {
    const res = await this.http.request({
      method: "POST",
      path,
      form,
      accept: "application/json",
      operation,
      // Each of these creates a session (or consumes a one-time code): never sent twice blindly.
      idempotent: false,
      auth: false,
      passStatus: [401],
      signal: opts.signal,
      headers: opts.headers,
    });
    return this.outcome(res, operation, path);
  }

  login(p: LoginParams): Promise<LoginOutcome> {
    return this.post("auth.login", `${BASE}/login`, credentials(p), { signal: p.signal });
  }

  /** Login for temporary users; answers `needs.email.challenge` when a challenge code was sent. */
  acquireTempUser(p: LoginParams): Promise<LoginOutcome> {
    return this.post("auth.acquireTempUser", `${BASE}/acquire-temp-user`, credentials(p), {
      signal: p.signal,
    });
  }

  /** Finishes an e-mail challenge with the code from the message. */
  completeChallenge(code: string, opts: { signal?: AbortSignal } = {}): Promise<LoginOutcome> {
    return this.post(
      "auth.completeChallenge",
      `${BASE}/complete-challenge`,
      { challengeToken: code.trim() },
      opts,
    );
  }

  /** Finishes two-factor authentication with the authenticator's current code. */
  completeTwoFactor(p: {
    username: string;
    continuation: TwoFactorOutcome;
    code: string;
    tenant?: string;
    signal?: AbortSignal;
  }): Promise<LoginOutcome> {
    return this.post(
      "auth.complete2fa",
      `${BASE}/complete-2fa`,
      {
        username: p.username,
        continuationToken: p.continuation.continuationToken(),
        tenant: p.tenant ?? p.continuation.tenant,
        twoFactorToken: p.code.trim(),
      },
      { signal: p.signal },
    );
  }

  /**
   * Exchanges a live grant for a new one. The service only refreshes before expiry and within the session
   * lifetime; otherwise it answers 401 (a ServiceError) and the caller logs in again.
   */
  async refresh(grant: TokenGrant, opts: { signal?: AbortSignal } = {}): Promise<TokenGrant> {
    const refreshToken = grant.refreshToken();
    if (!refreshToken) {
      throw new ServiceError({
        status: 0,
        operation: "auth.refresh",
        method: "POST",
        path: `${BASE}/refresh`,
        detail: "the login reply carried no refresh token",
      });
    }
    const outcome = await this.post(
      "auth.refresh",
      `${BASE}/refresh`,
      { refreshToken, includeUserDetails: "true" },
      { signal: opts.signal, headers: { "Preservica-Access-Token": grant.accessToken() } },
    );
    if (outcome.kind !== "token") {
      throw new ServiceError({
        status: 401,
        operation: "auth.refresh",
        method: "POST",
        path: `${BASE}/refresh`,
        detail: `the service asked for ${outcome.kind} on a refresh`,
      });
    }
    return outcome.grant;
  }
}
