import type { IncomingMessage } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { MiddlewareHandler } from "hono";

/**
 * Opt-in fault injection, for tests of clients' retry and timeout handling. Off unless the service is
 * started with `faults` (from the command line: `--latency` only). Rules are matched in order against the
 * request path (RegExp: path plus query; string: path prefix) and optionally the method; each fires `times` times.
 *
 *   repo.faults.inject({ path: "/api/entity", status: 503, retryAfter: 1, times: 2 });
 *   repo.faults.inject({ path: /children/, reset: true });          // destroy the connection
 *   repo.faults.setLatency(200);                                      // every request waits 200 ms
 */

export interface FaultRule {
  path: RegExp | string;
  method?: string;
  /** Answer with this status (JSON `{success:false,message}` like every error of the service). */
  status?: number;
  /** Seconds for a Retry-After header. */
  retryAfter?: number;
  /** Destroy the connection instead of answering. */
  reset?: boolean;
  /** Wait before handling (or before failing) the request. */
  delayMs?: number;
  /** How many matching requests this rule affects (default 1). */
  times?: number;
}

export interface FaultOptions {
  failNext?: FaultRule[];
  latencyMs?: number;
}

export interface FaultHit {
  method: string;
  path: string;
  action: "status" | "reset" | "delay";
  status?: number;
}

interface ActiveRule extends FaultRule {
  remaining: number;
}

export class Faults {
  private rules: ActiveRule[] = [];
  private latencyMs = 0;
  /** Aborted when the service stops: a request still waiting out its delay gives up instead of going on. */
  private readonly stopping = new AbortController();
  /** What was injected, oldest first (tests assert on it). */
  readonly hits: FaultHit[] = [];

  constructor(opts: FaultOptions = {}) {
    for (const r of opts.failNext ?? []) this.inject(r);
    this.latencyMs = opts.latencyMs ?? 0;
  }

  inject(rule: FaultRule): this {
    this.rules.push({ ...rule, remaining: rule.times ?? 1 });
    return this;
  }

  /** Latency added to every request (0 = none). */
  setLatency(ms: number): this {
    this.latencyMs = Math.max(0, ms);
    return this;
  }

  /** Destroys the connection of the next request(s) to `path` (default: any path). */
  resetNext(path: RegExp | string = "/", times = 1): this {
    return this.inject({ path, reset: true, times });
  }

  clear(): this {
    this.rules = [];
    this.latencyMs = 0;
    this.hits.length = 0;
    return this;
  }

  /**
   * The service is stopping: requests waiting out a delay end now, before they reach the store (which closes
   * next; a query on a closed libsql database panics and takes the whole process down).
   */
  stop(): void {
    this.stopping.abort();
  }

  /** Rules not yet used up. */
  get pending(): number {
    return this.rules.reduce((n, r) => n + r.remaining, 0);
  }

  private take(method: string, path: string, pathWithQuery: string): ActiveRule | undefined {
    const i = this.rules.findIndex(
      (r) =>
        r.remaining > 0 &&
        (!r.method || r.method.toUpperCase() === method) &&
        (typeof r.path === "string" ? path.startsWith(r.path) : r.path.test(pathWithQuery)),
    );
    if (i < 0) return undefined;
    const rule = this.rules[i] as ActiveRule;
    rule.remaining--;
    if (rule.remaining <= 0) this.rules.splice(i, 1);
    return rule;
  }

  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const url = new URL(c.req.url);
      const method = c.req.method;
      const rule = this.take(method, url.pathname, url.pathname + url.search);
      const delay = (rule?.delayMs ?? 0) + this.latencyMs;
      // Rejects at once when the service stops: the request then ends unanswered, its socket closed.
      if (delay > 0) await sleep(delay, undefined, { signal: this.stopping.signal });
      if (!rule) return next();
      if (rule.reset) {
        this.hits.push({ method, path: url.pathname, action: "reset" });
        const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
        incoming?.socket.destroy();
        return c.body(null, 500);
      }
      if (rule.status) {
        this.hits.push({ method, path: url.pathname, action: "status", status: rule.status });
        if (rule.retryAfter !== undefined) c.header("Retry-After", String(rule.retryAfter));
        return c.json({ success: false, message: `Injected fault: ${rule.status}` }, rule.status as 500);
      }
      this.hits.push({ method, path: url.pathname, action: "delay" });
      return next();
    };
  }
}
