import type { HttpRate } from "./config.js";

/**
 * Token buckets, one per client key: each holds up to `rate.requests` tokens, refills at `requests/perMs`,
 * and a request takes one. A client that has been quiet may burst a full bucket; a client that keeps going
 * gets the steady rate and, when refused, how long until its next token (the `Retry-After` it is told).
 * Pure: the clock is injected, nothing is shared between instances (each instance of a scaled deployment
 * limits what it serves; behind a load balancer a client's share is the sum over instances).
 */
export class RateLimiter {
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
  take(key: string): { ok: true } | { ok: false; retryAfterSecs: number } {
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
