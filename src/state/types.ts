import type { AuditEntry } from "../guards/audit.js";

/**
 * What several instances of a team server must agree on, and nothing more (ARCHITECTURE, "Team servers"):
 * spent confirmation tokens, short per-target leases around a confirmed write, per-person sessions (sealed by
 * the caller before they get here), rate budgets and the audit trail. Two implementations: in-process
 * (`memory.ts`, the default for stdio and a single instance) and Valkey/Redis (`PRESERVATION_STATE_URL`).
 *
 * Every method may reject with `StateUnavailableError` when the store cannot be reached; callers that change
 * the repository must then refuse (fail closed), callers that only read go on without it.
 */
export interface SharedState {
  /** "memory" or "redis": shown in the banner and readiness, never the URL (it may hold a password). */
  readonly kind: "memory" | "redis";

  /** Whether the store is connected now (`/readyz` says so when it is not); in-process is always. */
  readonly reachable: boolean;

  /** Resolves when the store answers, else rejects with `StateUnavailableError`: asked before a write. */
  ping(): Promise<void>;

  /** Marks `id` spent for `ttlMs`. True for the one call that spent it; false for every later call, anywhere. */
  spendOnce(id: string, ttlMs: number): Promise<boolean>;

  /**
   * Takes an exclusive lease on `key` for at most `ttlMs` (it lapses by itself if the holder dies).
   * Undefined when another holder has it. `release()` frees it only if it is still this holder's.
   */
  lease(key: string, ttlMs: number): Promise<Lease | undefined>;

  /** Counts one hit against `key` in a fixed window of `windowMs`; the count so far and ms until it resets. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;

  /** A small value kept for `ttlMs` (per-person sessions, already sealed by the caller). */
  getValue(key: string): Promise<string | undefined>;
  setValue(key: string, value: string, ttlMs: number): Promise<void>;
  deleteValue(key: string): Promise<void>;

  /** The audit trail, shared by every instance; newest first when listed. */
  appendAudit(entry: AuditEntry): Promise<void>;
  findAudit(id: string): Promise<AuditEntry | undefined>;
  listAudit(filter: AuditFilter): Promise<{ entries: AuditEntry[]; total: number }>;

  close(): Promise<void>;
}

export interface Lease {
  release(): Promise<void>;
}

export interface AuditFilter {
  user?: string;
  /** An entity ref the entry touched. */
  target?: string;
  tool?: string;
  /** ISO instants, inclusive. */
  since?: string;
  until?: string;
  limit: number;
  offset?: number;
}

/** The store did not answer; writes are refused, reads go on. The message says what to do. */
export class StateUnavailableError extends Error {
  constructor(cause?: unknown) {
    super(
      "The team server's shared state store (PRESERVATION_STATE_URL) cannot be reached, so no change is made " +
        "(a confirmation could otherwise be used twice). Reading still works; try the change again once the store is back.",
      { cause },
    );
    this.name = "StateUnavailableError";
  }
}
