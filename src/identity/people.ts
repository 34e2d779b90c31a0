import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { TokenGrant } from "../api/auth.js";
import { type PersonGrantStore, type SavedGrant, Session } from "../session/session.js";
import { type SharedState, StateUnavailableError } from "../state/types.js";
import { Sealer } from "./seal.js";

/**
 * Each person's repository session on a team server (identity "person"), by OAuth subject. The grant (access
 * and refresh token, the user's name and roles) is kept sealed in the shared state, so every instance serves
 * the person and a refresh made on one is taken up by the others; the password never gets here. Each instance
 * keeps a `Session` per subject it served (it refreshes before expiry like the service session), and asks the
 * store on every call whether the person is still signed in, so a sign-out anywhere ends it everywhere.
 */

export interface PeopleOptions {
  state: SharedState;
  /** PRESERVATION_CONFIRM_KEY: the sealing key is derived from it (its own label). */
  confirmKey: string | undefined;
  /** The repository service. */
  url: string;
  maxSessionLifetimeMins: number;
  logger: Logger;
  clock?: () => number;
}

/** How many people's sessions one instance keeps at most; the least recently used one is closed first. */
const MAX_CACHED = 500;

interface Kept extends SavedGrant {
  /** The subject it was sealed for: a value copied under another subject's key does not open. */
  sub: string;
}

export class PersonSessions {
  readonly #state: SharedState;
  readonly #sealer: Sealer;
  readonly #opts: PeopleOptions;
  readonly #clock: () => number;
  readonly #sessions = new Map<string, Session>();
  readonly #signedIn = new Map<string, Set<() => void>>();

  constructor(opts: PeopleOptions) {
    this.#opts = opts;
    this.#state = opts.state;
    this.#clock = opts.clock ?? Date.now;
    this.#sealer = new Sealer(opts.confirmKey, "person sessions v1", "ps1.");
  }

  get maxLifetimeMs(): number {
    return this.#opts.maxSessionLifetimeMins * 60_000;
  }

  /**
   * The caller's session: signed in (a kept grant) or not yet (its requests fail with SignInRequired until
   * the person signs in, on any instance). One store read per call.
   */
  async sessionFor(subject: string): Promise<Session> {
    // The store out of reach: this instance's own session for the person goes on (reads go on).
    const kept = await this.#state.getValue(sessionKeyOf(subject)).catch((err: unknown) => {
      if (err instanceof StateUnavailableError) return UNKNOWN;
      throw err;
    });
    let session = this.#sessions.get(subject);
    // Signed out (or the lifetime ended) elsewhere: this instance's tokens must not outlive that.
    if (session && kept === undefined && session.state.kind === "active") {
      this.#drop(subject);
      session = undefined;
    }
    if (!session) {
      session = new Session({
        url: this.#opts.url,
        username: "",
        maxSessionLifetimeMins: this.#opts.maxSessionLifetimeMins,
        logger: this.#opts.logger,
        ...(this.#opts.clock ? { clock: this.#opts.clock } : {}),
        person: this.#storeFor(subject),
      });
      if (this.#sessions.size >= MAX_CACHED) {
        const oldest = this.#sessions.keys().next().value;
        if (oldest !== undefined) this.#drop(oldest);
      }
    } else {
      this.#sessions.delete(subject);
    }
    this.#sessions.set(subject, session);
    return session;
  }

  /** Keeps the grant the sign-in page obtained: from now on the person's calls run as them, on every instance. */
  async signedIn(subject: string, grant: TokenGrant, sentAt: number): Promise<void> {
    await this.#put(subject, { grant: grant.sealableFields(), issuedAt: sentAt, sessionStart: sentAt });
    // A session this instance holds for an earlier sign-in would go on with the old tokens.
    if (this.#sessions.get(subject)?.state.kind === "active") this.#drop(subject);
    const waiters = this.#signedIn.get(subject);
    this.#signedIn.delete(subject);
    for (const w of waiters ?? []) w();
  }

  /** Ends the person's session here and everywhere (the service's token lapses by itself, unrefreshed). */
  async signOut(subject: string): Promise<void> {
    await this.#state.deleteValue(sessionKeyOf(subject));
    this.#drop(subject);
  }

  /**
   * Waits until the person has signed in (on this instance, or any other: the store is asked now and then),
   * at most `ms`. True once signed in.
   */
  async waitForSignIn(subject: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    const until = this.#clock() + ms;
    while (!signal?.aborted) {
      if ((await this.#load(subject)) !== undefined) return true;
      const left = until - this.#clock();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const waiters = this.#signedIn.get(subject) ?? new Set();
        this.#signedIn.set(subject, waiters);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, POLL_MS));
        waiters.add(done);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
    return false;
  }

  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((s) => s.close()));
  }

  #drop(subject: string): void {
    const s = this.#sessions.get(subject);
    this.#sessions.delete(subject);
    void s?.close();
  }

  #storeFor(subject: string): PersonGrantStore {
    return {
      load: () => this.#load(subject),
      save: async (saved) => {
        // Signed out meanwhile (on any instance): a refresh must not bring the session back.
        if ((await this.#state.getValue(sessionKeyOf(subject))) === undefined) return;
        await this.#put(subject, saved);
      },
    };
  }

  async #load(subject: string): Promise<SavedGrant | undefined> {
    const kept = this.#sealer.open(await this.#state.getValue(sessionKeyOf(subject))) as Kept | undefined;
    if (
      !kept ||
      kept.sub !== subject ||
      typeof kept.grant !== "object" ||
      kept.grant === null ||
      typeof kept.issuedAt !== "number" ||
      typeof kept.sessionStart !== "number"
    ) {
      return undefined;
    }
    return { grant: kept.grant, issuedAt: kept.issuedAt, sessionStart: kept.sessionStart };
  }

  async #put(subject: string, saved: SavedGrant): Promise<void> {
    const ttl = saved.sessionStart + this.maxLifetimeMs - this.#clock();
    if (ttl <= 0) return;
    const kept: Kept = { sub: subject, ...saved };
    await this.#state.setValue(sessionKeyOf(subject), this.#sealer.seal(kept), ttl);
  }
}

const POLL_MS = 500;
/** The store did not answer whether the person is signed in. */
const UNKNOWN = Symbol("unknown");

/** The store key of a subject's session: a digest, so the store's key list names nobody. */
export function sessionKeyOf(subject: string): string {
  return `person-session:${createHash("sha256").update(subject).digest("base64url")}`;
}
