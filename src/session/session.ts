import type { Logger } from "pino";
import { AuthApi, type LoginOutcome, TokenGrant, type TwoFactorOutcome } from "../api/auth.js";
import { ServiceError } from "../api/errors.js";
import { type AuthAttempt, type AuthHook, HttpClient, type HttpClientOptions } from "../api/http.js";
import { silentLogger } from "../log.js";
import { displayUrl, type SignInFailed, signInFailure, signInMayRetry } from "./sign-in-failure.js";

export { displayUrl, SignInFailed } from "./sign-in-failure.js";

/**
 * The authenticated session: logs in (with user details, so roles are known from the start), refreshes the
 * token **before** it expires (the service refuses a refresh after expiry), logs in again when a refresh
 * fails or the session lifetime is reached, and turns logins that need a person (e-mail challenge, 2FA)
 * into a typed `ChallengeRequired`. It authenticates every request of `session.http` through the
 * transport's auth hook.
 *
 * Timing, for a token lifetime L (from `validFor`; 15 min on real services, 3 s in tests):
 * - a request goes out only while more than `refreshMargin(L) = min(L/2, max(20 % of L, 500 ms))` of
 *   the token's life remains (180 s of a 15-min token; 600 ms of a 3-s one); otherwise it waits for a
 *   refresh first, so no token expires in flight;
 * - lifetimes are measured from when the login/refresh request was *sent*, so network time only makes
 *   the client more cautious than the service;
 * - a refresh needs at least `min(250 ms, 5 % of L)` left to be worth trying; with less, or once the
 *   session lifetime is (nearly) reached, the session logs in again instead;
 * - a refresh waits briefly (at most half the margin, at most 2 s) for requests still in flight on the
 *   old token, because the service revokes it on refresh; a request that still loses is retried once;
 * - with `keepAlive` (default on), a timer refreshes at the same point when idle, so a person who
 *   answered a 2FA prompt is not asked again for the session's lifetime.
 *
 * Sign-in failures: a login that meets a connection failure (or a 502/503/504 from a proxy) is tried again
 * after 0.5, 1 and 2 s; what still fails becomes a `SignInFailed` naming the service and the variable to fix.
 * The next request simply tries again, once (fixing the network needs no restart, and each call answers
 * promptly while it is being fixed). Refused credentials are never retried at once, and for a minute after a refusal
 * requests fail with the same error without asking the service again: a model retrying in a loop must not
 * lock the account.
 *
 * Secrets (password, tokens, continuation tokens) are held in private fields; `toJSON`, `toString` and
 * `util.inspect` show none of them, and log lines never include them.
 *
 * A person's session (identity "person", a team server) has no password at all: the person signed in on the
 * sign-in page, and `person` keeps the grant in the shared state. Where a service session would log in again,
 * a person's session takes the grant kept there (another instance may have refreshed it, which revokes the
 * old token), and with none usable it fails with `SignInRequired`: only the person can sign in again.
 */

export interface SessionCredentials {
  /** Service base URL, e.g. https://eu.preservica.com */
  url: string;
  username: string;
  /** Absent for a person's session (see `person`): it never logs in by itself. */
  password?: string;
  tenant?: string;
  /** Log in through /acquire-temp-user (temporary users with a long expiry). */
  temporaryUser?: boolean;
}

export interface SessionOptions extends SessionCredentials {
  /** Milliseconds since the epoch; injectable so tests can move time. */
  clock?: () => number;
  logger?: Logger;
  /** The service's session lifetime (`maxSessionLifetimeMins`); fractions allowed. Default 480. */
  maxSessionLifetimeMins?: number;
  /** Refresh in the background when idle (default true). */
  keepAlive?: boolean;
  /** Transport settings (timeouts, retries) for the session's HttpClient. */
  http?: Omit<HttpClientOptions, "baseUrl" | "logger">;
  /** Waits before each new sign-in attempt after a connection failure (default 0.5, 1, 2 s: four tries). */
  signInRetryDelaysMs?: readonly number[];
  /** A person's session: where its grant is kept (instead of a password). */
  person?: PersonGrantStore;
}

