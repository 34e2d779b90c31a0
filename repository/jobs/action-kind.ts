import type { ServiceContext } from "../context.js";
import type { ActionRow } from "../store/actions/read.js";

/**
 * What a kind of long-running action is. Each kind lives in its own file under jobs/; `kinds.ts` lists
 * them all, and the runner finds the handler of any action in the store there (including one resumed
 * after a restart).
 */

/** What a handler gets: the service, its action, and the point at which it must let others run. */
export interface ActionRun {
  svc: ServiceContext;
  action: ActionRow;
  /** Parsed `action.params`. */
  params: unknown;
  /**
   * Call between batches: yields to the event loop, so requests are answered while a long action
   * runs, and throws `StopRequested` when the service is shutting down (the action stays ACTIVE and
   * resumes at the next start) or `CancelRequested` when it was cancelled (let both propagate).
   */
  pause(): Promise<void>;
  /** The current time as the service sees it (ISO 8601). */
  now(): string;
}

/** How an action ended; the runner stores it. Omitted = COMPLETED, or FINISHED_MIXED_OUTCOME on failures. */
export interface ActionOutcome {
  status?: "COMPLETED" | "FAILED" | "FINISHED_MIXED_OUTCOME" | "PENDING" | "CANCELLED";
  message?: string;
}

export interface ActionKind {
  /** Stored in `actions.kind`, e.g. "move". */
  kind: string;
  /** The listing under /api/entity/actions/{path}, e.g. "moves". */
  path: string;
  /** A short description for listings and documentation. */
  title: string;
  /**
   * Does (the rest of) the work. Must be safe to run again after an interruption: record each item in
   * the same transaction as its change, and skip what `handledRefs` (or the items) say is done.
   */
  run(run: ActionRun): Promise<ActionOutcome | undefined>;
}

/** Thrown by `pause()` when the service stops; not a failure of the action. */
export class StopRequested extends Error {
  constructor() {
    super("the service is stopping");
  }
}

/** Thrown by `pause()` when the action was ended from outside (`ActionRunner.cancel`). */
export class CancelRequested extends Error {
  constructor() {
    super("the action was cancelled");
  }
}
