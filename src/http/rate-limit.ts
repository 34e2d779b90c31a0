import type { HttpRate } from "../config.js";
import { type SharedState, StateUnavailableError } from "../state/types.js";

export type RateVerdict = { ok: true } | { ok: false; retryAfterSecs: number };

/** Takes one request from a client's budget: a verdict now (in-process) or after asking the shared store. */
export interface Limiter {
  take(key: string): RateVerdict | Promise<RateVerdict>;
}

/**
 * The limiter for this process: the in-process token bucket, or, when several instances share a store
 * (PRESERVATION_STATE_URL), a budget counted there, so N instances do not give a client N budgets.
 */
export function limiterFor(rate: HttpRate, state?: SharedState): Limiter {
  return state?.kind === "redis" ? new SharedRateLimiter(rate, state) : new RateLimiter(rate);
}

/**
 * Token buckets, one per client key: each holds up to `rate.requests` tokens, refills at `requests/perMs`,
 * and a request takes one. A client that has been quiet may burst a full bucket; a client that keeps going
 * gets the steady rate and, when refused, how long until its next token (the `Retry-After` it is told).
 * Pure: the clock is injected, nothing is shared between instances (SharedRateLimiter is what a team
 * server with a shared store uses).
 */
export class RateLimiter implements Limiter {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #clock: () => number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  #checks = 0;

  constructor(rate: HttpRate, clock: () => number = Date.now) {
    this.#capacity = rate.requests;
    this.#perMs = rate.perMs / rate.requests;
    this.#clock = clock;
  }

  /** Takes a token for `key`: `{ ok: true }`, or the whole seconds to wait before the next one. */
  take(key: string): RateVerdict {
    const now = this.#clock();
    if (++this.#checks % 1024 === 0) this.#forgetFull(now);
    const bucket = this.#buckets.get(key) ?? { tokens: this.#capacity, at: now };
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.at) / this.#perMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSecs: Math.max(1, Math.ceil(((1 - bucket.tokens) * this.#perMs) / 1000)) };
  }

  /** How many clients are remembered (a full bucket is the same as none, so those are dropped). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Memory stays bounded by the clients active within one refill period, not by every client ever seen. */
  #forgetFull(now: number): void {
    for (const [key, b] of this.#buckets) {
      if (b.tokens + (now - b.at) / this.#perMs >= this.#capacity) this.#buckets.delete(key);
    }
  }
}

/**
 * A client's budget counted in the shared store, in fixed windows of the rate's period (the store's INCR and
 * PEXPIRE in one step: what every instance sees alike). The key carries the rate, so deployments with other
 * rates on one store keep their own counts. While the store cannot be reached, each instance limits with its
 * own bucket instead: reads go on, and no client is unlimited.
 */
export class SharedRateLimiter implements Limiter {
  readonly #fallback: RateLimiter;

  constructor(
    private readonly rate: HttpRate,
    private readonly state: SharedState,
  ) {
    this.#fallback = new RateLimiter(rate);
  }

  async take(key: string): Promise<RateVerdict> {
    try {
      const { count, resetInMs } = await this.state.hit(
        `${this.rate.requests}/${this.rate.perMs}:${key}`,
        this.rate.perMs,
      );
      if (count <= this.rate.requests) return { ok: true };
      return { ok: false, retryAfterSecs: Math.max(1, Math.ceil(resetInMs / 1000)) };
    } catch (err) {
      if (err instanceof StateUnavailableError) return this.#fallback.take(key);
      throw err;
    }
  }
}