/** A person's repository session as kept between calls and instances (sealed before it is stored). */
export interface SavedGrant {
  /** The grant's fields, tokens included (`TokenGrant.sealableFields`). */
  grant: Record<string, unknown>;
  /** Client clock when the request that produced the grant was sent (ms since the epoch). */
  issuedAt: number;
  /** When the person signed in: the service's session lifetime counts from here. */
  sessionStart: number;
}

/** Where a person's session keeps its grant: the shared state, so every instance serves the person. */
export interface PersonGrantStore {
  load(): Promise<SavedGrant | undefined>;
  /** After a refresh: the service revoked the old token, so every instance must take the new one. */
  save(saved: SavedGrant): Promise<void>;
}

/**
 * A person's session has no usable grant (never signed in, signed out, or the service's session lifetime
 * ended): only the person can sign in again, on the sign-in page. Tool calls answer with its link.
 */
export class SignInRequired extends Error {
  override readonly name = "SignInRequired";
  constructor(readonly reason: "none" | "ended") {
    super(
      reason === "ended"
        ? "Your repository session has ended (the service's session lifetime); sign in again."
        : "You are not signed in to the repository yet.",
    );
  }
}

export type ChallengeKind = "email-challenge" | "two-factor" | "two-factor-setup";

/** A login that needs a person. Thrown by requests until `completeChallenge`/`complete2fa` succeeds. */
export class ChallengeRequired extends Error {
  override readonly name = "ChallengeRequired";
  constructor(
    readonly kind: ChallengeKind,
    readonly user: string,
    /** One sentence telling the person what to do. */
    readonly prompt: string,
  ) {
    super(prompt);
  }
  toJSON() {
    return { name: this.name, kind: this.kind, user: this.user, message: this.prompt };
  }
}

export type SessionState =
  | { kind: "signed-out" }
  | { kind: "active"; user: string; tokenExpiresAt: string }
  | { kind: "challenge-required"; challenge: ChallengeRequired };

export interface WhoAmI {
  user: string;
  fullName?: string;
  email?: string;
  tenant?: string;
  roles: string[];
  /** When the current access token expires (ISO 8601); the token itself is never shown. */
  tokenExpiresAt: string;
  sessionStartedAt: string;
  /** When the session lifetime ends and a fresh login is needed. */
  sessionEndsAt: string;
}

export interface SessionStats {
  logins: number;
  refreshes: number;
  failedRefreshes: number;
  /** Logins forced by a 401 on the current token. */
  reloginsAfter401: number;
}

export const DEFAULT_MAX_SESSION_LIFETIME_MINS = 480;
export const DEFAULT_SIGN_IN_RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000];
/** After refused credentials, how long requests fail at once instead of trying the same password again. */
export const REFUSED_SIGN_IN_COOLDOWN_MS = 60_000;
const TOKEN_HEADER = "Preservica-Access-Token";

/** How much of a token's life must remain when a request goes out (see the module comment). */
export function refreshMargin(lifetimeMs: number): number {
  return Math.min(lifetimeMs / 2, Math.max(lifetimeMs * 0.2, 500));
}
/** Below this much remaining life, a refresh is not attempted (it could arrive after expiry). */
export function minRefreshWindow(lifetimeMs: number): number {
  return Math.min(250, lifetimeMs * 0.05);
}

interface Current {
  grant: TokenGrant;
  /** Client clock when the request that produced the grant was sent. */
  issuedAt: number;
  expiresAt: number;
}

interface Details {
  user: string;
  fullName?: string;
  email?: string;
  tenant?: string;
  roles?: string[];
}

export class Session {
  readonly url: string;
  /** The service URL as people may see it: no credentials, query string or fragment. */
  readonly displayUrl: string;
  readonly tenant: string | undefined;
  /** The authenticated transport: every request through it carries a fresh token. */
  readonly http: HttpClient;
  readonly stats: SessionStats = { logins: 0, refreshes: 0, failedRefreshes: 0, reloginsAfter401: 0 };

