import type { AuditEntry } from "../guards/audit.js";
import type { AuditFilter, Lease, SharedState } from "./types.js";

/**
 * The in-process shared state: right for stdio and for a single HTTP instance, where "every instance" is this
 * one. Expired entries are dropped lazily when touched and in a sweep bounded by the calls made.
 */
export class MemoryState implements SharedState {
  readonly kind = "memory" as const;
  readonly reachable = true;
  readonly #spent = new Map<string, number>();
  readonly #leases = new Map<string, { holder: symbol; until: number }>();
  readonly #windows = new Map<string, { count: number; until: number }>();
  readonly #values = new Map<string, { value: string; until: number }>();
  readonly #audit: AuditEntry[] = [];
  #calls = 0;

  constructor(
    private readonly now: () => number = Date.now,
    /** Entries kept in memory for `audit_log`; the JSON-lines file keeps everything. */
    private readonly auditCap = 10_000,
  ) {}

  async ping(): Promise<void> {}

  async spendOnce(id: string, ttlMs: number): Promise<boolean> {
    this.#sweep();
    const until = this.#spent.get(id);
    if (until !== undefined && until > this.now()) return false;
    this.#spent.set(id, this.now() + ttlMs);
    return true;
  }

  async lease(key: string, ttlMs: number): Promise<Lease | undefined> {
    const held = this.#leases.get(key);
    if (held && held.until > this.now()) return undefined;
    const holder = Symbol(key);
    this.#leases.set(key, { holder, until: this.now() + ttlMs });
    return {
      release: async () => {
        if (this.#leases.get(key)?.holder === holder) this.#leases.delete(key);
      },
    };
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }> {
    this.#sweep();
    const t = this.now();
    let w = this.#windows.get(key);
    if (!w || w.until <= t) {
      w = { count: 0, until: t + windowMs };
      this.#windows.set(key, w);
    }
    w.count += 1;
    return { count: w.count, resetInMs: w.until - t };
  }

  async getValue(key: string): Promise<string | undefined> {
    const v = this.#values.get(key);
    if (!v) return undefined;
    if (v.until <= this.now()) {
      this.#values.delete(key);
      return undefined;
    }
    return v.value;
  }

  async setValue(key: string, value: string, ttlMs: number): Promise<void> {
    this.#sweep();
    this.#values.set(key, { value, until: this.now() + ttlMs });
  }

  async deleteValue(key: string): Promise<void> {
    this.#values.delete(key);
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    this.#audit.push(entry);
    if (this.#audit.length > this.auditCap) this.#audit.splice(0, this.#audit.length - this.auditCap);
  }

  async findAudit(id: string): Promise<AuditEntry | undefined> {
    return this.#audit.find((e) => e.id === id);
  }

  async listAudit(filter: AuditFilter): Promise<{ entries: AuditEntry[]; total: number }> {
    const matching = this.#audit.filter((e) => auditMatches(e, filter)).reverse();
    const from = filter.offset ?? 0;
    return { entries: matching.slice(from, from + filter.limit), total: matching.length };
  }

  async close(): Promise<void> {}

  /** Drops what has expired, once every 256 calls, so long-running servers do not grow without bound. */
  #sweep(): void {
    if (++this.#calls % 256 !== 0) return;
    const t = this.now();
    for (const [k, until] of this.#spent) if (until <= t) this.#spent.delete(k);
    for (const [k, l] of this.#leases) if (l.until <= t) this.#leases.delete(k);
    for (const [k, w] of this.#windows) if (w.until <= t) this.#windows.delete(k);
    for (const [k, v] of this.#values) if (v.until <= t) this.#values.delete(k);
  }
}

/** One filter for every implementation, so `audit_log` answers the same whichever store holds the trail. */
export function auditMatches(e: AuditEntry, f: AuditFilter): boolean {
  if (f.user !== undefined && e.user !== f.user) return false;
  if (f.tool !== undefined && e.tool !== f.tool) return false;
  if (f.target !== undefined && !e.targets.some((t) => t.ref === f.target)) return false;
  if (f.since !== undefined && e.time < f.since) return false;
  if (f.until !== undefined && e.time > f.until) return false;
  return true;
}