  readonly #username: string;
  readonly #password: string | undefined;
  readonly #person: PersonGrantStore | undefined;
  /** A person's token the service refused: never taken back from the shared state. */
  #deadToken: string | undefined;
  readonly #temporaryUser: boolean;
  readonly #clock: () => number;
  readonly #log: Logger;
  readonly #maxLifetimeMs: number;
  readonly #keepAlive: boolean;
  readonly #signInRetryDelaysMs: readonly number[];
  readonly #auth: AuthApi;
  /** A client without the auth hook, for the Access Token API itself. */
  readonly #plain: HttpClient;

  #current: Current | undefined;
  #sessionStart = 0;
  #details: Details | undefined;
  /** whoAmI's last answer and what it was made from. */
  #lastWhoAmI:
    | { current: Current | undefined; details: Details | undefined; sessionStart: number; value: WhoAmI }
    | undefined;
  #pending: Promise<void> | undefined;
  #challenge: { error: ChallengeRequired; twoFactor?: TwoFactorOutcome } | undefined;
  #inFlight = new Map<string, number>();
  /** The auth header of the current token (see #headersFor). */
  #sentFor: { grant: TokenGrant; headers: Record<string, string> } | undefined;
  #drainWaiters: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** The last sign-in the service refused (wrong credentials), and when: see REFUSED_SIGN_IN_COOLDOWN_MS. */
  #refused: { error: SignInFailed; at: number } | undefined;
  /** Why the last sign-in failed, until one succeeds (for status lines; requests get the error itself). */
  #lastFailure: SignInFailed | undefined;

  constructor(opts: SessionOptions) {
    this.url = opts.url;
    this.displayUrl = displayUrl(opts.url);
    this.#username = opts.username;
    this.tenant = opts.tenant;
    this.#password = opts.password;
    this.#person = opts.person;
    this.#temporaryUser = opts.temporaryUser ?? false;
    this.#clock = opts.clock ?? Date.now;
    this.#log = (opts.logger ?? silentLogger).child({ component: "session" });
    this.#maxLifetimeMs = (opts.maxSessionLifetimeMins ?? DEFAULT_MAX_SESSION_LIFETIME_MINS) * 60_000;
    this.#keepAlive = opts.keepAlive ?? true;
    this.#signInRetryDelaysMs = opts.signInRetryDelaysMs ?? DEFAULT_SIGN_IN_RETRY_DELAYS_MS;
    const logger = opts.logger ?? silentLogger;
    this.http = new HttpClient({ ...opts.http, baseUrl: opts.url, logger });
    this.#plain = new HttpClient({ ...opts.http, baseUrl: opts.url, logger });
    this.#auth = new AuthApi(this.#plain);
    this.http.useAuth(this.#hook());
  }

  /** The user signed in as: configured, or (a person's session) the one the kept grant names. */
  get username(): string {
    return this.#username || this.#details?.user || "";
  }

  get state(): SessionState {
    if (this.#challenge) return { kind: "challenge-required", challenge: this.#challenge.error };
    if (this.#current) {
      return {
        kind: "active",
        user: this.#details?.user ?? this.username,
        tokenExpiresAt: new Date(this.#current.expiresAt).toISOString(),
      };
    }
    return { kind: "signed-out" };
  }

  /** Why the last sign-in failed, while no sign-in has succeeded since (undefined otherwise). */
  get signInFailure(): SignInFailed | undefined {
    return this.#lastFailure;
  }

  /**
   * Logs in now (a fresh session), e.g. at start-up or to restart a challenge. Throws ChallengeRequired
   * when a person must act, or SignInFailed (wrong credentials, unreachable service; its `cause` is the
   * ServiceError).
   */
  async login(signal?: AbortSignal): Promise<void> {
    await this.#settlePending();
    this.#challenge = undefined;
    this.#refused = undefined;
    await this.#run(() => this.#login(signal));
  }

  /** Finishes an e-mail challenge with the code the person read from the message. */
  async completeChallenge(code: string, signal?: AbortSignal): Promise<void> {
    if (this.#challenge?.error.kind !== "email-challenge") {
      throw new Error("No e-mail challenge is pending; log in first");
    }
    await this.#run(async () => {
      const sentAt = this.#clock();
      const outcome = await this.#auth.completeChallenge(code, { signal });
      this.#finishChallenge(outcome, sentAt);
    });
  }

  /** Finishes two-factor authentication with the current code from the person's authenticator. */
  async complete2fa(code: string, signal?: AbortSignal): Promise<void> {
    const continuation = this.#challenge?.twoFactor;
    if (!continuation) throw new Error("No two-factor challenge is pending; log in first");
    await this.#run(async () => {
      const sentAt = this.#clock();
      const outcome = await this.#auth.completeTwoFactor({
        username: this.username,
        continuation,
        code,
        tenant: this.tenant,
        signal,
      });
      this.#finishChallenge(outcome, sentAt);
    });
  }

  /** Who the session is logged in as (logging in first if needed). */
  async whoAmI(signal?: AbortSignal): Promise<WhoAmI> {
    await this.#acquire(false);
    if (!this.#details?.roles) {
      // Services that ignore includeUserDetails: ask the User API once.
      const res = await this.http.request<Record<string, unknown>>({
        path: "/api/user/details",
        accept: "application/json",
        operation: "user.details",
        signal,
      });
      const d = res.data ?? {};
      this.#details = {
        user: typeof d.userName === "string" ? d.userName : (this.#details?.user ?? this.username),
        fullName: typeof d.fullName === "string" ? d.fullName : this.#details?.fullName,
        email: typeof d.email === "string" ? d.email : this.#details?.email,
        tenant: typeof d.tenant === "string" ? d.tenant : this.#details?.tenant,
        roles: Array.isArray(d.roles) ? d.roles.filter((r): r is string => typeof r === "string") : [],
      };
    }
    const cur = this.#current;
    const details = this.#details;
    // The same answer (one frozen object) until the token, the details or the session change: whoami and
    // the role checks ask often, and the tool answers made from it are kept by it (tools/session/whoami.ts).
    const last = this.#lastWhoAmI;
    if (last && last.current === cur && last.details === details && last.sessionStart === this.#sessionStart)
      return last.value;
    const value: WhoAmI = Object.freeze({
      user: details?.user || this.username,
      ...(details?.fullName ? { fullName: details.fullName } : {}),
      ...(details?.email ? { email: details.email } : {}),
      ...((details?.tenant ?? this.tenant) ? { tenant: details?.tenant ?? this.tenant } : {}),
      roles: Object.freeze([...(details?.roles ?? [])]) as string[],
      tokenExpiresAt: new Date(cur?.expiresAt ?? 0).toISOString(),
      sessionStartedAt: new Date(this.#sessionStart).toISOString(),
      sessionEndsAt: new Date(this.#sessionStart + this.#maxLifetimeMs).toISOString(),
    });
    this.#lastWhoAmI = { current: cur, details, sessionStart: this.#sessionStart, value };
    return value;
  }

  /** Stops the keep-alive timer and closes the connections. The session cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#current = undefined;
    await Promise.allSettled([this.http.close(), this.#plain.close()]);
  }

  toJSON() {
    return {
      url: this.url,
      username: this.username,
      ...(this.tenant ? { tenant: this.tenant } : {}),
      state: this.state.kind,
      ...(this.#current ? { tokenExpiresAt: new Date(this.#current.expiresAt).toISOString() } : {}),
    };
  }
  toString(): string {
    return `Session(${this.username} @ ${this.url}, ${this.state.kind})`;
  }
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }

  // ---- the token life cycle ------------------------------------------------------------------------------

  /** Runs one login/refresh at a time; everyone else waits for it (and shares its failure). */
  #run(task: () => Promise<void>): Promise<void> {
    const p = task().finally(() => {
      if (this.#pending === p) this.#pending = undefined;
    });
    this.#pending = p;
    return p;
  }

  async #settlePending() {
    while (this.#pending) await this.#pending.catch(() => {});
  }

  /**
   * A token good for one request, counted as in flight until `release`. Checked and counted in one
   * synchronous step after the last await, so a refresh cannot slip between them.
   */
  async #acquire(count: boolean): Promise<TokenGrant> {
    for (;;) {
      const grant = this.#ready(count);
      if (grant) return grant;
      if (this.#pending) await this.#pending;
      else await this.#run(() => this.#renew());
    }
  }

  /**
   * The current token when it is good for a request now (counted in flight when `count`), undefined when a
   * login or refresh must come first; throws when the session cannot serve requests. Synchronous, so the
   * common case (a fresh token) costs a request no await at all.
   */
  #ready(count: boolean): TokenGrant | undefined {
    if (this.#closed) throw new Error("The session is closed");
    if (this.#pending) return undefined;
    if (this.#challenge) throw this.#challenge.error;
    const now = this.#clock();
    if (this.#refused && now - this.#refused.at < REFUSED_SIGN_IN_COOLDOWN_MS) throw this.#refused.error;
    const cur = this.#current;
    if (!cur || this.#lifetimeOver(now) || now >= cur.expiresAt - refreshMargin(cur.expiresAt - cur.issuedAt))
      return undefined;
    if (count) {
      const t = cur.grant.accessToken();
      this.#inFlight.set(t, (this.#inFlight.get(t) ?? 0) + 1);
    }
    return cur.grant;
  }

  #release(token: string | undefined) {
    if (!token) return;
    const n = (this.#inFlight.get(token) ?? 1) - 1;
    if (n > 0) {
      this.#inFlight.set(token, n);
      return;
    }
    this.#inFlight.delete(token);
    if (this.#drainWaiters.length === 0) return; // the common case: no refresh waiting (no new array)
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }

  /** Waits until no request is in flight on `token`, or until `deadline` on the session clock. */
  async #drain(token: string, deadline: number) {
    while ((this.#inFlight.get(token) ?? 0) > 0) {
      const wait = deadline - this.#clock();
      if (wait <= 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(wait, 1000));
        this.#drainWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  #lifetimeOver(now: number): boolean {
    return this.#current !== undefined && now >= this.#sessionStart + this.#maxLifetimeMs;
  }

  /** Refreshes when that can still work, else logs in. Called only through #run. */
  async #renew(): Promise<void> {
    const cur = this.#current;
    const now = this.#clock();
    if (cur) {
      const lifetime = cur.expiresAt - cur.issuedAt;
      const margin = refreshMargin(lifetime);
      const lifetimeLeft = this.#sessionStart + this.#maxLifetimeMs - now;
      if (now < cur.expiresAt - minRefreshWindow(lifetime) && lifetimeLeft > margin) {
        // The refresh revokes the old token: let requests already sent with it arrive first, for a short
        // while only (a slow request must not hold everyone up; if it loses, it is retried on the new token).
        const drainUntil = Math.min(
          cur.expiresAt - minRefreshWindow(lifetime),
          now + Math.min(margin / 2, 2000),
        );
        await this.#drain(cur.grant.accessToken(), drainUntil);
        const sentAt = this.#clock();
        try {
          const grant = await this.#auth.refresh(cur.grant);
          this.stats.refreshes++;
          this.#accept(grant, sentAt, false);
          this.#log.debug({ expiresInMs: grant.validForMs }, "access token refreshed");
          await this.#person
            ?.save({ grant: grant.sealableFields(), issuedAt: sentAt, sessionStart: this.#sessionStart })
            .catch((err: unknown) =>
              this.#log.warn(
                { err: String(err) },
                "could not keep the refreshed session in the shared state",
              ),
            );
          return;
        } catch (err) {
          this.stats.failedRefreshes++;
          this.#log.warn({ error: brief(err) }, "token refresh failed; logging in again");
        }
      } else if (lifetimeLeft <= margin) {
        this.#log.info("session lifetime reached; logging in again");
      }
    }
    await this.#login();
  }

  async #login(signal?: AbortSignal): Promise<void> {
    if (this.#person) return this.#restore(this.#person);
    this.#current = undefined;
    const params = { username: this.username, password: this.#password ?? "", tenant: this.tenant, signal };
    // Back-off rides out a blip. A service already found unreachable (after its back-off) gets one attempt
    // per call: the person is fixing it, and each call should say how things stand without a 3.5 s wait.
    const delays = this.#lastFailure?.problem === "unreachable" ? [] : this.#signInRetryDelaysMs;
    for (let retry = 0; ; retry++) {
      const sentAt = this.#clock();
      let outcome: LoginOutcome;
      try {
        outcome = this.#temporaryUser
          ? await this.#auth.acquireTempUser(params)
          : await this.#auth.login(params);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const delay = delays[retry];
        if (delay !== undefined && signInMayRetry(err) && !signal?.aborted && !this.#closed) {
          this.#log.warn(
            { error: brief(err), attempt: retry + 1, delayMs: delay },
            "sign-in failed to reach the service; trying again",
          );
          if (await pause(delay, signal)) continue;
        }
        throw this.#signInFailed(err);
      }
      if (outcome.kind === "token") {
        this.stats.logins++;
        this.#refused = undefined;
        this.#lastFailure = undefined;
        this.#accept(outcome.grant, sentAt, true);
        this.#log.info(
          { user: outcome.grant.user, tenant: outcome.grant.tenant, expiresInMs: outcome.grant.validForMs },
          "logged in",
        );
        return;
      }
      throw this.#needPerson(outcome);
    }
  }

  /**
   * A person's session instead of a login: the grant kept in the shared state, unless it is the one this
   * session already holds (then nothing newer exists), one the service refused, or past the session lifetime.
   */
  async #restore(person: PersonGrantStore): Promise<void> {
    const stale = this.#current?.grant.accessToken();
    const hadOne = this.#current !== undefined || this.#deadToken !== undefined;
    this.#current = undefined;
    const saved = await person.load();
    if (!saved) throw new SignInRequired(hadOne ? "ended" : "none");
    const grant = new TokenGrant(saved.grant);
    const token = grant.accessToken();
    const now = this.#clock();
    const expiresAt = saved.issuedAt + grant.validForMs;
    if (
      token === stale ||
      token === this.#deadToken ||
      now >= saved.sessionStart + this.#maxLifetimeMs ||
      now >= expiresAt - minRefreshWindow(grant.validForMs)
    ) {
      throw new SignInRequired("ended");
    }
    this.#accept(grant, saved.issuedAt, true);
    this.#sessionStart = saved.sessionStart;
    this.#schedule();
  }

  /** Records a failed sign-in and turns it into the error every waiting request gets. */
  #signInFailed(err: ServiceError): SignInFailed {
    const failure = signInFailure(err, {
      url: this.displayUrl,
      username: this.username,
      tenant: this.tenant,
    });
    this.#lastFailure = failure;
    if (failure.problem === "credentials-refused") this.#refused = { error: failure, at: this.#clock() };
    // Debug only: whoever asked for the sign-in reports the failure once, in the person's words (start-up's
    // one warning line, or the tool call's answer); at warn this line repeated it.
    this.#log.debug({ problem: failure.problem, error: brief(err) }, "sign-in failed");
    return failure;
  }

  #needPerson(outcome: Exclude<LoginOutcome, { kind: "token" }>): ChallengeRequired {
    const user = this.username;
    let error: ChallengeRequired;
    if (outcome.kind === "email-challenge") {
      error = new ChallengeRequired(
        "email-challenge",
        user,
        `The service sent a challenge code to ${user}'s e-mail address (for the local repository service: ` +
          "the newest file in its outbox directory, line 'Challenge token: …'); enter that code to finish logging in.",
      );
      this.#challenge = { error };
    } else if (outcome.kind === "two-factor") {
      error = new ChallengeRequired(
        "two-factor",
        user,
        `Two-factor authentication is on for ${user}: enter the current 6-digit code from the authenticator app.`,
      );
      this.#challenge = { error, twoFactor: outcome };
    } else {
      error = new ChallengeRequired(
        "two-factor-setup",
        user,
        `Two-factor authentication is required for ${user} but not set up yet: set it up in the service's web interface, then try again.`,
      );
      this.#challenge = { error };
    }
    this.#log.info({ user, kind: error.kind }, "login needs a person");
    return error;
  }

  #finishChallenge(outcome: LoginOutcome, sentAt: number) {
    if (outcome.kind !== "token") throw this.#needPerson(outcome);
    if (outcome.grant.user && outcome.grant.user.toLowerCase() !== this.username.toLowerCase()) {
      throw new Error(
        `The code belongs to another user (${outcome.grant.user}); the session is for ${this.username}`,
      );
    }
    this.#challenge = undefined;
    this.stats.logins++;
    this.#accept(outcome.grant, sentAt, true);
    this.#log.info({ user: outcome.grant.user }, "logged in after a challenge");
  }

  #accept(grant: TokenGrant, sentAt: number, newSession: boolean) {
    this.#current = { grant, issuedAt: sentAt, expiresAt: sentAt + grant.validForMs };
    if (newSession) this.#sessionStart = sentAt;
    const prev = newSession ? undefined : this.#details;
    this.#details = {
      user: grant.user || prev?.user || this.username,
      fullName: grant.fullName ?? prev?.fullName,
      email: grant.email ?? prev?.email,
      tenant: grant.tenant ?? prev?.tenant ?? this.tenant,
      roles: grant.roles ? [...grant.roles] : prev?.roles,
    };
    this.#schedule();
  }

  /** Keep-alive: refresh at the same point a request would, while the session lifetime allows. */
  #schedule() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const cur = this.#current;
    if (!this.#keepAlive || this.#closed || !cur) return;
    const margin = refreshMargin(cur.expiresAt - cur.issuedAt);
    const at = cur.expiresAt - margin;
    if (at + margin >= this.#sessionStart + this.#maxLifetimeMs) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        if (this.#pending || this.#current !== cur || this.#closed) return;
        this.#run(() => this.#renew()).catch((err) => {
          this.#log.warn(
            { error: brief(err) },
            "background token refresh failed; the next request will log in",
          );
        });
      },
      // setTimeout overflows past ~24.8 days; a token never lives that long, but a moved clock might say so.
      Math.min(2 ** 31 - 1, Math.max(0, at - this.#clock())),
    );
    this.#timer.unref();
  }

  /** The header that carries `grant`'s token, built once per token. */
  #headersFor(grant: TokenGrant): Record<string, string> {
    if (this.#sentFor?.grant !== grant)
      this.#sentFor = { grant, headers: { [TOKEN_HEADER]: grant.accessToken() } };
    return this.#sentFor.headers;
  }

  #hook(): AuthHook {
    return {
      headers: (_attempt: AuthAttempt) => {
        // A fresh token: its headers at once (the same object while the token lasts; nobody changes it).
        const grant = this.#ready(true);
        if (grant) return this.#headersFor(grant);
        return this.#acquire(true).then((g) => this.#headersFor(g));
      },
      release: (sent) => this.#release(sent[TOKEN_HEADER]),
      unauthorized: async ({ sent, idempotent }) => {
        const used = sent[TOKEN_HEADER];
        // Another request already replaced that token: just try again with the current one.
        if (this.#pending) {
          await this.#pending.catch(() => {});
          return true;
        }
        if (this.#current && this.#current.grant.accessToken() !== used) return true;
        // The current token was refused (revoked, expired early, service restarted): drop it. An idempotent
        // request logs in again once and is retried once; any other one fails, and the next request logs in.
        if (this.#person) this.#deadToken = used;
        this.#current = undefined;
        if (!idempotent) return false;
        this.stats.reloginsAfter401++;
        this.#log.info("the service refused the access token; logging in again");
        await this.#run(() => this.#login());
        return true;
      },
    };
  }
}

/** Waits `ms`; false when `signal` aborts first. (Not unref'd: at start-up this wait may be all that runs.) */
function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A service error as a log line wants it: what was asked and what came back, without the stack. These failures
 * are expected (a wrong password, a service down); a stack per retry buried the one line that says what to do.
 */
function brief(err: unknown): Record<string, unknown> | string {
  if (!(err instanceof ServiceError)) return String(err);
  const { status, operation, detail, serviceMessage } = err;
  return { status, operation, ...(detail ? { detail } : {}), ...(serviceMessage ? { serviceMessage } : {}) };
}
